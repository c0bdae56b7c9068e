/* WebP through libwebp: lossy and lossless, with or without alpha, in and
 * out; an animation gives its first frame (composed by libwebpdemux) and a
 * note. Output is lossy at -q, or lossless with --lossless. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <webp/decode.h>
#include <webp/demux.h>
#include <webp/encode.h>
#include <webp/mux.h>

#include "error.h"
#include "codec.h"

static bool sniff_webp(const unsigned char *data, size_t size)
{
    if (size >= 12)
        return !memcmp(data, "RIFF", 4) && !memcmp(data + 8, "WEBP", 4);
    /* A file cut inside its signature is a truncated WebP only if what is
     * there matches. */
    return size >= 4 && !memcmp(data, "RIFF", 4) &&
           (size <= 8 || !memcmp(data + 8, "WEBP", size - 8));
}

static int webp_features(const unsigned char *data, size_t size, const char *name,
                         WebPBitstreamFeatures *f)
{
    VP8StatusCode st = WebPGetFeatures(data, size, f);
    if (st == VP8_STATUS_NOT_ENOUGH_DATA)
        return vkfx_fail(VKFX_E_FORMAT, "%s: truncated WebP", name);
    if (st != VP8_STATUS_OK || f->width < 1 || f->height < 1)
        return vkfx_fail(VKFX_E_FORMAT, "%s: corrupt WebP (libwebp status %d)", name, (int)st);
    return VKFX_OK;
}

static int probe_webp(const unsigned char *data, size_t size, const char *name,
                      vkfx_image_info *info)
{
    WebPBitstreamFeatures f;
    int ret = webp_features(data, size, name, &f);
    if (ret < 0)
        return ret;
    info->width = (uint32_t)f.width;
    info->height = (uint32_t)f.height;
    info->channels = f.has_alpha ? 4 : 3;
    info->sample = VKFX_SAMPLE_U8;
    return VKFX_OK;
}

/* The first frame of an animation, composed on its canvas, as RGBA. */
static int decode_animation(const unsigned char *data, size_t size, const char *name,
                            vkfx_pixels *px, vkfx_decode_note *note)
{
    int ret = VKFX_OK;
    WebPAnimDecoderOptions o;
    WebPAnimDecoder *dec = NULL;
    WebPAnimInfo info;
    uint8_t *frame = NULL;
    int ts = 0;
    if (!WebPAnimDecoderOptionsInit(&o))
        return vkfx_fail(VKFX_E_FORMAT, "%s: libwebp's animation decoder is too old", name);
    o.color_mode = MODE_RGBA;
    o.use_threads = 0;
    dec = WebPAnimDecoderNew(&(WebPData){data, size}, &o);
    if (!dec || !WebPAnimDecoderGetInfo(dec, &info)) {
        ret = vkfx_fail(VKFX_E_FORMAT, "%s: corrupt animated WebP", name);
        goto fail;
    }
    if ((ret = vkfx_check_pixels(name, info.canvas_width, info.canvas_height)) < 0)
        goto fail;
    if (!WebPAnimDecoderGetNext(dec, &frame, &ts)) {
        ret = vkfx_fail(VKFX_E_FORMAT, "%s: corrupt or truncated animated WebP", name);
        goto fail;
    }
    if ((ret = vkfx_pixels_alloc(px, info.canvas_width, info.canvas_height, 4, VKFX_SAMPLE_U8)) < 0)
        goto fail;
    memcpy(px->data, frame, vkfx_pixels_bytes(px));
    if (info.frame_count > 1)
        snprintf(note->text, sizeof(note->text),
                 "%s: an animated WebP of %u frames; only the first is read", name,
                 info.frame_count);
fail:
    WebPAnimDecoderDelete(dec);
    return ret;
}

