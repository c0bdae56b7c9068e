#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "exif.h"
#include "exr.h"
#include "orient.h"
#include "safefile.h"

/* ------------------------------------------------------------------------ */
/* Formats and layouts */

const char *vkfx_file_format_name(vkfx_file_format fmt)
{
    return fmt ? fmt->name : "unknown";
}

/* "; writable formats: png, jpg, ..." for messages. */
static const char *writable(void)
{
    static _Thread_local char text[160];
    char list[128];
    vkfx_codec_extensions(true, list, sizeof(list));
    snprintf(text, sizeof(text), "writable formats: %s", list);
    return text;
}

int vkfx_file_format_for_output(const char *path, vkfx_file_format *fmt)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    const char *dot = strrchr(base, '.');

    /* A leading dot names a hidden file (".png"), not an extension. */
    if (!dot || dot == base || !dot[1])
        return vkfx_fail(VKFX_E_USAGE, "%s: no file extension to choose the output format; %s",
                         path, writable());
    const vkfx_codec *c = vkfx_codec_for_extension(dot + 1);
    if (!c)
        return vkfx_fail(VKFX_E_USAGE, "%s: unknown output extension '%s'; %s", path, dot,
                         writable());
    if (!c->encode)
        return vkfx_fail(VKFX_E_USAGE, "%s: cannot write %s; %s", path, c->name, writable());
    *fmt = c;
    return VKFX_OK;
}

void vkfx_file_output_layout(vkfx_file_format fmt, uint32_t in_channels, vkfx_sample in_sample,
                             uint32_t *channels, vkfx_sample *sample)
{
    if (fmt->layout) {
        fmt->layout(in_channels, in_sample, channels, sample);
        return;
    }
    /* No writer: never asked for; PNG's answer is harmless. */
    vkfx_codec_png.layout(in_channels, in_sample, channels, sample);
}

static vkfx_sample depth_sample(int depth)
{
    return depth == 16 ? VKFX_SAMPLE_U16 : VKFX_SAMPLE_U8;
}

/* Whether the format writes samples of depth bits: its layout keeps them. */
static bool holds_depth(vkfx_file_format fmt, int depth)
{
    uint32_t channels;
    vkfx_sample sample;
    if (!fmt->layout)
        return false;
    fmt->layout(3, depth_sample(depth), &channels, &sample);
    return sample == depth_sample(depth);
}

void vkfx_file_output_layout_depth(vkfx_file_format fmt, uint32_t in_channels,
                                   vkfx_sample in_sample, int depth, uint32_t *channels,
                                   vkfx_sample *sample)
{
    vkfx_file_output_layout(fmt, in_channels, in_sample, channels, sample);
    if ((depth == 8 || depth == 16) && holds_depth(fmt, depth))
        *sample = depth_sample(depth);
}

int vkfx_file_check_depth(const char *path, vkfx_file_format fmt, int depth)
{
    if (depth == 0 || holds_depth(fmt, depth))
        return VKFX_OK;
    char list[160] = "";
    size_t len = 0;
    for (const vkfx_codec *const *c = vkfx_codecs; *c; c++) {
        if (!(*c)->encode || !holds_depth(*c, depth))
            continue;
        int n = snprintf(list + len, sizeof(list) - len, "%s%s", len ? ", " : "", (*c)->name);
        if (n < 0 || (size_t)n >= sizeof(list) - len)
            break;
        len += (size_t)n;
    }
    return vkfx_fail(VKFX_E_USAGE, "%s: --depth %d: %s cannot hold %d-bit samples (%s can)", path,
                     depth, vkfx_file_format_name(fmt), depth, list);
}

static const char *sample_name(vkfx_sample s)
{
    switch (s) {
    case VKFX_SAMPLE_U8:
        return "8-bit";
    case VKFX_SAMPLE_U16:
        return "16-bit";
    case VKFX_SAMPLE_F32:
        return "float";
    }
    return "unknown";
}

/* ------------------------------------------------------------------------ */
/* Loading */

static _Thread_local vkfx_decode_note last_note;

const char *vkfx_file_note(void)
{
    return last_note.text[0] ? last_note.text : NULL;
}

bool vkfx_file_is_image(const void *data, size_t size)
{
    return size > 0 && vkfx_codec_sniff(data, size) != NULL;
}

