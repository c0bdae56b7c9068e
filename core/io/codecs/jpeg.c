/* JPEG through libjpeg-turbo's libjpeg API, the decoder Pillow, OpenCV,
 * libvips and browsers share, with its default output: the accurate
 * integer IDCT and fancy upsampling. Gray files decode to gray, YCbCr and
 * RGB to RGB, CMYK and YCCK to sRGB through their CMYK profile where they
 * embed one lcms2 can use, else to RGB as below. A file libjpeg decodes with a
 * warning (bytes between markers, data cut short, corrupt entropy data) gives
 * what libjpeg-turbo and Pillow give, gray where data is missing, and a note;
 * only libjpeg's errors refuse. A bad progression stays an error: the check on
 * the file's size against its coefficients assumes a DC scan comes first. */
#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>

#include "error.h"
#include "icc.h"
#include "codec.h"
#include "jpeg_meta.h"
#include "jpeg_settings.h"

struct jpeg_fail {
    struct jpeg_error_mgr mgr;
    jmp_buf jump;
    char msg[JMSG_LENGTH_MAX];
    bool strict;                   /* a warning is an error */
    char warning[JMSG_LENGTH_MAX]; /* the first warning; "" none */
};

static void jpeg_error_exit(j_common_ptr cinfo)
{
    struct jpeg_fail *f = (struct jpeg_fail *)cinfo->err;
    cinfo->err->format_message(cinfo, f->msg);
    longjmp(f->jump, 1);
}

/* Level -1 is a warning: libjpeg goes on, filling what is missing. Trace
 * messages (level >= 0) are dropped: core never prints. */
static void jpeg_emit_message(j_common_ptr cinfo, int level)
{
    struct jpeg_fail *f = (struct jpeg_fail *)cinfo->err;
    if (level >= 0)
        return;
    if (f->strict || cinfo->err->msg_code == JWRN_BOGUS_PROGRESSION)
        jpeg_error_exit(cinfo);
    if (!f->warning[0])
        cinfo->err->format_message(cinfo, f->warning);
}

static void jpeg_fail_init(struct jpeg_fail *f)
{
    jpeg_std_error(&f->mgr);
    f->mgr.error_exit = jpeg_error_exit;
    f->mgr.emit_message = jpeg_emit_message;
    f->msg[0] = 0;
    f->warning[0] = 0;
}

static bool sniff_jpeg(const unsigned char *data, size_t size)
{
    return size >= 3 && data[0] == 0xFF && data[1] == 0xD8 && data[2] == 0xFF;
}

/* Channels the decoder gives for the file's colour space. */
static uint32_t jpeg_channels(const struct jpeg_decompress_struct *d)
{
    return d->jpeg_color_space == JCS_GRAYSCALE ? 1 : 3;
}

/* One struct for all that must survive a longjmp out of libjpeg. */
struct jpeg_read {
    struct jpeg_decompress_struct d;
    struct jpeg_fail fail;
    const char *name;
    unsigned denom;     /* decode at 1/denom of the size (0 or 1: the full size) */
    unsigned char *row; /* one CMYK row */
    vkfx_cmyk *profile; /* the file's CMYK profile, to sRGB; NULL: none */
    vkfx_pixels px;
    bool created;
};