static int decode_webp(const unsigned char *data, size_t size, const char *name, vkfx_pixels *out,
                       vkfx_decode_note *note)
{
    vkfx_pixels px = {.linear = false, .straight = true};
    WebPBitstreamFeatures f;
    int ret = webp_features(data, size, name, &f);
    if (ret < 0)
        return ret;
    if ((ret = vkfx_check_pixels(name, (uint64_t)f.width, (uint64_t)f.height)) < 0)
        return ret;
    /* Lossless WebP codes a pixel in no bits when every prefix code has one
     * symbol, lossy WebP a macroblock in a fraction of one, and an
     * animation's canvas (f's size; libwebp allocates two, RGBA, before the
     * first frame) costs nothing whatever its frames: none has a smallest
     * size to check a header against. */
    const char *kind = f.has_animation ? "animated WebP" : f.format == 2 ? "lossless WebP" : "WebP";
    uint64_t decoded =
        (uint64_t)f.width * (uint64_t)f.height * (f.has_animation || f.has_alpha ? 4 : 3);
    if ((ret = vkfx_check_bomb(name, kind, (uint64_t)f.width, (uint64_t)f.height, decoded, size)) <
        0)
        return ret;
    if (f.has_animation) {
        ret = decode_animation(data, size, name, &px, note);
    } else {
        uint32_t channels = f.has_alpha ? 4 : 3;
        if ((ret = vkfx_pixels_alloc(&px, (uint32_t)f.width, (uint32_t)f.height, channels,
                                     VKFX_SAMPLE_U8)) < 0)
            return ret;
        size_t bytes = vkfx_pixels_bytes(&px);
        int stride = f.width * (int)channels;
        uint8_t *ok = f.has_alpha ? WebPDecodeRGBAInto(data, size, px.data, bytes, stride)
                                  : WebPDecodeRGBInto(data, size, px.data, bytes, stride);
        if (!ok)
            ret = vkfx_fail(VKFX_E_FORMAT, "%s: corrupt or truncated WebP", name);
    }
    if (ret < 0) {
        vkfx_pixels_free(&px);
        return ret;
    }
    *out = px;
    return VKFX_OK;
}

/* 8-bit RGB, or RGBA where there is alpha; gray is stored as RGB. */
static void layout_webp(uint32_t in_channels, vkfx_sample in_sample, uint32_t *channels,
                        vkfx_sample *sample)
{
    (void)in_sample;
    *channels = in_channels == 2 || in_channels == 4 ? 4 : 3;
    *sample = VKFX_SAMPLE_U8;
}

static bool fits_webp(uint32_t width, uint32_t height)
{
    return width <= WEBP_MAX_DIMENSION && height <= WEBP_MAX_DIMENSION;
}

static int encode_webp(FILE *f, const char *path, const vkfx_pixels *px, const vkfx_save_opts *opts)
{
    int ret = VKFX_OK;
    WebPConfig config;
    WebPPicture pic;
    WebPMemoryWriter mem;
    bool pic_ready = false;
    WebPMemoryWriterInit(&mem);
    if (!WebPConfigInit(&config) || !WebPPictureInit(&pic)) {
        ret = vkfx_fail(VKFX_E_FORMAT, "%s: libwebp's encoder does not match its header", path);
        goto fail;
    }
    config.quality = (float)vkfx_jpeg_quality(opts);
    if (opts && opts->webp_lossless) {
        config.lossless = 1;
        /* Lossless means every sample, also the colour under alpha 0. */
        config.exact = 1;
    }
    pic.use_argb = config.lossless;
    pic.width = (int)px->width;
    pic.height = (int)px->height;
    pic.writer = WebPMemoryWrite;
    pic.custom_ptr = &mem;
    int stride = (int)(px->width * px->channels);
    int imported = px->channels == 4 ? WebPPictureImportRGBA(&pic, px->data, stride)
                                     : WebPPictureImportRGB(&pic, px->data, stride);
    pic_ready = true;
    if (!imported) {
        ret = vkfx_fail(VKFX_E_NOMEM, "%s: out of host memory encoding the WebP", path);
        goto fail;
    }
    if (!WebPEncode(&config, &pic)) {
        ret =
            vkfx_fail(pic.error_code == VP8_ENC_ERROR_OUT_OF_MEMORY ? VKFX_E_NOMEM : VKFX_E_FORMAT,
                      "%s: WebP encoding failed (libwebp error %d)", path, (int)pic.error_code);
        goto fail;
    }
    if (fwrite(mem.mem, 1, mem.size, f) != mem.size)
        ret = vkfx_fail(VKFX_E_IO, "%s: %s", path, strerror(errno ? errno : EIO));
fail:
    if (pic_ready)
        WebPPictureFree(&pic);
    WebPMemoryWriterClear(&mem);
    return ret;
}

