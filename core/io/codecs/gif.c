/* GIF through giflib: the first frame drawn on its logical screen as the GIF89a
 * specification draws it. giflib is the reference decoder most tools share and is fuzzed
 * upstream; it stops at the frame's last pixel instead of decoding whatever codes follow,
 * and refuses data that ends early, so no check of our own has to bound its work. */
#include <gif_lib.h>
#include <stdlib.h>
#include <string.h>

#include "codec.h"
#include "error.h"

struct gif_src {
    const unsigned char *data;
    size_t size, pos;
};

static int gif_read(GifFileType *gif, GifByteType *buf, int n)
{
    struct gif_src *s = gif->UserData;
    size_t left = s->size - s->pos, k = n < 0 ? 0 : (size_t)n;
    if (k > left)
        k = left;
    memcpy(buf, s->data + s->pos, k);
    s->pos += k;
    return (int)k;
}

static bool sniff_gif(const unsigned char *data, size_t size)
{
    return size >= 6 && (!memcmp(data, "GIF87a", 6) || !memcmp(data, "GIF89a", 6));
}

static int gif_error(const char *name, int code)
{
    const char *why = GifErrorString(code);
    if (code == D_GIF_ERR_NOT_ENOUGH_MEM)
        return vkfx_fail(VKFX_E_NOMEM, "%s: out of host memory decoding the GIF", name);
    if (code == D_GIF_ERR_READ_FAILED || code == D_GIF_ERR_EOF_TOO_SOON)
        return vkfx_fail(VKFX_E_FORMAT,
                         "%s: truncated GIF (the data ends before its first frame's pixels do)",
                         name);
    return vkfx_fail(VKFX_E_FORMAT, "%s: corrupt GIF (giflib: %s)", name,
                     why ? why : "unknown error");
}

/* What the first frame needs from the records before it. */
struct gif_frame {
    int transparent; /* the transparent index of its graphic control extension, or -1 */
    bool more;       /* a second image follows the first */
};

/* Reads records up to the first image's descriptor (read into gif->Image); false at the
 * trailer before any image. */
static int gif_to_image(GifFileType *gif, const char *name, struct gif_frame *frame, bool *found)
{
    GifRecordType type;
    *found = false;
    do {
        if (DGifGetRecordType(gif, &type) == GIF_ERROR)
            return gif_error(name, gif->Error);
        if (type == EXTENSION_RECORD_TYPE) {
            int code;
            GifByteType *ext;
            if (DGifGetExtension(gif, &code, &ext) == GIF_ERROR)
                return gif_error(name, gif->Error);
            if (code == GRAPHICS_EXT_FUNC_CODE && ext && ext[0] >= 4 && frame) {
                GraphicsControlBlock gcb;
                DGifExtensionToGCB(ext[0], ext + 1, &gcb);
                frame->transparent = gcb.TransparentColor;
            }
            while (ext)
                if (DGifGetExtensionNext(gif, &ext) == GIF_ERROR)
                    return gif_error(name, gif->Error);
        } else if (type == IMAGE_DESC_RECORD_TYPE) {
            if (DGifGetImageDesc(gif) == GIF_ERROR) {
                /* The descriptor ends with the LZW minimum code size, which giflib refuses
                 * above 8 bits as a read failure: say so rather than "truncated". */
                const struct gif_src *s = gif->UserData;
                if (gif->Error == D_GIF_ERR_READ_FAILED && s->pos > 0 && s->pos < s->size &&
                    s->data[s->pos - 1] > 8)
                    return vkfx_fail(VKFX_E_FORMAT,
                                     "%s: GIF whose LZW minimum code size is %u, more than the 8 "
                                     "bits of a GIF pixel, is not supported",
                                     name, s->data[s->pos - 1]);
                return gif_error(name, gif->Error);
            }
            *found = true;
            return VKFX_OK;
        }
    } while (type != TERMINATE_RECORD_TYPE);
    return VKFX_OK;
}

/* The canvas: the logical screen, grown where the first frame reaches past it (as Pillow
 * and browsers show such a file). */
static void gif_canvas(const GifFileType *gif, uint64_t *w, uint64_t *h)
{
    const GifImageDesc *d = &gif->Image;
    uint64_t r = (uint64_t)d->Left + (uint64_t)d->Width, b = (uint64_t)d->Top + d->Height;
    *w = r > (uint64_t)gif->SWidth ? r : (uint64_t)gif->SWidth;
    *h = b > (uint64_t)gif->SHeight ? b : (uint64_t)gif->SHeight;
}

static void gif_close(GifFileType *gif)
{
    int err;
    if (gif)
        DGifCloseFile(gif, &err);
}

/* giflib open on data, its first image's descriptor read and the canvas's size in *w, *h;
 * NULL with *ret set when the file is corrupt or holds no image. */
static GifFileType *gif_begin(struct gif_src *src, const char *name, struct gif_frame *frame,
                              uint64_t *w, uint64_t *h, int *ret)
{
    int err = 0;
    bool found;
    GifFileType *gif = DGifOpen(src, gif_read, &err);
    if (!gif) {
        *ret = gif_error(name, err);
        return NULL;
    }
    if ((*ret = gif_to_image(gif, name, frame, &found)) == VKFX_OK && !found)
        *ret = vkfx_fail(VKFX_E_FORMAT, "%s: GIF without an image (no frame before its end)", name);
    if (*ret == VKFX_OK) {
        gif_canvas(gif, w, h);
        if (gif->Image.Width <= 0 || gif->Image.Height <= 0)
            *ret = vkfx_fail(VKFX_E_FORMAT, "%s: image has no pixels", name);
    }
    if (*ret < 0) {
        gif_close(gif);
        return NULL;
    }
    return gif;
}