/* The codec for data, or VKFX_E_FORMAT naming the formats vkfx reads. */
static int pick_codec(const void *data, size_t size, const char *name, const vkfx_codec **codec)
{
    if (size == 0)
        return vkfx_fail(VKFX_E_FORMAT, "%s: empty file", name);
    if (!data)
        return vkfx_fail(VKFX_E_USAGE, "%s: no data", name);
    *codec = vkfx_codec_sniff(data, size);
    if (!*codec) {
        char list[160];
        vkfx_codec_names(false, list, sizeof(list));
        return vkfx_fail(VKFX_E_FORMAT, "%s: not a format vkfx reads (%s)", name, list);
    }
    return VKFX_OK;
}

/* Set once before loading starts, read by every codec thread. */
static bool autorotate = true;

void vkfx_file_set_autorotate(bool on)
{
    autorotate = on;
}

/* A resolution kept in EXIF alone (no JFIF density, pHYs or TIFF tags) is the file's, as
 * Pillow reads it, so that outputs holding a resolution of their own keep it. */
static void res_from_exif(vkfx_meta *meta)
{
    if (!meta->has_res)
        meta->has_res = vkfx_exif_resolution(meta->exif.data, meta->exif.size, &meta->res_x,
                                             &meta->res_y, &meta->res_unit);
}

/* The file's metadata into meta, and its pixels turned upright as its
 * orientation says (unless --no-autorotate), the kept EXIF then saying 1. */
static int read_meta(const vkfx_codec *codec, const void *data, size_t size, const char *name,
                     vkfx_pixels *px, vkfx_meta *meta)
{
    if (!codec->read_meta)
        return VKFX_OK;
    int ret = codec->read_meta(data, size, name, meta);
    if (ret < 0)
        return ret;
    res_from_exif(meta);
    int o = vkfx_meta_orientation(meta);
    meta->stored_orientation = o;
    meta->applied_orientation = 1;
    if (!autorotate || o <= 1)
        return VKFX_OK;
    ret = vkfx_pixels_orient(px, o);
    if (ret < 0)
        return vkfx_fail_context(ret, "%s: turning the image upright", name);
    meta->applied_orientation = o;
    if (meta->exif.data)
        vkfx_exif_set_orientation(meta->exif.data, meta->exif.size, 1);
    vkfx_meta_xmp_upright(meta);
    return VKFX_OK;
}

static _Thread_local vkfx_load_gate gate;
static _Thread_local void *gate_arg;

void vkfx_file_set_gate(vkfx_load_gate g, void *arg)
{
    gate = g;
    gate_arg = arg;
}

/* The header's size as a load turns it upright. */
static int upright_info(const vkfx_codec *codec, const void *data, size_t size, const char *name,
                        vkfx_image_info *info)
{
    int ret = codec->probe(data, size, name, info);
    vkfx_meta meta = {0};
    if (ret == VKFX_OK && autorotate && codec->read_meta &&
        codec->read_meta(data, size, name, &meta) == VKFX_OK) {
        int o = vkfx_meta_orientation(&meta);
        vkfx_orient_size(o, info->width, info->height, &info->width, &info->height);
    }
    vkfx_meta_free(&meta);
    return ret;
}

/* The calling thread's gate on the file's header (a corrupt header is left to the decode). */
static int pass_gate(const vkfx_codec *codec, const void *data, size_t size, const char *name)
{
    vkfx_image_info info;
    if (!gate || codec->probe_decodes)
        return VKFX_OK;
    if (upright_info(codec, data, size, name, &info) < 0) {
        vkfx_error_clear();
        return VKFX_OK;
    }
    return gate(gate_arg, name, info.width, info.height);
}

int vkfx_file_load_memory_meta(const void *data, size_t size, const char *name, vkfx_pixels *out,
                               vkfx_meta *meta)
{
    const vkfx_codec *codec;
    vkfx_meta own = {0};
    vkfx_meta *m = meta ? meta : &own;
    out->data = NULL;
    last_note.text[0] = 0;
    memset(m, 0, sizeof(*m));
    int ret = pick_codec(data, size, name, &codec);
    if (ret == VKFX_OK)
        ret = pass_gate(codec, data, size, name);
    if (ret < 0)
        return ret;
    vkfx_decode_note note = {{0}};
    ret = codec->decode(data, size, name, out, &note);
    if (ret == VKFX_OK)
        ret = read_meta(codec, data, size, name, out, m);
    if (ret == VKFX_OK)
        last_note = note;
    if (ret < 0) {
        vkfx_pixels_free(out);
        vkfx_meta_free(m);
    }
    vkfx_meta_free(&own);
    return ret;
}

