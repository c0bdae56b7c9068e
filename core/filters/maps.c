#include "maps.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fileio.h"
#include "filters.h"
#include "resample.h"

int vkfx_aux_read(const char *filter, const char *option, const char *path, const char *input,
                  uint32_t w, uint32_t h, float **out)
{
    int ret = VKFX_OK;
    vkfx_pixels px = {0};
    float *m = NULL;
    *out = NULL;
    if (strcmp(path, "self") == 0) {
        /* The depth channel of the input file itself (an OpenEXR render). */
        if (!input)
            return vkfx_fail(VKFX_E_USAGE, "%s: %s=self needs an input file", filter, option);
        ret = vkfx_file_load_depth_of(input, &px);
    } else {
        ret = vkfx_file_load_map(path, &px);
    }
    if (ret < 0) {
        vkfx_fail_context(ret, "%s: reading %s=%s", filter, option, path);
        goto fail;
    }
    if (px.width != w || px.height != h) {
        ret = vkfx_fail(VKFX_E_USAGE,
                        "%s: %s=%s is %ux%u but the image is %ux%u; the map must have the "
                        "image's size (it is never resampled)",
                        filter, option, path, px.width, px.height, w, h);
        goto fail;
    }
    size_t n = (size_t)w * h;
    m = malloc(n * sizeof(*m));
    if (!m) {
        ret = vkfx_fail(VKFX_E_NOMEM, "out of host memory");
        goto fail;
    }
    /* The first channel, integer samples normalised by their bit depth:
     * data, so never sRGB-decoded or premultiplied. */
    for (size_t i = 0; i < n; i++) {
        size_t at = i * px.channels;
        switch (px.sample) {
        case VKFX_SAMPLE_U8:
            m[i] = (float)(((const uint8_t *)px.data)[at] / 255.0);
            break;
        case VKFX_SAMPLE_U16:
            m[i] = (float)(((const uint16_t *)px.data)[at] / 65535.0);
            break;
        case VKFX_SAMPLE_F32:
            m[i] = ((const float *)px.data)[at];
            break;
        }
    }
    *out = m;
    m = NULL;
fail:
    free(m);
    vkfx_pixels_free(&px);
    return ret;
}

int vkfx_aux_load(vkfx_graph *g, const char *filter, const char *option, const char *path,
                  vkfx_buffer **out)
{
    int ret = VKFX_OK;
    float *m = NULL;
    uint32_t w = vkfx_graph_width(g), h = vkfx_graph_height(g);
    vkfx_maps *maps = vkfx_graph_maps(g);
    if (maps)
        return vkfx_maps_get(maps, g, filter, option, path, out);
    TRY(vkfx_aux_read(filter, option, path, vkfx_graph_input_path(g), w, h, &m));
    TRY(vkfx_graph_upload(g, m, (size_t)w * h * sizeof(*m), out));
fail:
    free(m);
    return ret;
}

/* Sizes kept per map: the full one and the last few widths shown, so that
 * resizing a window does not fill device memory. */
enum { MAX_SIZES = 3 };

typedef struct map_size {
    uint32_t width, height;
    vkfx_buffer *buffer;
    uint64_t used; /* clock of the last run that took it */
} map_size;

typedef struct map_entry {
    char *path;
    float *full; /* width x height floats, as vkfx_aux_read gives them */
    map_size sizes[MAX_SIZES];
} map_entry;

struct vkfx_maps {
    vkfx_context *ctx;
    vkfx_staging *staging;
    char *input_path;
    uint32_t width, height;
    map_entry *entries;
    size_t count;
    uint64_t clock;
};

int vkfx_maps_create(vkfx_context *ctx, vkfx_staging *staging, const char *input_path,
                     uint32_t width, uint32_t height, vkfx_maps **out)
{
    vkfx_maps *m = calloc(1, sizeof(*m));
    *out = NULL;
    if (!m)
        return vkfx_fail(VKFX_E_NOMEM, "out of host memory");
    *m = (vkfx_maps){.ctx = ctx, .staging = staging, .width = width, .height = height};
    if (input_path && !(m->input_path = strdup(input_path))) {
        free(m);
        return vkfx_fail(VKFX_E_NOMEM, "out of host memory");
    }
    *out = m;
    return VKFX_OK;
}

void vkfx_maps_destroy(vkfx_maps *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->count; i++) {
        for (int s = 0; s < MAX_SIZES; s++)
            vkfx_buffer_destroy(m->ctx, m->entries[i].sizes[s].buffer);
        free(m->entries[i].path);
        free(m->entries[i].full);
    }
    free(m->entries);
    free(m->input_path);
    free(m);
}