static int probe_gif(const unsigned char *data, size_t size, const char *name,
                     vkfx_image_info *info)
{
    struct gif_src src = {data, size, 0};
    struct gif_frame frame = {.transparent = -1};
    uint64_t w, h;
    int ret;
    GifFileType *gif = gif_begin(&src, name, &frame, &w, &h, &ret);
    if (!gif)
        return ret;
    info->width = (uint32_t)w;
    info->height = (uint32_t)h;
    info->channels = frame.transparent >= 0 ? 4 : 3;
    info->sample = VKFX_SAMPLE_U8;
    gif_close(gif);
    return ret;
}

/* The colour of an index: a palette shorter than the index reads black there, and a file
 * without any palette is gray, the index its level (as Pillow reads both). */
static void gif_colour(const ColorMapObject *map, int index, unsigned char rgb[3])
{
    if (!map) {
        rgb[0] = rgb[1] = rgb[2] = (unsigned char)index;
    } else if (index < map->ColorCount) {
        rgb[0] = map->Colors[index].Red;
        rgb[1] = map->Colors[index].Green;
        rgb[2] = map->Colors[index].Blue;
    } else {
        rgb[0] = rgb[1] = rgb[2] = 0;
    }
}

/* Whether a second image follows the first frame's data. */
static bool gif_has_more(GifFileType *gif, const char *name)
{
    bool found = false;
    return gif_to_image(gif, name, NULL, &found) == VKFX_OK && found;
}

static int decode_gif(const unsigned char *data, size_t size, const char *name, vkfx_pixels *out,
                      vkfx_decode_note *note)
{
    struct gif_src src = {data, size, 0};
    struct gif_frame frame = {.transparent = -1};
    vkfx_pixels px = {0};
    GifPixelType *line = NULL;
    uint64_t w, h;
    int ret;
    GifFileType *gif = gif_begin(&src, name, &frame, &w, &h, &ret);
    if (!gif)
        return ret;
    const GifImageDesc *d = &gif->Image;
    if ((ret = vkfx_check_pixels(name, w, h)) < 0)
        goto fail;
    /* One 12-bit LZW code stands for at most 4096 pixels; the screen around the frame costs
     * nothing, but is bounded the same way. */
    if ((ret = vkfx_check_stored(name, "GIF", (uint64_t)d->Width, (uint64_t)d->Height,
                                 (uint64_t)d->Width * (uint64_t)d->Height, 4096, size)) < 0 ||
        (ret = vkfx_check_bomb(name, "GIF", w, h, w * h * 4, size)) < 0)
        goto fail;
    const ColorMapObject *map = d->ColorMap ? d->ColorMap : gif->SColorMap;
    const uint32_t ch = frame.transparent >= 0 ? 4 : 3;
    if ((ret = vkfx_pixels_alloc(&px, (uint32_t)w, (uint32_t)h, ch, VKFX_SAMPLE_U8)) < 0)
        goto fail;
    px.straight = true;
    line = malloc((size_t)d->Width);
    if (!line) {
        ret = vkfx_fail(VKFX_E_NOMEM, "%s: out of host memory decoding the GIF", name);
        goto fail;
    }

    /* Around the frame: transparent where the frame has a transparent index (its colour,
     * as Pillow fills it), otherwise the screen's background colour. */
    unsigned char fill[4] = {0, 0, 0, 0};
    if (frame.transparent >= 0)
        gif_colour(map, frame.transparent, fill);
    else
        gif_colour(gif->SColorMap, gif->SColorMap ? gif->SBackGroundColor : 0, fill);
    unsigned char *p = px.data;
    for (uint64_t i = 0; i < w * h; i++)
        memcpy(p + i * ch, fill, ch);

    /* Interlaced frames store rows in four passes: every 8th from 0, every 8th from 4,
     * every 4th from 2, every 2nd from 1. */
    static const int start[4] = {0, 4, 2, 1}, step[4] = {8, 8, 4, 2};
    int passes = d->Interlace ? 4 : 1;
    for (int pass = 0; pass < passes; pass++) {
        for (int y = d->Interlace ? start[pass] : 0; y < d->Height;
             y += d->Interlace ? step[pass] : 1) {
            if (DGifGetLine(gif, line, d->Width) == GIF_ERROR) {
                ret = gif_error(name, gif->Error);
                goto fail;
            }
            unsigned char *row = p + (((size_t)d->Top + (size_t)y) * w + (size_t)d->Left) * ch;
            for (int x = 0; x < d->Width; x++) {
                gif_colour(map, line[x], row + (size_t)x * ch);
                if (ch == 4)
                    row[(size_t)x * ch + 3] = line[x] == frame.transparent ? 0 : 255;
            }
        }
    }
    if (gif_has_more(gif, name))
        snprintf(note->text, sizeof(note->text),
                 "%s: an animated GIF; only its first frame is read", name);
    *out = px;
    px.data = NULL;
    ret = VKFX_OK;
fail:
    free(line);
    vkfx_pixels_free(&px);
    gif_close(gif);
    return ret;
}

const vkfx_codec vkfx_codec_gif = {
    .name = "GIF",
    .extensions = (const char *const[]){"gif", NULL},
    .sniff = sniff_gif,
    .probe = probe_gif,
    .decode = decode_gif,
};