/* Returns 0, or -1 after a libjpeg error (message in r->fail.msg). */
static int jpeg_decode_body(struct jpeg_read *r, const unsigned char *data, size_t size,
                            bool header_only, vkfx_image_info *info, int *limit)
{
    struct jpeg_decompress_struct *d = &r->d;
    if (setjmp(r->fail.jump))
        return -1;
    jpeg_create_decompress(d);
    r->created = true;
    jpeg_mem_src(d, data, (unsigned long)size);
    /* TRUE: a file of tables only, or with no scan, is an error. */
    jpeg_read_header(d, TRUE);
    info->width = d->image_width;
    info->height = d->image_height;
    info->channels = jpeg_channels(d);
    info->sample = VKFX_SAMPLE_U8;
    if (header_only)
        return 0;
    if ((*limit = vkfx_check_pixels(r->name, d->image_width, d->image_height)) < 0)
        return 0;
    /* Huffman codes are at least a bit long. A sequential scan spends two
     * on each 8x8 block (a DC code and an end-of-block); a progressive file
     * (libjpeg warns, which fails here, unless DC comes first) one on each
     * block of its DC scan. Arithmetic coding can spend a fraction of a bit
     * on a block, so those files are held to vkfx_check_bomb's ratio, on the
     * full-size image libjpeg allocates its coefficients for. */
    uint64_t blocks = ((uint64_t)d->image_width + 7) / 8 * (((uint64_t)d->image_height + 7) / 8);
    int ret =
        d->arith_code
            ? vkfx_check_bomb(r->name, "arithmetic-coded JPEG", d->image_width, d->image_height,
                              (uint64_t)d->image_width * d->image_height * jpeg_channels(d), size)
            : vkfx_check_stored(r->name, "JPEG", d->image_width, d->image_height, blocks,
                                d->progressive_mode ? 8 : 4, size);
    if (ret < 0) {
        *limit = ret;
        return 0;
    }
    bool cmyk = d->jpeg_color_space == JCS_CMYK || d->jpeg_color_space == JCS_YCCK;
    if (cmyk) {
        /* the profile as the metadata reader assembles it, which decides the same */
        vkfx_meta meta = {0};
        if (vkfx_jpeg_read_meta(data, size, r->name, &meta) == VKFX_OK && meta.cmyk)
            r->profile = vkfx_cmyk_open(meta.icc.data, meta.icc.size, d->saw_Adobe_marker);
        vkfx_meta_free(&meta);
    }
    d->out_color_space = d->jpeg_color_space == JCS_GRAYSCALE ? JCS_GRAYSCALE
                         : cmyk                               ? JCS_CMYK
                                                              : JCS_RGB;
    d->dct_method = JDCT_ISLOW;
    d->do_fancy_upsampling = TRUE;
    if (r->denom > 1) {
        d->scale_num = 1;
        d->scale_denom = r->denom;
    }
    jpeg_start_decompress(d);
    uint32_t channels = jpeg_channels(d);
    size_t bytes;
    if (!vkfx_image_bytes(d->output_width, d->output_height, channels, VKFX_SAMPLE_U8, &bytes)) {
        snprintf(r->fail.msg, sizeof(r->fail.msg), "image too large");
        return -1;
    }
    r->px.data = malloc(bytes);
    r->row = cmyk ? malloc((size_t)d->output_width * 4) : NULL;
    if (!r->px.data || (cmyk && !r->row)) {
        snprintf(r->fail.msg, sizeof(r->fail.msg), "out of memory");
        return -1;
    }
    r->px.width = d->output_width;
    r->px.height = d->output_height;
    r->px.channels = channels;
    r->px.sample = VKFX_SAMPLE_U8;
    size_t stride = (size_t)d->output_width * channels;
    while (d->output_scanline < d->output_height) {
        unsigned char *dst = (unsigned char *)r->px.data + stride * d->output_scanline;
        JSAMPROW row = cmyk ? r->row : dst;
        jpeg_read_scanlines(d, &row, 1);
        if (r->profile)
            vkfx_cmyk_to_srgb(r->profile, r->row, dst, d->output_width);
        else if (cmyk)
            /* YCCK too, which libjpeg turns into CMYK */
            vkfx_cmyk_plain(r->row, dst, d->output_width, d->saw_Adobe_marker);
    }
    /* Reads to the end-of-image marker: a file cut after its last scan is
     * an error too. */
    jpeg_finish_decompress(d);
    return 0;
}

static int jpeg_read(const unsigned char *data, size_t size, const char *name, bool header_only,
                     vkfx_image_info *info, vkfx_pixels *out, unsigned denom,
                     vkfx_decode_note *note)
{
    int ret, limit = VKFX_OK;
    struct jpeg_read r = {.name = name, .denom = denom};
    r.d.err = &r.fail.mgr;
    jpeg_fail_init(&r.fail);
    if (size > (unsigned long)-1) {
        ret = vkfx_fail(VKFX_E_LIMIT, "%s: too large a JPEG file", name);
        goto fail;
    }
    if (jpeg_decode_body(&r, data, size, header_only, info, &limit) < 0) {
        if (!strcmp(r.fail.msg, "out of memory"))
            ret = vkfx_fail(VKFX_E_NOMEM, "%s: out of host memory decoding the JPEG", name);
        else
            ret = vkfx_fail(VKFX_E_FORMAT, "%s: corrupt or truncated JPEG (libjpeg: %s)", name,
                            r.fail.msg);
        goto fail;
    }
    if (limit < 0) {
        ret = limit;
        goto fail;
    }
    if (note && r.fail.warning[0])
        snprintf(note->text, sizeof(note->text), "%s: damaged JPEG, decoded as libjpeg does (%s)",
                 name, r.fail.warning);
    if (out) {
        r.px.linear = false;
        r.px.straight = true;
        *out = r.px;
        r.px.data = NULL;
    }
    ret = VKFX_OK;
fail:
    if (r.created)
        jpeg_destroy_decompress(&r.d);
    free(r.row);
    vkfx_cmyk_close(r.profile);
    free(r.px.data);
    return ret;
}