int vkfx_file_load_memory(const void *data, size_t size, const char *name, vkfx_pixels *out)
{
    return vkfx_file_load_memory_meta(data, size, name, out, NULL);
}

unsigned vkfx_file_meta_dropped(vkfx_file_format fmt, const vkfx_meta *meta)
{
    unsigned holds = fmt->meta_kinds;
    if (fmt->meta_fits)
        holds &= fmt->meta_fits(meta);
    return vkfx_meta_kinds(meta) & ~holds;
}

uint64_t vkfx_file_max_bytes(void)
{
    return vkfx_file_max_pixels() * 17 + ((uint64_t)1 << 20);
}

static int fail_bytes(const char *name)
{
    return vkfx_fail(VKFX_E_LIMIT,
                     "%s: longer than %llu bytes, the most --max-pixels %llu lets a file have "
                     "(17 bytes a pixel and 1 MiB); not read further",
                     name, (unsigned long long)vkfx_file_max_bytes(),
                     (unsigned long long)vkfx_file_max_pixels());
}

/* What the codecs' signatures need at most (TGA, the one without a magic
 * number, looks at an 18-byte header). */
#define SNIFF_BYTES 4096

/* All of an open file (or pipe) in *buf (malloc'd), its size in *size; name
 * for messages. Read in growing pieces and cut off past
 * vkfx_file_max_bytes, so an endless pipe ends with an error instead of
 * taking all memory. */
static int read_fd(int fd, const char *name, unsigned char **buf_out, size_t *size_out)
{
    int ret;
    unsigned char *buf = NULL;
    size_t size = 0, cap;
    struct stat st;
    const vkfx_codec *codec;
    uint64_t max = vkfx_file_max_bytes();

    *buf_out = NULL;
    if (fstat(fd, &st) < 0) {
        ret = vkfx_fail(VKFX_E_IO, "%s: %s", name, strerror(errno));
        goto fail;
    }
    if (S_ISDIR(st.st_mode)) {
        ret = vkfx_fail(VKFX_E_IO, "%s: %s", name, strerror(EISDIR));
        goto fail;
    }
    if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > max) {
        ret = fail_bytes(name);
        goto fail;
    }
    /* Pipes and devices report no size: read until EOF, growing as needed.
     * A file's size is allocated once its first bytes are known to be an
     * image. */
    size_t whole = S_ISREG(st.st_mode) && st.st_size > 0 ? (size_t)st.st_size + 1 : 0;
    cap = !whole ? 65536 : whole < SNIFF_BYTES ? whole : SNIFF_BYTES;
    buf = malloc(cap);
    if (!buf) {
        ret = vkfx_fail(VKFX_E_NOMEM, "%s: out of host memory reading the file", name);
        goto fail;
    }
    for (;;) {
        if (size == cap) {
            if ((uint64_t)size > max) {
                ret = fail_bytes(name);
                goto fail;
            }
            size_t want = whole > cap                   ? whole
                          : (uint64_t)cap * 2 > max + 1 ? (size_t)(max + 1)
                                                        : cap * 2;
            unsigned char *bigger = want > cap ? realloc(buf, want) : NULL;
            if (!bigger) {
                ret = vkfx_fail(VKFX_E_NOMEM, "%s: out of host memory reading the file", name);
                goto fail;
            }
            buf = bigger;
            cap = want;
        }
        /* the first bytes alone first, so that they are checked before the rest is read */
        size_t ask =
            size < SNIFF_BYTES && cap - size > SNIFF_BYTES - size ? SNIFF_BYTES - size : cap - size;
        ssize_t n = read(fd, buf + size, ask);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            ret = vkfx_fail(VKFX_E_IO, "%s: %s", name, strerror(errno));
            goto fail;
        }
        if (n == 0)
            break;
        size_t before = size;
        size += (size_t)n;
        /* Every signature is within the first bytes: a stream that is no
         * image (/dev/zero, a text) ends here, not at the size limit. */
        if (before < SNIFF_BYTES && size >= SNIFF_BYTES &&
            (ret = pick_codec(buf, size, name, &codec)) < 0)
            goto fail;
    }
    if ((uint64_t)size > max) {
        ret = fail_bytes(name);
        goto fail;
    }
    *buf_out = buf;
    *size_out = size;
    buf = NULL;
    ret = VKFX_OK;
