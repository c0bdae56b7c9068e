/* OpenEXR through core/io/exr.c (OpenEXRCore's C API): linear, premultiplied
 * float colour in and out, and the metadata with a standard attribute. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "../exr.h"
#include "codec.h"

static bool sniff_exr(const unsigned char *data, size_t size)
{
    return vkfx_exr_is(data, size);
}

/* The sample is float whatever the file stores. */
static int probe_exr(const unsigned char *data, size_t size, const char *name,
                     vkfx_image_info *info)
{
    info->sample = VKFX_SAMPLE_F32;
    return vkfx_exr_probe_memory(data, size, name, &info->width, &info->height, &info->channels);
}

static int decode_exr(const unsigned char *data, size_t size, const char *name, vkfx_pixels *out,
                      vkfx_decode_note *note)
{
    (void)note;
    return vkfx_exr_load_memory(data, size, name, out);
}

/* Y, YA, RGB or RGBA, half or float: vkfx_exr_write converts. */
static void layout_exr(uint32_t in_channels, vkfx_sample in_sample, uint32_t *channels,
                       vkfx_sample *sample)
{
    (void)in_sample;
    *channels = in_channels;
    *sample = VKFX_SAMPLE_F32;
}

static bool fits_exr(uint32_t width, uint32_t height)
{
    return width <= INT32_MAX && height <= INT32_MAX;
}

/* vkfx_exr_write writes to the descriptor; nothing is buffered in f yet. */
static int encode_exr(FILE *f, const char *path, const vkfx_pixels *px, const vkfx_save_opts *opts)
{
    if (fflush(f) != 0)
        return vkfx_fail(VKFX_E_IO, "%s: %s", path, strerror(errno ? errno : EIO));
    return vkfx_exr_write(fileno(f), path, px,
                          &(vkfx_exr_opts){.float_samples = opts && opts->exr_float,
                                           .meta = opts ? opts->meta : NULL});
}

static int read_meta_exr(const unsigned char *data, size_t size, const char *name, vkfx_meta *meta)
{
    return vkfx_exr_read_meta(data, size, name, meta);
}

const vkfx_codec vkfx_codec_exr = {
    .name = "OpenEXR",
    .extensions = (const char *const[]){"exr", NULL},
    .sniff = sniff_exr,
    .probe = probe_exr,
    .probe_decodes = true,
    .decode = decode_exr,
    .layout = layout_exr,
    .fits = fits_exr,
    .encode = encode_exr,
    .options = "--exr-float",
    .read_meta = read_meta_exr,
    /* a matrix profile as its primaries and white (chromaticities) */
    .meta_kinds = VKFX_META_ICC | VKFX_META_TEXT | VKFX_META_RES,
    .meta_fits = vkfx_exr_meta_fits,
};