static int probe_jpeg(const unsigned char *data, size_t size, const char *name,
                      vkfx_image_info *info)
{
    return jpeg_read(data, size, name, true, info, NULL, 1, NULL);
}

static int decode_jpeg(const unsigned char *data, size_t size, const char *name, vkfx_pixels *out,
                       vkfx_decode_note *note)
{
    vkfx_image_info info;
    return jpeg_read(data, size, name, false, &info, out, 1, note);
}

int vkfx_jpeg_decode_scaled(const unsigned char *data, size_t size, const char *name,
                            unsigned denom, vkfx_pixels *out, vkfx_decode_note *note)
{
    vkfx_image_info info;
    return jpeg_read(data, size, name, false, &info, out, denom, note);
}

/* Only the header is read: the scans may still hold anything. */
static int jpeg_header_body(struct jpeg_read *r, const unsigned char *data, size_t size)
{
    if (setjmp(r->fail.jump))
        return -1;
    jpeg_create_decompress(&r->d);
    r->created = true;
    jpeg_mem_src(&r->d, data, (unsigned long)size);
    jpeg_read_header(&r->d, TRUE);
    return 0;
}

bool vkfx_jpeg_header_plain(const unsigned char *data, size_t size)
{
    struct jpeg_read r = {0};
    r.d.err = &r.fail.mgr;
    jpeg_fail_init(&r.fail);
    r.fail.strict = true;
    bool plain = size <= (unsigned long)-1 && jpeg_header_body(&r, data, size) == 0 &&
                 !r.d.progressive_mode && !r.d.arith_code && r.d.data_precision == 8 &&
                 (r.d.jpeg_color_space == JCS_GRAYSCALE || r.d.jpeg_color_space == JCS_YCbCr);
    if (r.created)
        jpeg_destroy_decompress(&r.d);
    return plain;
}

/* Gray stays gray; alpha has nowhere to go. */
static void layout_jpeg(uint32_t in_channels, vkfx_sample in_sample, uint32_t *channels,
                        vkfx_sample *sample)
{
    (void)in_sample;
    *channels = in_channels <= 2 ? 1 : 3;
    *sample = VKFX_SAMPLE_U8;
}

static bool fits_jpeg(uint32_t width, uint32_t height)
{
    return width <= JPEG_MAX_DIMENSION && height <= JPEG_MAX_DIMENSION;
}

/* The luma sampling factors a JPEG of this quality is written with (chroma's are 1). */
static void jpeg_sampling(const vkfx_save_opts *opts, int quality, int *h_out, int *v_out)
{
    vkfx_jpeg_subsampling sub = opts ? opts->jpeg_subsampling : VKFX_JPEG_SUBSAMPLING_AUTO;
    int h = 2, v = 2;
    switch (sub) {
    case VKFX_JPEG_SUBSAMPLING_AUTO:
        /* As ImageMagick does: full chroma where the quality asks for detail. */
        h = v = quality >= 90 ? 1 : 2;
        break;
    case VKFX_JPEG_SUBSAMPLING_444:
        h = v = 1;
        break;
    case VKFX_JPEG_SUBSAMPLING_422:
        h = 2;
        v = 1;
        break;
    case VKFX_JPEG_SUBSAMPLING_420:
        h = v = 2;
        break;
    }
    *h_out = h;
    *v_out = v;
}

/* libjpeg's settings for a file of vkfx's: the quality, the sampling, the tables, the
 * restart interval. */
static void jpeg_configure(struct jpeg_compress_struct *c, uint32_t width, uint32_t height,
                           uint32_t channels, const vkfx_save_opts *opts)
{
    c->image_width = width;
    c->image_height = height;
    c->input_components = (int)channels;
    c->in_color_space = channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(c);
    int quality = vkfx_jpeg_quality(opts);
    jpeg_set_quality(c, quality, TRUE);
    /* The standard tables unless asked: optimised ones take a second pass over the image's
     * coefficients, 2 to 5 times the encoding time at 4:4:4 for files 3 to 6% smaller
     * (tests/bench/RESULTS.md, JPEG's Huffman tables). libjpeg optimises progressive scans
     * itself. */
    c->optimize_coding = opts && opts->jpeg_optimize;
    c->dct_method = JDCT_ISLOW;
    int h, v;
    jpeg_sampling(opts, quality, &h, &v);
    if (channels == 3) {
        c->comp_info[0].h_samp_factor = h;
        c->comp_info[0].v_samp_factor = v;
    }
    c->restart_interval = opts ? opts->jpeg_restart : 0;
}

struct jpeg_write {
    struct jpeg_compress_struct c;
    struct jpeg_fail fail;
    bool created;
};