fail:
    free(buf);
    return ret;
}

static int read_all(const char *path, unsigned char **buf_out, size_t *size_out)
{
    *buf_out = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return vkfx_fail(VKFX_E_IO, "%s: %s", path, strerror(errno));
    int ret = read_fd(fd, path, buf_out, size_out);
    close(fd);
    return ret;
}

int vkfx_file_load_fd_meta(int fd, const char *name, vkfx_pixels *out, vkfx_meta *meta)
{
    unsigned char *buf = NULL;
    size_t size = 0;
    out->data = NULL;
    int ret = read_fd(fd, name, &buf, &size);
    if (ret == VKFX_OK)
        ret = vkfx_file_load_memory_meta(buf, size, name, out, meta);
    free(buf);
    return ret;
}

int vkfx_file_load_fd(int fd, const char *name, vkfx_pixels *out)
{
    return vkfx_file_load_fd_meta(fd, name, out, NULL);
}

int vkfx_file_load_meta(const char *path, vkfx_pixels *out, vkfx_meta *meta)
{
    unsigned char *buf = NULL;
    size_t size = 0;
    out->data = NULL;
    int ret = read_all(path, &buf, &size);
    if (ret == VKFX_OK)
        ret = vkfx_file_load_memory_meta(buf, size, path, out, meta);
    free(buf);
    return ret;
}

int vkfx_file_load(const char *path, vkfx_pixels *out)
{
    return vkfx_file_load_meta(path, out, NULL);
}

int vkfx_file_load_depth_of(const char *path, vkfx_pixels *out)
{
    unsigned char *buf = NULL;
    size_t size = 0;
    out->data = NULL;
    int ret = read_all(path, &buf, &size);
    if (ret == VKFX_OK && !vkfx_exr_is(buf, size))
        ret = vkfx_fail(VKFX_E_USAGE,
                        "%s is not an OpenEXR file; only those carry a depth channel beside the "
                        "colour",
                        path);
    if (ret == VKFX_OK)
        ret = vkfx_exr_load_channel_memory(buf, size, path, NULL, out);
    free(buf);
    return ret;
}

int vkfx_file_map_split(const char *spec, char **path, const char **channel)
{
    *channel = NULL;
    /* FILE.exr#NAME: only after an .exr name, so other paths may hold '#'. */
    const char *hash = strrchr(spec, '#');
    if (hash && hash - spec >= 4 && strncasecmp(hash - 4, ".exr", 4) == 0) {
        *channel = hash + 1;
        if (!**channel) {
            *path = NULL;
            return vkfx_fail(VKFX_E_USAGE, "%s: no channel name after '#'", spec);
        }
        *path = strndup(spec, (size_t)(hash - spec));
    } else {
        *path = strdup(spec);
    }
    return *path ? VKFX_OK : vkfx_fail(VKFX_E_NOMEM, "out of host memory");
}

int vkfx_file_load_map(const char *spec, vkfx_pixels *out)
{
    unsigned char *buf = NULL;
    size_t size = 0;
    char *path = NULL;
    const char *channel = NULL;
    out->data = NULL;
    int ret = vkfx_file_map_split(spec, &path, &channel);
    if (ret < 0)
        goto fail;
    ret = read_all(path, &buf, &size);
    if (ret < 0)
        goto fail;
    if (vkfx_exr_is(buf, size))
        ret = vkfx_exr_load_channel_memory(buf, size, path, channel, out);
    else if (channel)
        ret = vkfx_fail(VKFX_E_FORMAT, "%s: not an OpenEXR file, so it has no channel '%s'", path,
                        channel);
    else
        ret = vkfx_file_load_memory(buf, size, path, out);
fail:
    free(buf);
    free(path);
    return ret;
}


