/* The table of codecs: adding a format is its file and one line here. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "codec.h"

extern const vkfx_codec vkfx_codec_png, vkfx_codec_jpeg, vkfx_codec_tiff, vkfx_codec_webp,
    vkfx_codec_exr, vkfx_codec_gif, vkfx_codec_bmp, vkfx_codec_psd, vkfx_codec_hdr, vkfx_codec_tga;

/* Signatures are tried in this order; TGA, which has none (stb_image's
 * test is a plausibility check of its header), comes last. */
const vkfx_codec *const vkfx_codecs[] = {
    &vkfx_codec_png,
    &vkfx_codec_jpeg,
    &vkfx_codec_tiff,
    &vkfx_codec_webp,
    &vkfx_codec_exr,
    &vkfx_codec_gif,
    &vkfx_codec_bmp,
    &vkfx_codec_psd,
    &vkfx_codec_hdr,
    &vkfx_codec_tga,
    NULL,
};

int vkfx_png_level(const vkfx_save_opts *opts)
{
    return opts && opts->png_level_set ? opts->png_level : VKFX_PNG_LEVEL_DEFAULT;
}

int vkfx_jpeg_quality(const vkfx_save_opts *opts)
{
    return opts && opts->jpeg_quality ? opts->jpeg_quality : VKFX_JPEG_QUALITY_DEFAULT;
}

const vkfx_codec *vkfx_codec_sniff(const unsigned char *data, size_t size)
{
    for (const vkfx_codec *const *c = vkfx_codecs; *c; c++)
        if ((*c)->sniff(data, size))
            return *c;
    return NULL;
}

const vkfx_codec *vkfx_codec_for_extension(const char *ext)
{
    for (const vkfx_codec *const *c = vkfx_codecs; *c; c++)
        for (const char *const *e = (*c)->extensions; *e; e++)
            if (strcasecmp(ext, *e) == 0)
                return *c;
    return NULL;
}

static void join(bool writers_only, bool extensions, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = 0;
    for (const vkfx_codec *const *c = vkfx_codecs; *c; c++) {
        if (writers_only && !(*c)->encode)
            continue;
        int n = snprintf(buf + len, size - len, "%s%s", len ? ", " : "",
                         extensions ? (*c)->extensions[0] : (*c)->name);
        if (n < 0 || (size_t)n >= size - len)
            return;
        len += (size_t)n;
    }
}

void vkfx_codec_names(bool writers_only, char *buf, size_t size)
{
    join(writers_only, false, buf, size);
}

void vkfx_codec_extensions(bool writers_only, char *buf, size_t size)
{
    join(writers_only, true, buf, size);
}