static int jpeg_encode_body(struct jpeg_write *w, FILE *f, const vkfx_pixels *px,
                            const vkfx_save_opts *opts)
{
    struct jpeg_compress_struct *c = &w->c;
    if (setjmp(w->fail.jump))
        return -1;
    jpeg_create_compress(c);
    w->created = true;
    jpeg_stdio_dest(c, f);
    jpeg_configure(c, px->width, px->height, px->channels, opts);
    if (opts && opts->jpeg_progressive)
        jpeg_simple_progression(c);
    jpeg_start_compress(c, TRUE);
    size_t stride = (size_t)px->width * px->channels;
    while (c->next_scanline < c->image_height) {
        JSAMPROW row = (unsigned char *)px->data + stride * c->next_scanline;
        jpeg_write_scanlines(c, &row, 1);
    }
    jpeg_finish_compress(c);
    return 0;
}

static int encode_jpeg(FILE *f, const char *path, const vkfx_pixels *px, const vkfx_save_opts *opts)
{
    int ret = VKFX_OK;
    struct jpeg_write w = {0};
    w.c.err = &w.fail.mgr;
    jpeg_fail_init(&w.fail);
    errno = 0;
    if (jpeg_encode_body(&w, f, px, opts) < 0) {
        if (ferror(f))
            ret = vkfx_fail(VKFX_E_IO, "%s: %s", path, strerror(errno ? errno : EIO));
        else
            ret = vkfx_fail(VKFX_E_FORMAT, "%s: JPEG encoding failed (libjpeg: %s)", path,
                            w.fail.msg);
    }
    if (w.created)
        jpeg_destroy_compress(&w.c);
    return ret;
}

static int jpeg_settings_body(struct jpeg_write *w, uint32_t width, uint32_t height,
                              uint32_t channels, const vkfx_save_opts *opts,
                              vkfx_jpeg_settings *out)
{
    struct jpeg_compress_struct *c = &w->c;
    if (setjmp(w->fail.jump))
        return -1;
    jpeg_create_compress(c);
    w->created = true;
    jpeg_configure(c, width, height, channels, opts);
    out->components = (uint32_t)c->num_components;
    for (int i = 0; i < c->num_components && i < 3; i++) {
        const jpeg_component_info *ci = &c->comp_info[i];
        out->comp[i].id = (uint8_t)ci->component_id;
        out->comp[i].h = (uint8_t)ci->h_samp_factor;
        out->comp[i].v = (uint8_t)ci->v_samp_factor;
        out->comp[i].table = (uint8_t)ci->quant_tbl_no;
    }
    for (int t = 0; t < 2; t++) {
        memcpy(out->quant[t], c->quant_tbl_ptrs[t]->quantval, sizeof(out->quant[t]));
        const JHUFF_TBL *tables[2] = {c->dc_huff_tbl_ptrs[t], c->ac_huff_tbl_ptrs[t]};
        for (int k = 0; k < 2; k++) {
            memcpy(out->huff[2 * t + k].bits, tables[k]->bits, 17);
            memcpy(out->huff[2 * t + k].vals, tables[k]->huffval, 256);
        }
    }
    out->jfif_version[0] = c->JFIF_major_version;
    out->jfif_version[1] = c->JFIF_minor_version;
    out->density_unit = c->density_unit;
    out->density[0] = c->X_density;
    out->density[1] = c->Y_density;
    out->restart = c->restart_interval;
    return 0;
}

int vkfx_jpeg_settings_for(uint32_t width, uint32_t height, uint32_t channels,
                           const vkfx_save_opts *opts, vkfx_jpeg_settings *out)
{
    int ret = VKFX_OK;
    struct jpeg_write w = {0};
    w.c.err = &w.fail.mgr;
    jpeg_fail_init(&w.fail);
    if (jpeg_settings_body(&w, width, height, channels, opts, out) < 0)
        ret = vkfx_fail(VKFX_E_FORMAT, "JPEG settings refused (libjpeg: %s)", w.fail.msg);
    if (w.created)
        jpeg_destroy_compress(&w.c);
    return ret;
}

const vkfx_codec vkfx_codec_jpeg = {
    .name = "JPEG",
    .extensions = (const char *const[]){"jpg", "jpeg", NULL},
    .sniff = sniff_jpeg,
    .probe = probe_jpeg,
    .decode = decode_jpeg,
    .layout = layout_jpeg,
    .fits = fits_jpeg,
    .encode = encode_jpeg,
    .options = "-q, --jpeg-subsampling, --jpeg-progressive, --jpeg-optimize",
    .read_meta = vkfx_jpeg_read_meta,
    .meta_kinds = VKFX_META_ICC | VKFX_META_EXIF | VKFX_META_XMP | VKFX_META_RES,
    .meta_fits = vkfx_jpeg_meta_fits,
    .put_meta = vkfx_jpeg_put_meta,
};