int vkfx_file_map_sample(const char *spec, vkfx_sample *sample)
{
    unsigned char *buf = NULL;
    size_t size = 0;
    const vkfx_codec *codec = NULL;
    vkfx_image_info info;
    const char *hash = strrchr(spec, '#');
    char *path = hash && hash - spec >= 4 && strncasecmp(hash - 4, ".exr", 4) == 0
                     ? strndup(spec, (size_t)(hash - spec))
                     : strdup(spec);
    int ret = path ? read_all(path, &buf, &size) : vkfx_fail(VKFX_E_NOMEM, "out of host memory");
    if (ret == VKFX_OK)
        ret = pick_codec(buf, size, path, &codec);
    /* Every OpenEXR channel reads as float: no need to decode to know. */
    if (ret == VKFX_OK && codec == VKFX_FILE_EXR)
        *sample = VKFX_SAMPLE_F32;
    else if (ret == VKFX_OK && (ret = codec->probe(buf, size, path, &info)) == VKFX_OK)
        *sample = info.sample;
    free(buf);
    free(path);
    return ret;
}

int vkfx_file_probe(const char *path, vkfx_image_info *info)
{
    unsigned char *buf = NULL;
    size_t size = 0;
    const vkfx_codec *codec;
    int ret = read_all(path, &buf, &size);
    if (ret == VKFX_OK)
        ret = pick_codec(buf, size, path, &codec);
    if (ret == VKFX_OK)
        ret = upright_info(codec, buf, size, path, info);
    free(buf);
    return ret;
}

/* ------------------------------------------------------------------------ */
/* ------------------------------------------------------------------------ */
/* Saving */

/* What every save checks last; batches check it as soon as the output's size is known. */
int vkfx_file_check_size(const char *path, vkfx_file_format fmt, uint32_t width, uint32_t height)
{
    if (!fmt->fits(width, height))
        return vkfx_fail(VKFX_E_LIMIT, "%s: a %ux%u image is too large for %s", path, width, height,
                         vkfx_file_format_name(fmt));
    return VKFX_OK;
}

/* Checks what the encoders assume, so that a caller's mistake is an error
 * instead of a file of garbage. */
static int check_save_args(const char *path, vkfx_file_format fmt, const vkfx_pixels *px,
                           const vkfx_save_opts *opts)
{
    if (!fmt || !fmt->encode)
        return vkfx_fail(VKFX_E_USAGE, "%s: cannot write %s; %s", path,
                         vkfx_file_format_name(fmt), writable());
    if (!px || !px->data || px->width < 1 || px->height < 1 || px->channels < 1 || px->channels > 4)
        return vkfx_fail(VKFX_E_USAGE, "%s: no image to save (empty or 0 channels)", path);

    uint32_t channels;
    vkfx_sample sample;
    vkfx_file_output_layout(fmt, px->channels, px->sample, &channels, &sample);
    if (channels != px->channels || sample != px->sample)
        return vkfx_fail(VKFX_E_USAGE,
                         "%s: %s cannot store %u channel(s) of %s samples; convert to %u "
                         "channel(s) of %s samples first",
                         path, vkfx_file_format_name(fmt), px->channels, sample_name(px->sample),
                         channels, sample_name(sample));

    int quality = opts ? opts->jpeg_quality : 0;
    if (quality < 0 || quality > 100)
        return vkfx_fail(VKFX_E_USAGE, "%s: JPEG quality %d is outside 1..100", path, quality);

    if (opts && opts->png_level_set && (opts->png_level < 0 || opts->png_level > 9))
        return vkfx_fail(VKFX_E_USAGE, "%s: PNG level %d is outside 0..9", path, opts->png_level);

    return vkfx_file_check_size(path, fmt, px->width, px->height);
}

/* Encodes px into s, an open output of path. A format whose metadata is
 * added to the encoder's bytes (put_meta) is encoded in memory first, only
 * when there is metadata it holds. */
