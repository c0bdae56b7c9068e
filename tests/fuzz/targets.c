#include "targets.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chain.h"
#include "error.h"
#include "exif.h"
#include "fileio.h"
#include "icc.h"

static volatile unsigned sink;

/* A result that breaks the library's own contract: stop loudly. */
static void broken(const char *what)
{
    fprintf(stderr, "fuzz target contract broken: %s\n", what);
    abort();
}

static void check_refusal(int ret)
{
    if (ret >= 0)
        broken("a failure returned a non-negative status");
    const char *msg = vkfx_error_message();
    if (!msg || !*msg)
        broken("a failure left no message");
}

int vkfx_fuzz_chain(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = 0;
    vkfx_chain *chain = NULL;
    vkfx_error_clear();
    int ret = vkfx_chain_parse(text, &chain);
    if (ret < 0) {
        check_refusal(ret);
        if (chain)
            broken("a refused chain was returned");
    } else {
        if (!chain || chain->count == 0)
            broken("an accepted chain has no filter");
        for (size_t i = 0; i < chain->count; i++)
            if (!chain->links[i].filter)
                broken("an accepted link has no filter");
        vkfx_chain_free(chain);
    }
    free(text);
    return 0;
}

/* A decode's result against the library's contract. */
static int check_decoded(int ret, vkfx_pixels *px)
{
    if (ret < 0) {
        check_refusal(ret);
        if (px->data)
            broken("a refused image left pixels allocated");
        return 0;
    }
    if (!px->data || px->width == 0 || px->height == 0 || px->channels < 1 || px->channels > 4)
        broken("an accepted image has no pixels or an impossible layout");
    if ((uint64_t)px->width * px->height > vkfx_file_max_pixels())
        broken("an image beyond --max-pixels was decoded");
    /* Read every byte, so a short allocation shows under ASan. */
    const uint8_t *p = px->data;
    unsigned sum = 0;
    for (size_t i = 0; i < vkfx_pixels_bytes(px); i++)
        sum += p[i];
    sink = sum;
    vkfx_pixels_free(px);
    return 0;
}

int vkfx_fuzz_decode(const uint8_t *data, size_t size)
{
    vkfx_file_set_max_pixels(4u << 20);
    vkfx_pixels px = {0};
    vkfx_error_clear();
    return check_decoded(vkfx_file_load_memory(data, size, "fuzz input", &px), &px);
}

static int fuzz_codec(const vkfx_codec *codec, const uint8_t *data, size_t size)
{
    vkfx_file_set_max_pixels(4u << 20);
    vkfx_pixels px = {0};
    vkfx_decode_note note = {{0}};
    vkfx_error_clear();
    int ret = check_decoded(codec->decode(data, size, "fuzz input", &px, &note), &px);
    if (memchr(note.text, 0, sizeof(note.text)) == NULL)
        broken("a note without its terminating NUL");
    return ret;
}

int vkfx_fuzz_jpeg(const uint8_t *data, size_t size)
{
    return fuzz_codec(VKFX_FILE_JPEG, data, size);
}

int vkfx_fuzz_tiff(const uint8_t *data, size_t size)
{
    return fuzz_codec(VKFX_FILE_TIFF, data, size);
}

int vkfx_fuzz_webp(const uint8_t *data, size_t size)
{
    return fuzz_codec(VKFX_FILE_WEBP, data, size);
}

int vkfx_fuzz_exif(const uint8_t *data, size_t size)
{
    int o = vkfx_exif_orientation(data, size);
    if (o < 0 || o > 8)
        broken("an orientation outside 0..8");
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy)
        return 0;
    for (int v = 0; v <= 9; v++) {
        memcpy(copy, data, size);
        bool set = vkfx_exif_set_orientation(copy, size, v);
        if (set && (v < 1 || v > 8))
            broken("an orientation outside 1..8 was written");
        if (o != 0 && v >= 1 && v <= 8 && !set)
            broken("an orientation that was read could not be rewritten");
        if (set && vkfx_exif_orientation(copy, size) != v)
            broken("a rewritten orientation does not read back");
        size_t changed = 0;
        for (size_t i = 0; i < size; i++)
            changed += copy[i] != data[i];
        if (changed > (set ? 2u : 0u))
            broken("rewriting the orientation changed other bytes");
    }
    free(copy);
    /* The same bytes as a TIFF file whose directories become an EXIF block. */
    vkfx_blob b = {0};
    vkfx_error_clear();
    int ret = vkfx_exif_from_tiff(data, size, "fuzz input", &b);
    if (ret < 0)
        check_refusal(ret);
    if (b.size > VKFX_META_MAX_BYTES)
        broken("an EXIF block over the limit was made");
    if (o != 0 && b.data && vkfx_exif_orientation(b.data, b.size) != o)
        broken("the EXIF made from a TIFF says another orientation than the TIFF");
    free(b.data);
    return 0;
}

/* The profile as a file carries it, over a few RGB or gray pixels: its curves taken, applied
 * through lcms2 or dropped with a note; refused only for memory. */
static void icc_prepare(const uint8_t *data, size_t size, uint32_t channels)
{
    vkfx_pixels px = {0};
    vkfx_meta m = {0};
    if (vkfx_pixels_alloc(&px, 4, 2, channels, VKFX_SAMPLE_U8) < 0 ||
        vkfx_blob_set(&m.icc, data, size, "fuzz input", "ICC profile") < 0) {
        vkfx_pixels_free(&px);
        vkfx_meta_free(&m);
        return;
    }
    for (size_t i = 0; i < 8 * channels; i++)
        ((uint8_t *)px.data)[i] = (uint8_t)(i * 37);
    vkfx_tone *tone = NULL;
    const char *how = NULL;
    vkfx_error_clear();
    int ret = vkfx_icc_prepare(&m, &px, false, false, "fuzz input", &tone, &how);
    if (ret < 0 && ret != VKFX_E_NOMEM)
        broken("a profile refused the pixels");
    if (ret < 0)
        check_refusal(ret);
    if (ret == VKFX_OK && !m.icc.data && !m.note[0])
        broken("a profile dropped without a note");
    if (ret == VKFX_OK && !how)
        broken("no word for what was done with the profile");
    vkfx_tone_free(tone);
    vkfx_meta_free(&m);
    vkfx_pixels_free(&px);
}

int vkfx_fuzz_icc(const uint8_t *data, size_t size)
{
    vkfx_tone *t = NULL;
    icc_prepare(data, size, 3);
    icc_prepare(data, size, 1);
    vkfx_error_clear();
    int ret = vkfx_tone_from_icc(data, size, "fuzz input", &t);
    if (ret < 0) {
        check_refusal(ret);
        if (t)
            broken("a refused profile was returned");
        return 0;
    }
    if (!t)
        broken("an accepted profile has no curves");
    uint32_t channels = vkfx_tone_channels(t);
    if (channels != 1 && channels != 3)
        broken("a profile with neither 1 nor 3 curves");
    static float thresholds[255];
    for (uint32_t c = 0; c < 3; c++) {
        vkfx_tone_thresholds(t, c, 256, thresholds);
        for (uint32_t k = 0; k < 255; k++)
            if (isnan(thresholds[k]) || (k > 0 && thresholds[k] < thresholds[k - 1]))
                broken("an accepted curve that is not increasing");
        for (int i = 0; i <= 256; i++) {
            float v = vkfx_tone_decode(t, c, (float)i / 256);
            uint32_t code = vkfx_tone_encode(thresholds, 256, v);
            if (isnan(v) || code > 255)
                broken("a code out of range");
        }
    }
    vkfx_tone_free(t);
    return 0;
}
