#include "pixels.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"

size_t vkfx_sample_size(vkfx_sample s)
{
    switch (s) {
    case VKFX_SAMPLE_U8:
        return 1;
    case VKFX_SAMPLE_U16:
        return 2;
    case VKFX_SAMPLE_F32:
        return 4;
    }
    return 0;
}

size_t vkfx_pixels_bytes(const vkfx_pixels *px)
{
    return (size_t)px->width * px->height * px->channels * vkfx_sample_size(px->sample);
}

int vkfx_pixels_alloc(vkfx_pixels *px, uint32_t width, uint32_t height, uint32_t channels,
                      vkfx_sample sample)
{
    px->width = width;
    px->height = height;
    px->channels = channels;
    px->sample = sample;
    size_t n = vkfx_pixels_bytes(px);
    px->data = malloc(n ? n : 1);
    if (!px->data)
        return vkfx_fail(VKFX_E_NOMEM, "out of host memory for a %ux%u image", width, height);
    return VKFX_OK;
}

void vkfx_pixels_free(vkfx_pixels *px)
{
    if (!px)
        return;
    free(px->data);
    px->data = NULL;
}

vkfx_pixels vkfx_pixels_layout(const vkfx_pixels *px)
{
    vkfx_pixels shape = *px;
    shape.data = NULL;
    return shape;
}

bool vkfx_image_bytes(uint32_t w, uint32_t h, uint32_t channels, vkfx_sample s, size_t *bytes)
{
    size_t n = vkfx_sample_size(s);
    if (w && n > SIZE_MAX / w)
        return false;
    n *= w;
    if (channels && n > SIZE_MAX / channels)
        return false;
    n *= channels;
    if (h && n > SIZE_MAX / h)
        return false;
    *bytes = n * h;
    return true;
}

bool vkfx_host_is_little_endian(void)
{
    const uint16_t one = 1;
    unsigned char first;
    memcpy(&first, &one, 1);
    return first == 1;
}

/* Checked against every file's declared size before its pixels are
 * allocated, so a small file that claims a huge image costs nothing. */
static uint64_t max_pixels = VKFX_DEFAULT_MAX_PIXELS;

void vkfx_file_set_max_pixels(uint64_t n)
{
    max_pixels = n ? n : VKFX_DEFAULT_MAX_PIXELS;
}

uint64_t vkfx_file_max_pixels(void)
{
    return max_pixels;
}

int vkfx_fail_pixels(const char *name, uint64_t w, uint64_t h)
{
    return vkfx_fail(VKFX_E_LIMIT,
                     "%s: declares %llux%llu = %llu pixels, more than the limit of %llu "
                     "(--max-pixels)",
                     name, (unsigned long long)w, (unsigned long long)h,
                     (unsigned long long)(w * h), (unsigned long long)max_pixels);
}

int vkfx_check_pixels(const char *name, uint64_t w, uint64_t h)
{
    if (w && h > max_pixels / w)
        return vkfx_fail_pixels(name, w, h);
    return VKFX_OK;
}

int vkfx_check_samples(const char *name, uint64_t w, uint64_t h, uint64_t samples_per_pixel)
{
    uint64_t most = 4 * max_pixels;
    if (!w || !h || !samples_per_pixel || (h <= most / w && samples_per_pixel <= most / (w * h)))
        return VKFX_OK;
    return vkfx_fail(VKFX_E_LIMIT,
                     "%s: declares %llux%llu pixels of %llu samples each, more than the %llu "
                     "samples --max-pixels %llu allows (4 a pixel)",
                     name, (unsigned long long)w, (unsigned long long)h,
                     (unsigned long long)samples_per_pixel, (unsigned long long)most,
                     (unsigned long long)max_pixels);
}

int vkfx_check_stored(const char *name, const char *format, uint64_t w, uint64_t h, uint64_t units,
                      uint64_t per_byte, size_t size)
{
    if (units / per_byte <= (uint64_t)size)
        return VKFX_OK;
    return vkfx_fail(VKFX_E_FORMAT,
                     "%s: corrupt or truncated %s (%llux%llu pixels cannot be stored in the "
                     "%zu bytes of the file)",
                     name, format, (unsigned long long)w, (unsigned long long)h, size);
}

int vkfx_check_bomb(const char *name, const char *format, uint64_t w, uint64_t h,
                    uint64_t decoded_bytes, size_t size)
{
    if (decoded_bytes <= VKFX_BOMB_FLOOR || decoded_bytes / VKFX_BOMB_RATIO <= (uint64_t)size)
        return VKFX_OK;
    return vkfx_fail(VKFX_E_LIMIT,
                     "%s: a %llux%llu %s in %zu bytes would decode to %llu MiB, more than %u "
                     "times the file; refused as a decompression bomb",
                     name, (unsigned long long)w, (unsigned long long)h, format, size,
                     (unsigned long long)(decoded_bytes >> 20), VKFX_BOMB_RATIO);
}

static int encode_threads;

void vkfx_file_set_encode_threads(int n)
{
    encode_threads = n > 0 ? n : 0;
}

int vkfx_file_encode_threads(void)
{
    if (encode_threads)
        return encode_threads;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 256 ? 256 : (int)n;
}