/* The entry of path, read from its file the first time. */
static int entry_of(vkfx_maps *m, const char *filter, const char *option, const char *path,
                    map_entry **out)
{
    int ret = VKFX_OK;
    for (size_t i = 0; i < m->count; i++)
        if (strcmp(m->entries[i].path, path) == 0) {
            *out = &m->entries[i];
            return VKFX_OK;
        }
    map_entry e = {0};
    TRY(vkfx_aux_read(filter, option, path, m->input_path, m->width, m->height, &e.full));
    map_entry *grown = realloc(m->entries, (m->count + 1) * sizeof(*grown));
    e.path = strdup(path);
    if (!grown || !e.path) {
        if (grown)
            m->entries = grown;
        free(e.path);
        free(e.full);
        return vkfx_fail(VKFX_E_NOMEM, "out of host memory");
    }
    m->entries = grown;
    m->entries[m->count] = e;
    *out = &m->entries[m->count++];
fail:
    return ret;
}

int vkfx_maps_get(vkfx_maps *m, vkfx_graph *g, const char *filter, const char *option,
                  const char *path, vkfx_buffer **out)
{
    int ret = VKFX_OK;
    map_entry *e = NULL;
    map_size *slot = NULL;
    float *scaled = NULL;
    uint32_t w = vkfx_graph_width(g), h = vkfx_graph_height(g);
    *out = NULL;
    TRY(entry_of(m, filter, option, path, &e));
    m->clock++;
    slot = &e->sizes[0];
    for (int s = 0; s < MAX_SIZES; s++) {
        map_size *z = &e->sizes[s];
        if (z->buffer && z->width == w && z->height == h) {
            z->used = m->clock;
            *out = z->buffer;
            return VKFX_OK;
        }
        if (!z->buffer || (slot->buffer && z->used < slot->used))
            slot = z;
    }
    if (w > m->width || h > m->height)
        return vkfx_fail(VKFX_E_USAGE, "%s: %s=%s: a run of %ux%u on an input of %ux%u", filter,
                         option, path, w, h, m->width, m->height);
    const float *data = e->full;
    if (w != m->width || h != m->height) {
        /* The map shrinks as the image does: each pixel of the smaller map
         * is the mean over the same footprint as the image's pixel. */
        scaled = malloc((size_t)w * h * sizeof(*scaled));
        if (!scaled)
            return vkfx_fail(VKFX_E_NOMEM, "out of host memory");
        TRY(vkfx_area_downscale(e->full, m->width, m->height, 1, scaled, w, h));
        data = scaled;
    }
    /* The least recently used size makes room; runs are one at a time, so
     * no run in flight holds it. */
    vkfx_buffer_destroy(m->ctx, slot->buffer);
    *slot = (map_size){.width = w, .height = h, .used = m->clock};
    VkDeviceSize bytes = (VkDeviceSize)w * h * sizeof(float);
    TRY(vkfx_buffer_create(m->ctx, bytes,
                           VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                           VKFX_MEM_DEVICE, &slot->buffer));
    TRY(vkfx_staging_upload(m->staging, slot->buffer->buffer, 0, data, bytes));
    TRY(vkfx_staging_drain(m->staging));
    *out = slot->buffer;
fail:
    if (ret < 0 && slot && slot->buffer && !*out) {
        vkfx_buffer_destroy(m->ctx, slot->buffer);
        slot->buffer = NULL;
    }
    free(scaled);
    return ret;
}

int vkfx_maps_full(vkfx_maps *m, const char *filter, const char *option, const char *path,
                   const float **full)
{
    int ret = VKFX_OK;
    map_entry *e = NULL;
    TRY(entry_of(m, filter, option, path, &e));
    *full = e->full;
fail:
    return ret;
}

int vkfx_maps_value(vkfx_maps *m, const char *filter, const char *option, const char *path,
                    uint32_t x, uint32_t y, float *z)
{
    int ret = VKFX_OK;
    const float *full = NULL;
    if (x >= m->width || y >= m->height)
        return vkfx_fail(VKFX_E_USAGE, "pixel (%u, %u) is outside the %ux%u image", x, y, m->width,
                         m->height);
    TRY(vkfx_maps_full(m, filter, option, path, &full));
    *z = full[(size_t)y * m->width + x];
fail:
    return ret;
}