/* The ICCP, EXIF and XMP chunks, through libwebpdemux (which checks every
 * chunk size against the file). */
static int read_meta_webp(const unsigned char *data, size_t size, const char *name, vkfx_meta *m)
{
    WebPDemuxState state;
    WebPDemuxer *dmx = WebPDemuxPartial(&(WebPData){data, size}, &state);
    if (!dmx)
        return VKFX_OK; /* the decoder says what is wrong */
    static const char *const fourcc[3] = {"ICCP", "EXIF", "XMP "};
    vkfx_blob *blob[3] = {&m->icc, &m->exif, &m->xmp};
    static const char *const what[3] = {"ICC profile", "EXIF", "XMP"};
    int ret = VKFX_OK;
    for (int i = 0; i < 3 && ret == VKFX_OK; i++) {
        WebPChunkIterator it;
        if (!WebPDemuxGetChunk(dmx, fourcc[i], 1, &it))
            continue;
        const uint8_t *d = it.chunk.bytes;
        size_t n = it.chunk.size;
        if (i == 1 && n >= 6 && !memcmp(d, "Exif\0\0", 6)) {
            d += 6;
            n -= 6;
        }
        ret = vkfx_blob_set(blob[i], d, n, name, what[i]);
        WebPDemuxReleaseChunkIterator(&it);
    }
    WebPDemuxDelete(dmx);
    return ret;
}

/* The encoded picture with the chunks added, through libwebpmux. */
static int put_meta_webp(FILE *f, const char *path, const unsigned char *data, size_t size,
                         const vkfx_meta *m)
{
    int ret = VKFX_OK;
    WebPData out = {NULL, 0};
    WebPMux *mux = WebPMuxCreate(&(WebPData){data, size}, 0);
    if (!mux)
        return vkfx_fail(VKFX_E_NOMEM, "%s: out of host memory adding metadata to the WebP", path);
    static const char *const fourcc[3] = {"ICCP", "EXIF", "XMP "};
    const vkfx_blob *blob[3] = {&m->icc, &m->exif, &m->xmp};
    for (int i = 0; i < 3 && ret == VKFX_OK; i++)
        if (blob[i]->data &&
            WebPMuxSetChunk(mux, fourcc[i], &(WebPData){blob[i]->data, blob[i]->size}, 1) !=
                WEBP_MUX_OK)
            ret = vkfx_fail(VKFX_E_FORMAT, "%s: libwebpmux refused the %s chunk", path, fourcc[i]);
    if (ret == VKFX_OK && WebPMuxAssemble(mux, &out) != WEBP_MUX_OK)
        ret = vkfx_fail(VKFX_E_FORMAT, "%s: libwebpmux could not assemble the WebP", path);
    if (ret == VKFX_OK && fwrite(out.bytes, 1, out.size, f) != out.size)
        ret = vkfx_fail(VKFX_E_IO, "%s: %s", path, strerror(errno ? errno : EIO));
    WebPDataClear(&out);
    WebPMuxDelete(mux);
    return ret;
}

const vkfx_codec vkfx_codec_webp = {
    .name = "WebP",
    .extensions = (const char *const[]){"webp", NULL},
    .sniff = sniff_webp,
    .probe = probe_webp,
    .decode = decode_webp,
    .layout = layout_webp,
    .fits = fits_webp,
    .encode = encode_webp,
    .options = "-q, --lossless",
    .read_meta = read_meta_webp,
    .meta_kinds = VKFX_META_ICC | VKFX_META_EXIF | VKFX_META_XMP,
    .put_meta = put_meta_webp,
};