static int encode_to(vkfx_safefile *s, const char *path, vkfx_file_format fmt,
                     const vkfx_pixels *px, const vkfx_save_opts *opts)
{
    FILE *f = vkfx_safefile_stream(s);
    const vkfx_meta *meta = opts ? opts->meta : NULL;
    if (!fmt->put_meta || !(vkfx_meta_kinds(meta) & fmt->meta_kinds))
        return fmt->encode(f, path, px, opts);
    vkfx_save_opts plain = *opts;
    plain.meta = NULL;
    char *buf = NULL;
    size_t size = 0;
    FILE *mem = open_memstream(&buf, &size);
    if (!mem)
        return vkfx_fail(VKFX_E_NOMEM, "%s: out of host memory encoding", path);
    int ret = fmt->encode(mem, path, px, &plain);
    if (fclose(mem) != 0 && ret == VKFX_OK)
        ret = vkfx_fail(VKFX_E_NOMEM, "%s: out of host memory encoding", path);
    if (ret == VKFX_OK)
        ret = fmt->put_meta(f, path, (const unsigned char *)buf, size, meta);
    free(buf);
    return ret;
}

static int save_to(vkfx_safefile *s, const char *path, vkfx_file_format fmt,
                   const vkfx_pixels *px, const vkfx_save_opts *opts)
{
    int ret = encode_to(s, path, fmt, px, opts);
    if (ret < 0) {
        vkfx_safefile_abort(s);
        return ret;
    }
    return vkfx_safefile_commit(s);
}

int vkfx_file_save(const char *path, vkfx_file_format fmt, const vkfx_pixels *px,
                   const vkfx_save_opts *opts)
{
    vkfx_safefile *s;
    int ret = check_save_args(path, fmt, px, opts);
    /* Opened before encoding, so that a wrong folder costs nothing. */
    if (ret == VKFX_OK)
        ret = vkfx_safefile_open(path, &s);
    return ret < 0 ? ret : save_to(s, path, fmt, px, opts);
}

int vkfx_file_save_fd(int fd, const char *name, vkfx_file_format fmt, const vkfx_pixels *px,
                      const vkfx_save_opts *opts)
{
    vkfx_safefile *s;
    int ret = check_save_args(name, fmt, px, opts);
    if (ret == VKFX_OK)
        ret = vkfx_safefile_open_fd(fd, name, &s);
    return ret < 0 ? ret : save_to(s, name, fmt, px, opts);
}
/* A file another encoder made (JPEG on the device): its bytes, with the metadata the format's
 * put_meta adds, as encode_to adds it to the format's own encoder's bytes. */
static int write_encoded(vkfx_safefile *s, const char *path, vkfx_file_format fmt,
                         const unsigned char *data, size_t size, const vkfx_save_opts *opts)
{
    FILE *f = vkfx_safefile_stream(s);
    const vkfx_meta *meta = opts ? opts->meta : NULL;
    int ret = VKFX_OK;
    errno = 0;
    if (fmt->put_meta && (vkfx_meta_kinds(meta) & fmt->meta_kinds))
        ret = fmt->put_meta(f, path, data, size, meta);
    else if (fwrite(data, 1, size, f) != size)
        ret = vkfx_fail(VKFX_E_IO, "%s: %s", path, strerror(errno ? errno : EIO));
    if (ret < 0) {
        vkfx_safefile_abort(s);
        return ret;
    }
    return vkfx_safefile_commit(s);
}

int vkfx_file_save_encoded(const char *path, int fd, vkfx_file_format fmt,
                           const unsigned char *data, size_t size, uint32_t width, uint32_t height,
                           const vkfx_save_opts *opts)
{
    vkfx_safefile *s;
    int ret = vkfx_file_check_size(path, fmt, width, height);
    if (ret == VKFX_OK)
        ret = fd >= 0 ? vkfx_safefile_open_fd(fd, path, &s) : vkfx_safefile_open(path, &s);
    return ret < 0 ? ret : write_encoded(s, path, fmt, data, size, opts);
}


int vkfx_file_load_jpeg_input(const char *path, uint64_t min_pixels, vkfx_pixels *shape,
                              vkfx_meta *meta, vkfx_jpeg_input *out)
{
    unsigned char *buf = NULL;
    size_t size = 0;
    vkfx_image_info info;
    memset(out, 0, sizeof(*out));
    memset(meta, 0, sizeof(*meta));
    *shape = (vkfx_pixels){.straight = true};
    int ret = read_all(path, &buf, &size);
    if (ret < 0)
        return ret;
    /* Anything the header or the metadata refuse, libjpeg-turbo's path reports as it does
     * today. */
    ret = 1;
    if (vkfx_codec_sniff(buf, size) != VKFX_FILE_JPEG ||
        VKFX_FILE_JPEG->probe(buf, size, path, &info) != VKFX_OK ||
        (uint64_t)info.width * info.height < min_pixels ||
        vkfx_check_pixels(path, info.width, info.height) < 0 ||
        vkfx_check_stored(path, "JPEG", info.width, info.height,
                          ((uint64_t)info.width + 7) / 8 * (((uint64_t)info.height + 7) / 8), 4,
                          size) < 0 ||
        VKFX_FILE_JPEG->read_meta(buf, size, path, meta) != VKFX_OK)
        goto fail;
    res_from_exif(meta);
    int o = vkfx_meta_orientation(meta);
    /* Pixels to turn are turned on the host: that file is libjpeg-turbo's. */
    if (meta->cmyk || (autorotate && o > 1))
        goto fail;
    meta->stored_orientation = o;
    meta->applied_orientation = 1;
    if ((ret = vkfx_jpeg_parse(buf, size, &out->layout)) != 0)
        goto fail;
    *shape = (vkfx_pixels){.width = out->layout.width,
                           .height = out->layout.height,
                           .channels = out->layout.channels,
                           .sample = VKFX_SAMPLE_U8,
                           .straight = true};
    last_note.text[0] = 0;
    out->bytes = buf;
    out->size = size;
    return VKFX_OK;
fail:
    vkfx_error_clear();
    vkfx_meta_free(meta);
    memset(meta, 0, sizeof(*meta));
    free(buf);
    return ret < 0 ? ret : 1;
}

void vkfx_jpeg_input_free(vkfx_jpeg_input *j)
{
    if (!j)
        return;
    free(j->bytes);
    vkfx_jpeg_layout_free(&j->layout);
    memset(j, 0, sizeof(*j));
}

int vkfx_file_load_shrunk(const char *path, vkfx_shrink_fn shrink, const void *plan,
                          vkfx_pixels *out, vkfx_meta *meta, uint32_t *source_w, uint32_t *source_h)
{
    unsigned char *buf = NULL;
    size_t size = 0;
    out->data = NULL;
    *source_w = *source_h = 0;
    int ret = read_all(path, &buf, &size);
    vkfx_image_info info;
    unsigned denom = 1;
    if (ret == VKFX_OK && shrink && vkfx_codec_sniff(buf, size) == VKFX_FILE_JPEG &&
        VKFX_FILE_JPEG->probe(buf, size, path, &info) == VKFX_OK) {
        /* The plan's sizes refer to the upright image: an orientation that
         * turns by 90 degrees swaps the stored sides. */
        vkfx_meta peek = {0};
        if (autorotate && VKFX_FILE_JPEG->read_meta &&
            VKFX_FILE_JPEG->read_meta(buf, size, path, &peek) == VKFX_OK &&
            vkfx_meta_orientation(&peek) >= 5) {
            uint32_t t = info.width;
            info.width = info.height;
            info.height = t;
        }
        vkfx_meta_free(&peek);
        denom = shrink(plan, info.width, info.height);
        if (denom != 2 && denom != 4 && denom != 8)
            denom = 1;
    }
    if (ret == VKFX_OK && denom > 1)
        ret = pass_gate(VKFX_FILE_JPEG, buf, size, path);
    if (ret == VKFX_OK && denom > 1) {
        *source_w = info.width;
        *source_h = info.height;
        last_note.text[0] = 0;
        vkfx_meta own = {0};
        vkfx_meta *m = meta ? meta : &own;
        memset(m, 0, sizeof(*m));
        vkfx_decode_note note = {{0}};
        ret = vkfx_jpeg_decode_scaled(buf, size, path, denom, out, &note);
        if (ret == VKFX_OK)
            ret = read_meta(VKFX_FILE_JPEG, buf, size, path, out, m);
        if (ret == VKFX_OK)
            last_note = note;
        if (ret < 0) {
            vkfx_pixels_free(out);
            vkfx_meta_free(m);
        }
        vkfx_meta_free(&own);
    } else if (ret == VKFX_OK) {
        ret = vkfx_file_load_memory_meta(buf, size, path, out, meta);
    }
    free(buf);
    return ret;
}
