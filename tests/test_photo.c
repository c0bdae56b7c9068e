/* What makes a photo a photo, from the command line: the EXIF orientation
 * (JPEG APP1, PNG eXIf, WebP EXIF, the TIFF tag) turning the pixels upright,
 * each of the eight against a turn made here; the ICC profile, EXIF, XMP,
 * text and resolution passing from every input format to every output
 * format, read back with each format's own library; --strip; pixels
 * linearised with an embedded profile's curves (Adobe RGB, a gray gamma
 * profile, a sampled curve) against a reference that uses the curves as
 * ICC defines them; a depth map turned by its own tag. Input files are made
 * with the formats' own libraries too, never with vkfx's writers. */
#include <criterion/criterion.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <lcms2.h>
#include <openexr.h>
#include <png.h>
#include <tiffio.h>
#include <webp/demux.h>
#include <webp/encode.h>
#include <webp/mux.h>

#include "common.h"
#include "error.h"
#include "fileio.h"
#include "run_binary.h"

static void setup(void)
{
    if (tc_tmpdir_make("photo") != 0)
        cr_assert_fail("mkdtemp: %s", strerror(errno));
}

TestSuite(photo, .init = setup, .fini = tc_tmpdir_remove);

/* ------------------------------------------------------------------------ */
/* What a file carries, as the tests write and read it */

typedef struct blob {
    unsigned char *data;
    size_t size;
} blob;

/* What the tests put into EXIF, as each format's reader finds it. */
typedef struct exif_facts {
    int orientation; /* 0: none */
    char artist[32];
    double exposure; /* the Exif directory's ExposureTime, ISO and DateTimeOriginal */
    unsigned iso;
    char original[24];
} exif_facts;

typedef struct tmeta {
    blob icc, exif, xmp; /* exif without "Exif\0\0" */
    exif_facts facts;    /* of exif, or of a TIFF's tags and Exif directory */
    char comment[64];    /* a PNG text chunk "Comment" */
    char description[64]; /* text "Description", TIFF's ImageDescription */
    char date[24];        /* text "Creation Time", TIFF's DateTime */
    bool res;
    unsigned res_x, res_y; /* dots per inch */
    int tiff_orientation;  /* TIFF's own tag; 0 none */
    bool exif_text;        /* a PNG text "Raw profile type exif" (ImageMagick's EXIF) */
} tmeta;

static void tmeta_free(tmeta *m)
{
    free(m->icc.data);
    free(m->exif.data);
    free(m->xmp.data);
    memset(m, 0, sizeof(*m));
}

/* A copy of size bytes, with a NUL after them: text blobs (XMP) go to libpng as C strings. */
static blob copy_blob(const void *data, size_t size)
{
    blob b = {malloc(size + 1), size};
    cr_assert(b.data);
    memcpy(b.data, data, size);
    ((char *)b.data)[size] = 0;
    return b;
}

static bool same_blob(const blob *a, const blob *b)
{
    return a->size == b->size && (!a->size || !memcmp(a->data, b->data, a->size));
}

static void put16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v; /* little-endian EXIF */
    p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void put_entry(uint8_t *e, uint32_t tag, uint32_t type, uint32_t count, uint32_t value)
{
    put16(e, tag);
    put16(e + 2, type);
    put32(e + 4, count);
    put32(e + 8, value);
}

/* EXIF as cameras write it: IFD0 with Orientation = o, Artist and the Exif
 * directory (ExposureTime 1/250, ISO 200, DateTimeOriginal). */
static blob make_exif(int o)
{
    uint8_t b[136] = {0};
    memcpy(b, "II*\0", 4);
    put32(b + 4, 8);
    put16(b + 8, 3);
    put_entry(b + 10, 0x0112, 3, 1, (uint32_t)o);
    put_entry(b + 22, 0x013b, 2, 10, 50); /* Artist */
    put_entry(b + 34, 0x8769, 4, 1, 60);  /* the Exif directory */
    memcpy(b + 50, "Photo Cat", 10);
    put16(b + 60, 3);
    put_entry(b + 62, 0x829a, 5, 1, 104); /* ExposureTime */
    put_entry(b + 74, 0x8827, 3, 1, 200); /* ISOSpeedRatings */
    put_entry(b + 86, 0x9003, 2, 20, 112); /* DateTimeOriginal */
    put32(b + 104, 1);
    put32(b + 108, 250);
    memcpy(b + 112, "2024:05:06 07:08:09", 20);
    return copy_blob(b, 132);
}

/* A test's own reading of an EXIF block: the entry tag of the directory at
 * ifd, its type, count and values (NULL where absent or out of the block). */
static const uint8_t *exif_entry(const blob *e, uint32_t ifd, uint32_t tag, uint32_t *type,
                                 uint32_t *count)
{
    const uint8_t *d = e->data;
    bool big = e->size >= 8 && !memcmp(d, "MM", 2);
#define G16(p) (big ? (uint32_t)(p)[0] << 8 | (p)[1] : (uint32_t)(p)[1] << 8 | (p)[0])
#define G32(p) (big ? G16(p) << 16 | G16((p) + 2) : G16((p) + 2) << 16 | G16(p))
    if (e->size < 8 || ifd + 2 > e->size)
        return NULL;
    for (uint32_t i = 0, n = G16(d + ifd); i < n && ifd + 14 + 12 * i <= e->size; i++) {
        const uint8_t *x = d + ifd + 2 + 12 * i;
        if (G16(x) != tag)
            continue;
        static const uint32_t sizes[14] = {0, 1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8, 4};
        *type = G16(x + 2);
        *count = G32(x + 4);
        size_t bytes = (size_t)(*type < 14 ? sizes[*type] : 0) * *count;
        if (bytes <= 4)
            return x + 8;
        return G32(x + 8) + bytes <= e->size ? d + G32(x + 8) : NULL;
    }
    return NULL;
}

static uint32_t exif_u32(const blob *e, const uint8_t *p, int bytes)
{
    bool big = !memcmp(e->data, "MM", 2);
    return bytes == 2 ? G16(p) : G32(p);
#undef G16
#undef G32
}

/* The facts of an EXIF block (zero where absent). */
static exif_facts exif_read(const blob *e)
{
    exif_facts f = {0};
    uint32_t type, count;
    const uint8_t *v;
    if (!e->data || e->size < 8)
        return f;
    uint32_t ifd0 = exif_u32(e, e->data + 4, 4);
    if ((v = exif_entry(e, ifd0, 0x0112, &type, &count)) && type == 3)
        f.orientation = (int)exif_u32(e, v, 2);
    if ((v = exif_entry(e, ifd0, 0x013b, &type, &count)) && type == 2)
        snprintf(f.artist, sizeof(f.artist), "%.*s", (int)count, (const char *)v);
    if (!(v = exif_entry(e, ifd0, 0x8769, &type, &count)))
        return f;
    uint32_t ifd = exif_u32(e, v, 4);
    if ((v = exif_entry(e, ifd, 0x829a, &type, &count)) && type == 5)
        f.exposure = (double)exif_u32(e, v, 4) / exif_u32(e, v + 4, 4);
    if ((v = exif_entry(e, ifd, 0x8827, &type, &count)) && type == 3)
        f.iso = exif_u32(e, v, 2);
    if ((v = exif_entry(e, ifd, 0x9003, &type, &count)) && type == 2)
        snprintf(f.original, sizeof(f.original), "%.*s", (int)count, (const char *)v);
    return f;
}

static bool same_facts(const exif_facts *a, const exif_facts *b)
{
    return a->orientation == b->orientation && !strcmp(a->artist, b->artist) &&
           fabs(a->exposure - b->exposure) <= 1e-7 * b->exposure && a->iso == b->iso &&
           !strcmp(a->original, b->original);
}

/* The Orientation of our own EXIF layout above (0 if it is not ours). */
static int exif_orientation(const blob *e)
{
    if (e->size < 20 || memcmp(e->data, "II*\0", 4) || e->data[10] != 0x12 || e->data[11] != 1)
        return 0;
    return e->data[18];
}

static const char xmp_text[] =
    "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/"
    "22-rdf-syntax-ns#\"><rdf:Description dc:creator=\"Photo Cat\" xmlns:dc=\"http://purl.org/"
    "dc/elements/1.1/\"/></rdf:RDF></x:xmpmeta>";

/* An ICC profile made with lcms2 (curves for r, g, b or one gray curve). */
static blob save_profile(cmsHPROFILE p)
{
    cmsUInt32Number n = 0;
    cr_assert(p && cmsSaveProfileToMem(p, NULL, &n));
    blob b = {malloc(n), n};
    cr_assert(b.data && cmsSaveProfileToMem(p, b.data, &n));
    cmsCloseProfile(p);
    return b;
}

static blob rgb_profile(cmsToneCurve *c)
{
    cmsCIExyYTRIPLE primaries = {{0.64, 0.33, 1}, {0.21, 0.71, 1}, {0.15, 0.06, 1}};
    cmsToneCurve *curves[3] = {c, c, c};
    blob b = save_profile(cmsCreateRGBProfile(cmsD50_xyY(), &primaries, curves));
    cmsFreeToneCurve(c);
    return b;
}

static blob gray_profile(cmsToneCurve *c)
{
    blob b = save_profile(cmsCreateGrayProfile(cmsD50_xyY(), c));
    cmsFreeToneCurve(c);
    return b;
}

/* A full set: profile (sRGB from lcms2 unless given), EXIF with o, XMP, text, 300 dpi. */
static tmeta full_meta(int o)
{
    tmeta m = {0};
    m.icc = save_profile(cmsCreate_sRGBProfile());
    m.exif = make_exif(o);
    m.facts = exif_read(&m.exif);
    m.xmp = copy_blob(xmp_text, strlen(xmp_text));
    snprintf(m.comment, sizeof(m.comment), "a cat on a sofa");
    snprintf(m.description, sizeof(m.description), "Chelsea, asleep");
    snprintf(m.date, sizeof(m.date), "2024-05-06T07:08:09");
    m.res = true;
    m.res_x = m.res_y = 300;
    return m;
}

/* ------------------------------------------------------------------------ */
/* Writers and readers: each format's own library */

static void write_png(const char *path, const vkfx_pixels *px, const tmeta *m)
{
    FILE *f = fopen(path, "wb");
    cr_assert(f, "%s: %s", path, strerror(errno));
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    cr_assert(png && info && !setjmp(png_jmpbuf(png)));
    png_init_io(png, f);
    int depth = px->sample == VKFX_SAMPLE_U16 ? 16 : 8;
    static const int types[] = {PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB,
                                PNG_COLOR_TYPE_RGB_ALPHA};
    png_set_IHDR(png, info, px->width, px->height, depth, types[px->channels - 1],
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    if (m->icc.data)
        png_set_iCCP(png, info, "test", 0, m->icc.data, (png_uint_32)m->icc.size);
    if (m->exif.data)
        png_set_eXIf_1(png, info, (png_uint_32)m->exif.size, m->exif.data);
    if (m->res)
        png_set_pHYs(png, info, (png_uint_32)lround(m->res_x / 0.0254),
                     (png_uint_32)lround(m->res_y / 0.0254), PNG_RESOLUTION_METER);
    png_text texts[4];
    int nt = 0;
    if (m->xmp.data)
        texts[nt++] = (png_text){.compression = PNG_ITXT_COMPRESSION_NONE,
                                 .key = "XML:com.adobe.xmp",
                                 .text = (char *)m->xmp.data,
                                 .itxt_length = m->xmp.size};
    if (m->comment[0])
        texts[nt++] = (png_text){.compression = PNG_TEXT_COMPRESSION_zTXt,
                                 .key = "Comment",
                                 .text = (char *)m->comment,
                                 .text_length = strlen(m->comment)};
    if (m->description[0])
        texts[nt++] = (png_text){.compression = PNG_TEXT_COMPRESSION_NONE,
                                 .key = "Description",
                                 .text = (char *)m->description,
                                 .text_length = strlen(m->description)};
    if (m->date[0])
        texts[nt++] = (png_text){.compression = PNG_TEXT_COMPRESSION_NONE,
                                 .key = "Creation Time",
                                 .text = (char *)m->date,
                                 .text_length = strlen(m->date)};
    if (nt)
        png_set_text(png, info, texts, nt);
    png_write_info(png, info);
    if (depth == 16)
        png_set_swap(png);
    size_t stride = (size_t)px->width * px->channels * vkfx_sample_size(px->sample);
    for (uint32_t y = 0; y < px->height; y++)
        png_write_row(png, (png_bytep)px->data + stride * y);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    fclose(f);
}

static void read_png(const char *path, tmeta *m, vkfx_pixels *px)
{
    memset(m, 0, sizeof(*m));
    FILE *f = fopen(path, "rb");
    cr_assert(f, "%s: %s", path, strerror(errno));
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    cr_assert(png && info);
    cr_assert(!setjmp(png_jmpbuf(png)), "%s: libpng refused it", path);
    png_init_io(png, f);
    png_read_info(png, info);
    png_charp name;
    int method;
    png_bytep data;
    png_uint_32 len;
    if (png_get_iCCP(png, info, &name, &method, &data, &len))
        m->icc = copy_blob(data, len);
    if (png_get_eXIf_1(png, info, &len, &data))
        m->exif = copy_blob(data, len);
    png_uint_32 x, y;
    int unit;
    if (png_get_pHYs(png, info, &x, &y, &unit) && unit == PNG_RESOLUTION_METER) {
        m->res = true;
        m->res_x = (unsigned)lround(x * 0.0254);
        m->res_y = (unsigned)lround(y * 0.0254);
    }
    png_textp texts;
    int nt = 0;
    png_get_text(png, info, &texts, &nt);
    for (int i = 0; i < nt; i++) {
        size_t n = texts[i].compression >= PNG_ITXT_COMPRESSION_NONE ? texts[i].itxt_length
                                                                      : texts[i].text_length;
        if (!strcmp(texts[i].key, "XML:com.adobe.xmp"))
            m->xmp = copy_blob(texts[i].text, n);
        else if (!strcmp(texts[i].key, "Comment"))
            snprintf(m->comment, sizeof(m->comment), "%s", texts[i].text);
        else if (!strcmp(texts[i].key, "Description"))
            snprintf(m->description, sizeof(m->description), "%s", texts[i].text);
        else if (!strcmp(texts[i].key, "Creation Time"))
            snprintf(m->date, sizeof(m->date), "%s", texts[i].text);
        m->exif_text |= !strcmp(texts[i].key, "Raw profile type exif");
    }
    m->facts = exif_read(&m->exif);
    if (px) {
        png_uint_32 w, h;
        int depth, type;
        png_get_IHDR(png, info, &w, &h, &depth, &type, NULL, NULL, NULL);
        if (depth == 16)
            png_set_swap(png);
        png_read_update_info(png, info);
        uint32_t channels = png_get_channels(png, info);
        cr_assert_eq(vkfx_pixels_alloc(px, w, h, channels,
                                       depth == 16 ? VKFX_SAMPLE_U16 : VKFX_SAMPLE_U8),
                     VKFX_OK);
        size_t stride = png_get_rowbytes(png, info);
        for (uint32_t r = 0; r < h; r++)
            png_read_row(png, (png_bytep)px->data + stride * r, NULL);
    }
    png_destroy_read_struct(&png, &info, NULL);
    fclose(f);
}

/* libjpeg writing a width x height image of colour space cs to path at
 * quality 95; the caller closes the file returned and destroys c. */
static FILE *jpeg_create(const char *path, struct jpeg_compress_struct *c,
                         struct jpeg_error_mgr *err, const vkfx_pixels *px, J_COLOR_SPACE cs)
{
    c->err = jpeg_std_error(err);
    jpeg_create_compress(c);
    FILE *f = fopen(path, "wb");
    cr_assert(f, "%s: %s", path, strerror(errno));
    jpeg_stdio_dest(c, f);
    c->image_width = px->width;
    c->image_height = px->height;
    c->input_components = cs == JCS_CMYK ? 4 : 3;
    c->in_color_space = cs;
    jpeg_set_defaults(c);
    jpeg_set_quality(c, 95, TRUE);
    return f;
}

static void write_jpeg(const char *path, const vkfx_pixels *px, const tmeta *m)
{
    struct jpeg_compress_struct c;
    struct jpeg_error_mgr err;
    FILE *f = jpeg_create(path, &c, &err, px, JCS_RGB);
    if (m->res) {
        c.density_unit = 1;
        c.X_density = (UINT16)m->res_x;
        c.Y_density = (UINT16)m->res_y;
    }
    jpeg_start_compress(&c, TRUE);
    if (m->exif.data) {
        unsigned char *e = malloc(m->exif.size + 6);
        memcpy(e, "Exif\0\0", 6);
        memcpy(e + 6, m->exif.data, m->exif.size);
        jpeg_write_marker(&c, JPEG_APP0 + 1, e, (unsigned)m->exif.size + 6);
        free(e);
    }
    if (m->xmp.data) {
        static const char id[] = "http://ns.adobe.com/xap/1.0/";
        unsigned char *e = malloc(m->xmp.size + sizeof(id));
        memcpy(e, id, sizeof(id));
        memcpy(e + sizeof(id), m->xmp.data, m->xmp.size);
        jpeg_write_marker(&c, JPEG_APP0 + 1, e, (unsigned)(m->xmp.size + sizeof(id)));
        free(e);
    }
    if (m->icc.data)
        jpeg_write_icc_profile(&c, m->icc.data, (unsigned)m->icc.size);
    for (uint32_t y = 0; y < px->height; y++) {
        JSAMPROW row = (unsigned char *)px->data + (size_t)y * px->width * 3;
        jpeg_write_scanlines(&c, &row, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    fclose(f);
}

/* libjpeg reading path's header, its APP1 and APP2 segments kept; the
 * caller closes the file returned and destroys d. */
static FILE *jpeg_open(const char *path, struct jpeg_decompress_struct *d,
                       struct jpeg_error_mgr *err)
{
    d->err = jpeg_std_error(err);
    jpeg_create_decompress(d);
    FILE *f = fopen(path, "rb");
    cr_assert(f, "%s: %s", path, strerror(errno));
    jpeg_stdio_src(d, f);
    jpeg_save_markers(d, JPEG_APP0 + 1, 0xffff);
    jpeg_save_markers(d, JPEG_APP0 + 2, 0xffff);
    jpeg_read_header(d, TRUE);
    return f;
}

/* The JPEG's metadata, and its stored pixels when px is given. */
static void read_jpeg(const char *path, tmeta *m, vkfx_pixels *px)
{
    memset(m, 0, sizeof(*m));
    struct jpeg_decompress_struct d;
    struct jpeg_error_mgr err;
    FILE *f = jpeg_open(path, &d, &err);
    static const char xmp_id[] = "http://ns.adobe.com/xap/1.0/";
    for (jpeg_saved_marker_ptr s = d.marker_list; s; s = s->next) {
        if (s->marker == JPEG_APP0 + 1 && s->data_length >= 6 && !memcmp(s->data, "Exif\0\0", 6))
            m->exif = copy_blob(s->data + 6, s->data_length - 6);
        if (s->marker == JPEG_APP0 + 1 && s->data_length >= sizeof(xmp_id) &&
            !memcmp(s->data, xmp_id, sizeof(xmp_id)))
            m->xmp = copy_blob(s->data + sizeof(xmp_id), s->data_length - sizeof(xmp_id));
    }
    JOCTET *icc;
    unsigned len;
    if (jpeg_read_icc_profile(&d, &icc, &len)) {
        m->icc = copy_blob(icc, len);
        free(icc);
    }
    if (d.saw_JFIF_marker && d.density_unit == 1) {
        m->res = true;
        m->res_x = d.X_density;
        m->res_y = d.Y_density;
    }
    m->facts = exif_read(&m->exif);
    if (px) {
        jpeg_start_decompress(&d);
        cr_assert_eq(vkfx_pixels_alloc(px, d.output_width, d.output_height,
                                       (uint32_t)d.output_components, VKFX_SAMPLE_U8),
                     VKFX_OK);
        while (d.output_scanline < d.output_height) {
            JSAMPROW row = (unsigned char *)px->data +
                           (size_t)d.output_scanline * d.output_width * d.output_components;
            jpeg_read_scanlines(&d, &row, 1);
        }
        jpeg_finish_decompress(&d);
    }
    jpeg_destroy_decompress(&d);
    fclose(f);
}

/* The TIFF with its EXIF as libtiff writes it (its custom-directory API):
 * Orientation and Artist in the image's directory, the rest in the Exif
 * directory; the texts as ImageDescription and DateTime. */
static void write_tiff(const char *path, const vkfx_pixels *px, const tmeta *m)
{
    TIFF *t = TIFFOpen(path, "w+");
    cr_assert(t);
    TIFFSetField(t, TIFFTAG_IMAGEWIDTH, px->width);
    TIFFSetField(t, TIFFTAG_IMAGELENGTH, px->height);
    TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, 3);
    TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, 8);
    TIFFSetField(t, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_RGB);
    TIFFSetField(t, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
    int o = m->tiff_orientation ? m->tiff_orientation : m->facts.orientation;
    if (o)
        TIFFSetField(t, TIFFTAG_ORIENTATION, (uint16_t)o);
    if (m->facts.artist[0])
        TIFFSetField(t, TIFFTAG_ARTIST, m->facts.artist);
    if (m->description[0])
        TIFFSetField(t, TIFFTAG_IMAGEDESCRIPTION, m->description);
    if (m->date[0]) {
        char date[24];
        snprintf(date, sizeof(date), "%s", m->date);
        date[4] = date[7] = ':';
        date[10] = ' ';
        TIFFSetField(t, TIFFTAG_DATETIME, date);
    }
    if (m->icc.data)
        TIFFSetField(t, TIFFTAG_ICCPROFILE, (uint32_t)m->icc.size, m->icc.data);
    if (m->xmp.data)
        TIFFSetField(t, TIFFTAG_XMLPACKET, (uint32_t)m->xmp.size, m->xmp.data);
    if (m->res) {
        TIFFSetField(t, TIFFTAG_XRESOLUTION, (float)m->res_x);
        TIFFSetField(t, TIFFTAG_YRESOLUTION, (float)m->res_y);
        TIFFSetField(t, TIFFTAG_RESOLUTIONUNIT, RESUNIT_INCH);
    }
    for (uint32_t y = 0; y < px->height; y++)
        cr_assert(TIFFWriteScanline(t, (unsigned char *)px->data + (size_t)y * px->width * 3, y,
                                    0) >= 0);
    if (m->facts.exposure > 0) {
        cr_assert(TIFFWriteDirectory(t));
        cr_assert_eq(TIFFCreateEXIFDirectory(t), 0);
        uint16_t iso = (uint16_t)m->facts.iso;
        cr_assert(TIFFSetField(t, EXIFTAG_EXPOSURETIME, m->facts.exposure));
        cr_assert(TIFFSetField(t, EXIFTAG_ISOSPEEDRATINGS, 1, &iso));
        cr_assert(TIFFSetField(t, EXIFTAG_DATETIMEORIGINAL, m->facts.original));
        uint64_t off = 0;
        cr_assert(TIFFWriteCustomDirectory(t, &off));
        cr_assert(TIFFSetDirectory(t, 0));
        cr_assert(TIFFSetField(t, TIFFTAG_EXIFIFD, off));
    }
    TIFFClose(t);
}

static void read_tiff(const char *path, tmeta *m)
{
    memset(m, 0, sizeof(*m));
    TIFF *t = TIFFOpen(path, "r");
    cr_assert(t, "%s: libtiff refused it", path);
    uint32_t n;
    void *d;
    if (TIFFGetField(t, TIFFTAG_ICCPROFILE, &n, &d))
        m->icc = copy_blob(d, n);
    if (TIFFGetField(t, TIFFTAG_XMLPACKET, &n, &d))
        m->xmp = copy_blob(d, n);
    uint16_t o, unit = 0;
    if (TIFFGetField(t, TIFFTAG_ORIENTATION, &o))
        m->tiff_orientation = o;
    float x, y;
    if (TIFFGetField(t, TIFFTAG_XRESOLUTION, &x) && TIFFGetField(t, TIFFTAG_YRESOLUTION, &y) &&
        TIFFGetField(t, TIFFTAG_RESOLUTIONUNIT, &unit) && unit == RESUNIT_INCH) {
        m->res = true;
        m->res_x = (unsigned)lroundf(x);
        m->res_y = (unsigned)lroundf(y);
    }
    const char *text;
    if (TIFFGetField(t, TIFFTAG_IMAGEDESCRIPTION, &text))
        snprintf(m->description, sizeof(m->description), "%s", text);
    if (TIFFGetField(t, TIFFTAG_DATETIME, &text))
        snprintf(m->date, sizeof(m->date), "%s", text);
    if (TIFFGetField(t, TIFFTAG_ARTIST, &text))
        snprintf(m->facts.artist, sizeof(m->facts.artist), "%s", text);
    m->facts.orientation = m->tiff_orientation;
    toff_t exif;
    if (TIFFGetField(t, TIFFTAG_EXIFIFD, &exif)) {
        cr_assert(TIFFReadEXIFDirectory(t, exif), "%s: libtiff cannot read its Exif directory",
                  path);
        /* libtiff keeps this rational as a float or a double, as its field table says */
        union {
            float f;
            double d;
        } exposure;
        uint16_t count, *iso;
        if (TIFFGetField(t, EXIFTAG_EXPOSURETIME, &exposure))
            m->facts.exposure =
                TIFFFieldSetGetSize(TIFFFieldWithTag(t, EXIFTAG_EXPOSURETIME)) == 4 ? exposure.f
                                                                                   : exposure.d;
        if (TIFFGetField(t, EXIFTAG_ISOSPEEDRATINGS, &count, &iso) && count == 1)
            m->facts.iso = iso[0];
        if (TIFFGetField(t, EXIFTAG_DATETIMEORIGINAL, &text))
            snprintf(m->facts.original, sizeof(m->facts.original), "%s", text);
    }
    TIFFClose(t);
}

static void write_webp(const char *path, const vkfx_pixels *px, const tmeta *m)
{
    uint8_t *enc = NULL;
    size_t n = WebPEncodeLosslessRGB(px->data, (int)px->width, (int)px->height,
                                     (int)px->width * 3, &enc);
    cr_assert(n);
    WebPMux *mux = WebPMuxCreate(&(WebPData){enc, n}, 1);
    cr_assert(mux);
    const blob *b[3] = {&m->icc, &m->exif, &m->xmp};
    static const char *const fourcc[3] = {"ICCP", "EXIF", "XMP "};
    for (int i = 0; i < 3; i++)
        if (b[i]->data)
            cr_assert_eq(
                WebPMuxSetChunk(mux, fourcc[i], &(WebPData){b[i]->data, b[i]->size}, 1),
                WEBP_MUX_OK);
    WebPData out;
    cr_assert_eq(WebPMuxAssemble(mux, &out), WEBP_MUX_OK);
    FILE *f = fopen(path, "wb");
    cr_assert(f && fwrite(out.bytes, 1, out.size, f) == out.size);
    fclose(f);
    WebPDataClear(&out);
    WebPMuxDelete(mux);
    WebPFree(enc);
}

static void read_webp(const char *path, tmeta *m)
{
    memset(m, 0, sizeof(*m));
    size_t size;
    char *data = tc_slurp(path, &size);
    cr_assert(data, "%s: unreadable", path);
    WebPDemuxer *dmx = WebPDemux(&(WebPData){(uint8_t *)data, size});
    cr_assert(dmx, "%s: libwebpdemux refused it", path);
    static const char *const fourcc[3] = {"ICCP", "EXIF", "XMP "};
    blob *b[3] = {&m->icc, &m->exif, &m->xmp};
    for (int i = 0; i < 3; i++) {
        WebPChunkIterator it;
        if (WebPDemuxGetChunk(dmx, fourcc[i], 1, &it)) {
            *b[i] = copy_blob(it.chunk.bytes, it.chunk.size);
            WebPDemuxReleaseChunkIterator(&it);
        }
    }
    WebPDemuxDelete(dmx);
    free(data);
    m->facts = exif_read(&m->exif);
}

typedef enum fmt { PNG, JPEG, TIFF_, WEBP, NFMT } fmt;
static const char *const ext[NFMT] = {"png", "jpg", "tif", "webp"};
/* What each format holds of full_meta's kinds: ICC, EXIF, XMP, the texts
 * TIFF has tags for (description, date), other text (the comment),
 * resolution. */
enum { KINDS = 6 };
static const bool holds[NFMT][KINDS] = {
    {1, 1, 1, 1, 1, 1},
    {1, 1, 1, 0, 0, 1},
    {1, 1, 1, 1, 0, 1},
    {1, 1, 1, 0, 0, 0},
};

static void write_any(fmt f, const char *path, const vkfx_pixels *px, const tmeta *m)
{
    switch (f) {
    case PNG:
        write_png(path, px, m);
        break;
    case JPEG:
        write_jpeg(path, px, m);
        break;
    case TIFF_:
        write_tiff(path, px, m);
        break;
    case WEBP:
        write_webp(path, px, m);
        break;
    case NFMT:
        break;
    }
}

static void read_any(fmt f, const char *path, tmeta *m)
{
    switch (f) {
    case PNG:
        read_png(path, m, NULL);
        break;
    case JPEG:
        read_jpeg(path, m, NULL);
        break;
    case TIFF_:
        read_tiff(path, m);
        break;
    case WEBP:
        read_webp(path, m);
        break;
    case NFMT:
        break;
    }
}

static void expect_ok(const cli_run *r)
{
    cr_assert_eq(r->status, 0, "%s: exit %d; stderr:\n%s", r->cmd, r->status, r->err);
}

/* ------------------------------------------------------------------------ */
/* Orientation */

/* The stored image px turned upright as EXIF orientation o says, composed
 * here from quarter turns clockwise and a left-right mirror. */
static void turn_cw(vkfx_pixels *px)
{
    size_t bpp = px->channels * vkfx_sample_size(px->sample);
    vkfx_pixels t = *px;
    cr_assert_eq(vkfx_pixels_alloc(&t, px->height, px->width, px->channels, px->sample), VKFX_OK);
    for (uint32_t y = 0; y < px->height; y++)
        for (uint32_t x = 0; x < px->width; x++) /* stored (x, y) lands on (h-1-y, x) */
            memcpy((unsigned char *)t.data + ((size_t)x * t.width + (px->height - 1 - y)) * bpp,
                   (unsigned char *)px->data + ((size_t)y * px->width + x) * bpp, bpp);
    free(px->data);
    *px = t;
}

static void mirror(vkfx_pixels *px)
{
    size_t bpp = px->channels * vkfx_sample_size(px->sample);
    unsigned char tmp[16];
    for (uint32_t y = 0; y < px->height; y++)
        for (uint32_t x = 0; x < px->width / 2; x++) {
            unsigned char *a = (unsigned char *)px->data + ((size_t)y * px->width + x) * bpp;
            unsigned char *b =
                (unsigned char *)px->data + ((size_t)y * px->width + px->width - 1 - x) * bpp;
            memcpy(tmp, a, bpp);
            memcpy(a, b, bpp);
            memcpy(b, tmp, bpp);
        }
}

static void upright(vkfx_pixels *px, int o)
{
    static const int turns[9] = {0, 0, 0, 2, 2, 1, 1, 3, 3};
    static const bool mirrored[9] = {0, 0, 1, 0, 1, 1, 0, 1, 0};
    for (int i = 0; i < turns[o]; i++)
        turn_cw(px);
    if (mirrored[o])
        mirror(px);
}

static void check_same(const vkfx_pixels *got, const vkfx_pixels *want, double tol,
                       const char *what)
{
    tc_diff d = tc_compare(got, want, tol);
    if (!tc_diff_ok(&d))
        tc_report(&d, what);
    cr_assert(tc_diff_ok(&d), "%s differs", what);
}

/* Eight files of one format, one per orientation, of the same 7x5 stored
 * pixels, through the identity chain to PNG: each comes out turned as the
 * reference turns it, its EXIF saying 1; with --no-autorotate, as stored
 * with its tag kept. */
static void orientations(fmt f)
{
    vkfx_pixels stored;
    tc_random_pixels(&stored, 7, 5, 3, VKFX_SAMPLE_U8, 24 + f);
    for (int o = 1; o <= 8; o++) {
        tmeta m = {0};
        if (f == TIFF_)
            m.tiff_orientation = o;
        else
            m.exif = make_exif(o);
        char name[32];
        snprintf(name, sizeof(name), "o%d.%s", o, ext[f]);
        write_any(f, tc_tpath(name), &stored, &m);
        tmeta_free(&m);
    }
    /* JPEG is lossy: the reference is what libjpeg decodes, turned */
    vkfx_pixels base = stored;
    tmeta ignored;
    if (f == JPEG) {
        read_jpeg(tc_tpath("o1.jpg"), &ignored, &base);
        tmeta_free(&ignored);
    }
    char pattern[80], json[80];
    snprintf(pattern, sizeof(pattern), "%s/o*.%s", tc_tmpdir, ext[f]);
    snprintf(json, sizeof(json), "--json=%s", tc_tpath("report.jsonl"));
    for (int keep = 0; keep < 2; keep++) {
        char out[96];
        snprintf(out, sizeof(out), "%s/{stem}-%d.png", tc_tmpdir, keep);
        cli_run r;
        const char *ins[8];
        char paths[8][80];
        for (int o = 1; o <= 8; o++) {
            snprintf(paths[o - 1], sizeof(paths[0]), "%s/o%d.%s", tc_tmpdir, o, ext[f]);
            ins[o - 1] = paths[o - 1];
        }
        VKFX(&r, ins[0], ins[1], ins[2], ins[3], ins[4], ins[5], ins[6], ins[7], "-f",
             "box:radius=0", "-o", out, "--precision", "32", json,
             keep ? "--no-autorotate" : "--precision", keep ? "--strip" : "32");
        expect_ok(&r);
        for (int o = 1; o <= 8; o++) {
            char got_path[96], what[96];
            snprintf(got_path, sizeof(got_path), "%s/o%d-%d.png", tc_tmpdir, o, keep);
            vkfx_pixels got, want;
            tmeta gm;
            read_png(got_path, &gm, &got);
            cr_assert_eq(tc_crop(&base, 0, 0, base.width, base.height, &want), VKFX_OK);
            if (!keep)
                upright(&want, o);
            snprintf(what, sizeof(what), "%s orientation %d%s", ext[f], o,
                     keep ? " --no-autorotate" : "");
            check_same(&got, &want, 0, what);
            if (!keep && f != TIFF_)
                cr_expect_eq(exif_orientation(&gm.exif), 1, "%s: the kept EXIF says %d", what,
                             exif_orientation(&gm.exif));
            if (keep)
                cr_expect_null(gm.exif.data, "%s --strip: EXIF written", what);
            tmeta_free(&gm);
            vkfx_pixels_free(&got);
            vkfx_pixels_free(&want);
        }
        /* the report says what was applied */
        size_t n;
        char *rep = tc_slurp(tc_tpath("report.jsonl"), &n);
        cr_assert(rep);
        cr_expect(strstr(rep, keep ? "\"orientation\": {\"stored\": 6, \"applied\": 1}"
                                   : "\"orientation\": {\"stored\": 6, \"applied\": 6}"),
                  "report: %s", rep);
        free(rep);
        run_free(&r);
    }
    if (f == JPEG)
        vkfx_pixels_free(&base);
    vkfx_pixels_free(&stored);
}

Test(photo, orientations_jpeg) { orientations(JPEG); }
Test(photo, orientations_png) { orientations(PNG); }
Test(photo, orientations_tiff) { orientations(TIFF_); }
Test(photo, orientations_webp) { orientations(WEBP); }

/* --no-autorotate keeps the stored tag in a TIFF written from a TIFF. */
Test(photo, tiff_keeps_its_stored_tag)
{
    vkfx_pixels px;
    tc_random_pixels(&px, 6, 4, 3, VKFX_SAMPLE_U8, 5);
    tmeta m = {.tiff_orientation = 8};
    write_tiff(tc_tpath("in.tif"), &px, &m);
    cli_run r;
    VKFX(&r, tc_tpath("in.tif"), "-f", "box:radius=0", "-o", tc_tpath("kept.tif"),
         "--no-autorotate");
    expect_ok(&r);
    run_free(&r);
    VKFX(&r, tc_tpath("in.tif"), "-f", "box:radius=0", "-o", tc_tpath("turned.tif"));
    expect_ok(&r);
    run_free(&r);
    tmeta got;
    read_tiff(tc_tpath("kept.tif"), &got);
    cr_expect_eq(got.tiff_orientation, 8);
    read_tiff(tc_tpath("turned.tif"), &got);
    cr_expect_eq(got.tiff_orientation, 1);
    vkfx_pixels_free(&px);
}

/* A depth map turned by its own EXIF: stored 9x6 with orientation 6 it is
 * upright 6x9, the image's size; the same map without the tag is refused. */
Test(photo, depth_map_follows_its_own_orientation)
{
    vkfx_pixels img, map;
    tc_random_pixels(&img, 6, 9, 3, VKFX_SAMPLE_U8, 1);
    tc_random_pixels(&map, 9, 6, 1, VKFX_SAMPLE_U8, 2);
    tmeta none = {0}, turned = {.exif = make_exif(6)};
    write_png(tc_tpath("img.png"), &img, &none);
    write_png(tc_tpath("depth.png"), &map, &turned);
    write_png(tc_tpath("flat.png"), &map, &none);
    char spec[160];
    snprintf(spec, sizeof(spec), "satdof:depth=%s:maxcoc=2", tc_tpath("depth.png"));
    cli_run r;
    VKFX(&r, tc_tpath("img.png"), "-f", spec, "-o", tc_tpath("out.png"));
    expect_ok(&r);
    run_free(&r);
    snprintf(spec, sizeof(spec), "satdof:depth=%s:maxcoc=2", tc_tpath("flat.png"));
    VKFX(&r, tc_tpath("img.png"), "-f", spec, "-o", tc_tpath("out2.png"));
    cr_expect_neq(r.status, 0, "a 9x6 map for a 6x9 image was taken");
    run_free(&r);
    tmeta_free(&turned);
    vkfx_pixels_free(&img);
    vkfx_pixels_free(&map);
}

/* ------------------------------------------------------------------------ */
/* Metadata through every pair of formats */

static void expect_meta(const tmeta *got, const tmeta *want, fmt in, fmt out, bool strip)
{
    bool k[KINDS];
    for (int i = 0; i < KINDS; i++)
        k[i] = !strip && holds[in][i] && holds[out][i];
    /* the input's EXIF says 1 already: it comes out the same, byte for byte
     * where neither side is a TIFF (whose tags and directories it becomes) */
    const char *what = strip ? " --strip" : "";
    exif_facts facts = {0};
    if (k[1])
        facts = want->facts;
    if (out == TIFF_) /* every TIFF vkfx writes has the tag */
        facts.orientation = 1;
    cr_expect(k[0] ? same_blob(&got->icc, &want->icc) : !got->icc.data,
              "%s to %s%s: ICC profile of %zu bytes", ext[in], ext[out], what, got->icc.size);
    cr_expect(same_facts(&got->facts, &facts),
              "%s to %s%s: EXIF orientation %d, artist '%s', exposure %g, ISO %u, taken '%s'",
              ext[in], ext[out], what, got->facts.orientation, got->facts.artist,
              got->facts.exposure, got->facts.iso, got->facts.original);
    if (in != TIFF_ && out != TIFF_)
        cr_expect(k[1] ? same_blob(&got->exif, &want->exif) : !got->exif.data,
                  "%s to %s%s: EXIF of %zu bytes", ext[in], ext[out], what, got->exif.size);
    cr_expect(k[2] ? same_blob(&got->xmp, &want->xmp) : !got->xmp.data,
              "%s to %s%s: XMP of %zu bytes", ext[in], ext[out], what, got->xmp.size);
    /* TIFF keeps the date in its own form */
    const char *date = out == TIFF_ ? "2024:05:06 07:08:09" : want->date;
    cr_expect(k[3] ? !strcmp(got->description, want->description) && !strcmp(got->date, date)
                   : !got->description[0] && !got->date[0],
              "%s to %s%s: description '%s', date '%s'", ext[in], ext[out], what,
              got->description, got->date);
    cr_expect(k[4] ? !strcmp(got->comment, want->comment) : !got->comment[0],
              "%s to %s%s: text '%s'", ext[in], ext[out], what, got->comment);
    cr_expect(k[5] ? got->res && got->res_x == 300 && got->res_y == 300 : !got->res,
              "%s to %s%s: resolution %u x %u", ext[in], ext[out], what, got->res_x, got->res_y);
}

static void pairs(bool strip)
{
    vkfx_pixels px;
    tc_random_pixels(&px, 5, 4, 3, VKFX_SAMPLE_U8, 9);
    tmeta m = full_meta(1);
    char ins[NFMT][80];
    for (int f = 0; f < NFMT; f++) {
        snprintf(ins[f], sizeof(ins[f]), "%s/in_%s.%s", tc_tmpdir, ext[f], ext[f]);
        write_any((fmt)f, ins[f], &px, &m);
    }
    for (int out = 0; out < NFMT; out++) {
        char tmpl[96];
        snprintf(tmpl, sizeof(tmpl), "%s/{stem}-out.%s", tc_tmpdir, ext[out]);
        cli_run r;
        VKFX(&r, ins[0], ins[1], ins[2], ins[3], "-f", "box:radius=0", "-o", tmpl,
             strip ? "--strip" : "--lossless");
        expect_ok(&r);
        /* a format that cannot hold some of it says so, once a run */
        bool drops = false;
        for (int in = 0; in < NFMT; in++)
            for (int k = 0; k < KINDS; k++)
                drops |= !strip && holds[in][k] && !holds[out][k];
        cr_expect(drops == (strstr(r.err, "dropped (noted once a run)") != NULL), "%s: stderr:\n%s",
                  r.cmd, r.err);
        cr_expect(!strstr(r.err, "dropped") || !strstr(strstr(r.err, "dropped") + 1, "dropped"),
                  "more than one note: %s", r.err);
        run_free(&r);
        for (int in = 0; in < NFMT; in++) {
            char path[96];
            snprintf(path, sizeof(path), "%s/in_%s-out.%s", tc_tmpdir, ext[in], ext[out]);
            tmeta got;
            read_any((fmt)out, path, &got);
            expect_meta(&got, &m, (fmt)in, (fmt)out, strip);
            tmeta_free(&got);
        }
    }
    tmeta_free(&m);
    vkfx_pixels_free(&px);
}

Test(photo, metadata_through_every_pair_of_formats) { pairs(false); }
Test(photo, strip_drops_all_of_it) { pairs(true); }

/* A job file carries each input's own metadata to its own output. */
Test(photo, job_file_keeps_each_inputs_own)
{
    vkfx_pixels px;
    tc_random_pixels(&px, 5, 4, 3, VKFX_SAMPLE_U8, 3);
    tmeta a = full_meta(1), b = {0};
    snprintf(b.comment, sizeof(b.comment), "the other one");
    write_png(tc_tpath("a.png"), &px, &a);
    write_png(tc_tpath("b.png"), &px, &b);
    FILE *f = fopen(tc_tpath("jobs"), "w");
    cr_assert(f);
    fprintf(f, "%s -f box:radius=0 -o %s\n%s -f box:radius=1 -o %s\n", tc_tpath("a.png"),
            tc_tpath("a-out.png"), tc_tpath("b.png"), tc_tpath("b-out.png"));
    fclose(f);
    cli_run r;
    VKFX(&r, "run", tc_tpath("jobs"));
    expect_ok(&r);
    run_free(&r);
    tmeta ga, gb;
    read_png(tc_tpath("a-out.png"), &ga, NULL);
    read_png(tc_tpath("b-out.png"), &gb, NULL);
    expect_meta(&ga, &a, PNG, PNG, false);
    cr_expect_str_eq(gb.comment, "the other one");
    cr_expect_null(gb.icc.data);
    cr_expect_null(gb.exif.data);
    tmeta_free(&ga);
    tmeta_free(&gb);
    tmeta_free(&a);
    vkfx_pixels_free(&px);
}

/* ------------------------------------------------------------------------ */
/* Linear light through the profile's own curves */

typedef struct curve {
    double gamma;         /* > 0: c^gamma */
    const uint16_t *table; /* else a sampled curve, linear between entries */
    uint32_t n;
} curve;

static double curve_decode(const curve *c, double v)
{
    if (c->gamma > 0)
        return pow(v, c->gamma);
    double pos = v * (c->n - 1);
    uint32_t i = pos >= c->n - 1 ? c->n - 2 : (uint32_t)pos;
    return (c->table[i] + (pos - i) * ((double)c->table[i + 1] - c->table[i])) / 65535.0;
}

/* A profile's code of v as FILTERS.md "Colour profiles" defines it: the code k
 * whose k/max is nearest to the curve's inverse of v (bisection on the curve). */
static uint32_t curve_encode(const curve *c, double v, uint32_t max)
{
    v = v < 0 ? 0 : v > 1 ? 1 : v;
    double lo = 0, hi = 1;
    for (int i = 0; i < 60; i++) {
        double mid = (lo + hi) / 2;
        if (curve_decode(c, mid) < v)
            lo = mid;
        else
            hi = mid;
    }
    return (uint32_t)floor(lo * max + 0.5);
}

#define BOX_RADIUS 4
/* box:radius=4 on straight RGB or gray without alpha, clamp-to-edge, in the
 * curve's linear light, back through the curve. */
static void ref_box(const vkfx_pixels *in, const curve *c, vkfx_pixels *out)
{
    uint32_t w = in->width, h = in->height, n = in->channels;
    bool u16 = in->sample == VKFX_SAMPLE_U16;
    uint32_t max = u16 ? 65535 : 255;
    cr_assert_eq(vkfx_pixels_alloc(out, w, h, n, in->sample), VKFX_OK);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++)
            for (uint32_t ch = 0; ch < n; ch++) {
                double sum = 0;
                for (int dy = -BOX_RADIUS; dy <= BOX_RADIUS; dy++)
                    for (int dx = -BOX_RADIUS; dx <= BOX_RADIUS; dx++) {
                        int sx = (int)x + dx, sy = (int)y + dy;
                        sx = sx < 0 ? 0 : sx >= (int)w ? (int)w - 1 : sx;
                        sy = sy < 0 ? 0 : sy >= (int)h ? (int)h - 1 : sy;
                        size_t i = ((size_t)sy * w + (size_t)sx) * n + ch;
                        uint32_t code = u16 ? ((uint16_t *)in->data)[i] : ((uint8_t *)in->data)[i];
                        sum += curve_decode(c, (double)code / max);
                    }
                uint32_t k = curve_encode(c, sum / ((2 * BOX_RADIUS + 1) * (2 * BOX_RADIUS + 1)), max);
                size_t o = ((size_t)y * w + x) * n + ch;
                if (u16)
                    ((uint16_t *)out->data)[o] = (uint16_t)k;
                else
                    ((uint8_t *)out->data)[o] = (uint8_t)k;
            }
}

/* A photo crop at an awkward size with profile icc through box:radius=4 at
 * both precisions: within a code of the reference through the curve, the
 * profile kept; without the profile (sRGB) the result is further off. */
static void linearised_one(const blob *icc, const curve *c, uint32_t channels, vkfx_sample s,
                           bool photo_crop, const char *what)
{
    vkfx_pixels photo, px;
    cr_assert_eq(tc_load_photo("coffee.png", &photo), VKFX_OK);
    if (photo_crop)
        cr_assert_eq(tc_crop(&photo, 101, 57, 37, 23, &px), VKFX_OK);
    else /* sparse bright points on near black: where the curves differ most from sRGB's */
        tc_random_pixels(&px, 29, 31, 3, VKFX_SAMPLE_U8, 31);
    for (size_t i = 0; !photo_crop && i < vkfx_pixels_bytes(&px); i++) {
        uint8_t r = ((uint8_t *)px.data)[i];
        ((uint8_t *)px.data)[i] = (r & 15) == 0 ? 255 : r & 7;
    }
    if (channels == 1) { /* its green channel as a gray photo */
        vkfx_pixels gray;
        cr_assert_eq(vkfx_pixels_alloc(&gray, px.width, px.height, 1, VKFX_SAMPLE_U8), VKFX_OK);
        for (size_t i = 0; i < (size_t)px.width * px.height; i++)
            ((uint8_t *)gray.data)[i] = ((uint8_t *)px.data)[3 * i + 1];
        vkfx_pixels_free(&px);
        px = gray;
    }
    if (s == VKFX_SAMPLE_U16) { /* 16-bit: spread the 8-bit codes with a random low byte */
        vkfx_pixels wide, noise;
        tc_random_pixels(&noise, px.width, px.height, channels, VKFX_SAMPLE_U8, 77);
        cr_assert_eq(vkfx_pixels_alloc(&wide, px.width, px.height, channels, s), VKFX_OK);
        for (size_t i = 0; i < (size_t)px.width * px.height * channels; i++)
            ((uint16_t *)wide.data)[i] =
                (uint16_t)(((uint8_t *)px.data)[i] << 8 | ((uint8_t *)noise.data)[i]);
        vkfx_pixels_free(&noise);
        vkfx_pixels_free(&px);
        px = wide;
    }
    tmeta m = {.icc = *icc}, none = {0};
    write_png(tc_tpath("lin.png"), &px, &m);
    write_png(tc_tpath("srgb.png"), &px, &none);
    vkfx_pixels want;
    ref_box(&px, c, &want);
    static const char *const precisions[] = {"16", "32"};
    for (int p = 0; p < 2; p++) {
        cli_run r;
        VKFX(&r, tc_tpath("lin.png"), tc_tpath("srgb.png"), "-f", "box:radius=4", "-o",
             tc_tpath("{stem}-out.png"), "--precision", precisions[p]);
        expect_ok(&r);
        run_free(&r);
        vkfx_pixels got, plain;
        tmeta gm, pm;
        read_png(tc_tpath("lin-out.png"), &gm, &got);
        read_png(tc_tpath("srgb-out.png"), &pm, &plain);
        char label[128];
        snprintf(label, sizeof(label), "%s, --precision %s", what, precisions[p]);
        /* rgba32f: a code where the float sums land next to a rounding threshold;
         * rgba16f rounds linear light to 11 bits, which moves an 8-bit code by one and a
         * 16-bit one by tens */
        double tol = p == 0 && s == VKFX_SAMPLE_U16 ? 48 : 1;
        check_same(&got, &want, tol, label);
        cr_expect(same_blob(&gm.icc, icc), "%s: the profile is not kept", label);
        /* random pixels: the curves matter by more than the tolerance */
        tc_diff d = tc_compare(&plain, &want, 0);
        cr_expect(photo_crop || d.max_abs > tol,
                  "%s: the sRGB result is as close (%g): the test cannot fail", label, d.max_abs);
        vkfx_pixels_free(&got);
        vkfx_pixels_free(&plain);
        tmeta_free(&gm);
        tmeta_free(&pm);
    }
    vkfx_pixels_free(&want);
    vkfx_pixels_free(&px);
    vkfx_pixels_free(&photo);
}

static void linearised(const blob *icc, const curve *c, uint32_t channels, vkfx_sample s,
                       const char *what)
{
    char label[96];
    snprintf(label, sizeof(label), "%s, random", what);
    linearised_one(icc, c, channels, s, false, label);
    snprintf(label, sizeof(label), "%s, coffee.png 37x23", what);
    linearised_one(icc, c, channels, s, true, label);
}

Test(photo, adobe_rgb_linearised_with_its_gamma)
{
    size_t n;
    char *data = tc_slurp(VKFX_SOURCE_ROOT "/tests/data/compatibleWithAdobeRGB1998.icc", &n);
    cr_assert(data);
    blob icc = {(unsigned char *)data, n};
    curve c = {.gamma = 563.0 / 256};
    linearised(&icc, &c, 3, VKFX_SAMPLE_U8, "Adobe RGB, 8-bit");
    linearised(&icc, &c, 3, VKFX_SAMPLE_U16, "Adobe RGB, 16-bit");
    free(data);
}

Test(photo, gray_gamma_profile)
{
    blob icc = gray_profile(cmsBuildGamma(NULL, 1.8));
    curve c = {.gamma = 1.8};
    linearised(&icc, &c, 1, VKFX_SAMPLE_U8, "gray gamma 1.8");
    free(icc.data);
}

Test(photo, sampled_curve_profile)
{
    /* 17 entries of an S-shaped curve: far from any gamma */
    static uint16_t table[17];
    for (int i = 0; i < 17; i++) {
        double v = i / 16.0;
        table[i] = (uint16_t)lround(65535 * (v < 0.5 ? 2 * v * v : 1 - 2 * (1 - v) * (1 - v)));
    }
    blob icc = rgb_profile(cmsBuildTabulatedToneCurve16(NULL, 17, table));
    curve c = {.table = table, .n = 17};
    linearised(&icc, &c, 3, VKFX_SAMPLE_U8, "sampled curve");
    free(icc.data);
}

/* A profile whose curves are sRGB's (lcms2's own sRGB profile, and the
 * photos' sampled ones) gives exactly what no profile gives. */
Test(photo, srgb_profile_is_the_srgb_path)
{
    vkfx_pixels photo;
    cr_assert_eq(tc_load_photo("chelsea.png", &photo), VKFX_OK);
    tmeta m = {.icc = save_profile(cmsCreate_sRGBProfile())}, none = {0};
    write_png(tc_tpath("p.png"), &photo, &m);
    write_png(tc_tpath("q.png"), &photo, &none);
    cli_run r;
    VKFX(&r, tc_tpath("p.png"), tc_tpath("q.png"), VKFX_TEST_IMAGES "/chelsea.png", "-f",
         "gauss:sigma=2", "-o", tc_tpath("{stem}-out.png"));
    expect_ok(&r);
    run_free(&r);
    vkfx_pixels a, b, c;
    tmeta ma, mb, mc;
    read_png(tc_tpath("p-out.png"), &ma, &a);
    read_png(tc_tpath("q-out.png"), &mb, &b);
    read_png(tc_tpath("chelsea-out.png"), &mc, &c);
    check_same(&a, &b, 0, "chelsea with lcms2's sRGB profile");
    check_same(&c, &b, 0, "chelsea.png with its own profile");
    tmeta_free(&ma);
    tmeta_free(&mb);
    tmeta_free(&mc);
    tmeta_free(&m);
    vkfx_pixels_free(&a);
    vkfx_pixels_free(&b);
    vkfx_pixels_free(&c);
    vkfx_pixels_free(&photo);
}

/* got is 8-bit RGB px under the profile icc taken to sRGB by lcms2 (relative colorimetric),
 * and that changes px. */
static void expect_srgb_of(const vkfx_pixels *got, const vkfx_pixels *px, const blob *icc,
                           const char *what)
{
    vkfx_pixels want;
    cr_assert_eq(tc_crop(px, 0, 0, px->width, px->height, &want), VKFX_OK);
    cmsHPROFILE src = cmsOpenProfileFromMem(icc->data, (cmsUInt32Number)icc->size),
                dst = cmsCreate_sRGBProfile();
    cmsHTRANSFORM xf =
        cmsCreateTransform(src, TYPE_RGB_8, dst, TYPE_RGB_8, INTENT_RELATIVE_COLORIMETRIC, 0);
    cr_assert(xf, "%s: lcms2 makes no transform", what);
    cmsDoTransform(xf, px->data, want.data, px->width * px->height);
    cmsDeleteTransform(xf);
    cmsCloseProfile(src);
    cmsCloseProfile(dst);
    check_same(got, &want, 0, what);
    tc_diff d = tc_compare(got, px, 0);
    cr_expect_gt(d.max_abs, 2, "%s changed nothing: the test cannot fail", what);
    vkfx_pixels_free(&want);
}

static cmsHTRANSFORM rgb_lut_srgb_to_lab, cmyk_sampler_srgb_to_lab;

/* A table entry of an RGB profile whose colour is sRGB's of each sample to the power of
 * 1.6 (far from what sRGB reads), in Lab (ICC's 16-bit encoding). */
static cmsInt32Number rgb_lut_sample(const cmsUInt16Number in[], cmsUInt16Number out[], void *user)
{
    (void)user;
    cmsFloat32Number rgb[3];
    cmsCIELab lab;
    for (int c = 0; c < 3; c++)
        rgb[c] = (cmsFloat32Number)pow(in[c] / 65535.0, 1.6);
    cmsDoTransform(rgb_lut_srgb_to_lab, rgb, &lab, 1);
    cmsFloat2LabEncoded(out, &lab);
    return TRUE;
}

/* A profile of an AToB0 table alone (points a side, sample filling it; identity curves
 * around it, as lutAtoBType holds A curves, the table, B curves) into Lab: no tone curves. */
static blob lut_profile(cmsProfileClassSignature cls, cmsColorSpaceSignature space, int in,
                        int points, cmsSAMPLER16 sample, cmsHTRANSFORM *srgb_to_lab)
{
    cmsHPROFILE srgb = cmsCreate_sRGBProfile(), lab = cmsCreateLab4Profile(NULL);
    *srgb_to_lab =
        cmsCreateTransform(srgb, TYPE_RGB_FLT, lab, TYPE_Lab_DBL, INTENT_RELATIVE_COLORIMETRIC, 0);
    cmsHPROFILE p = cmsCreateProfilePlaceholder(NULL);
    cr_assert(p && *srgb_to_lab);
    cmsSetProfileVersion(p, 4.3);
    cmsSetDeviceClass(p, cls);
    cmsSetColorSpace(p, space);
    cmsSetPCS(p, cmsSigLabData);
    cmsPipeline *lut = cmsPipelineAlloc(NULL, in, 3);
    cmsStage *clut = cmsStageAllocCLut16bit(NULL, points, in, 3, NULL);
    cr_assert(lut && clut && cmsStageSampleCLut16bit(clut, sample, NULL, 0));
    cmsPipelineInsertStage(lut, cmsAT_END, cmsStageAllocToneCurves(NULL, in, NULL));
    cmsPipelineInsertStage(lut, cmsAT_END, clut);
    cmsPipelineInsertStage(lut, cmsAT_END, cmsStageAllocToneCurves(NULL, 3, NULL));
    cr_assert(cmsWriteTag(p, cmsSigAToB0Tag, lut));
    cr_assert(cmsWriteTag(p, cmsSigMediaWhitePointTag, cmsD50_XYZ()));
    cmsPipelineFree(lut);
    cmsDeleteTransform(*srgb_to_lab);
    cmsCloseProfile(srgb);
    cmsCloseProfile(lab);
    return save_profile(p);
}

/* A display-class RGB profile of a table (17 points a side). */
static blob rgb_lut_profile(void)
{
    return lut_profile(cmsSigDisplayClass, cmsSigRgbData, 3, 17, rgb_lut_sample,
                       &rgb_lut_srgb_to_lab);
}

/* A profile whose colour is a LUT (no tone curves to linearise with) goes to sRGB through
 * lcms2, as --to-srgb takes it, with a note; the output has no profile. */
Test(photo, lut_profile_converted_to_srgb)
{
    vkfx_pixels px;
    tc_random_pixels(&px, 7, 5, 3, VKFX_SAMPLE_U8, 9);
    tmeta m_in = {.icc = rgb_lut_profile()};
    write_png(tc_tpath("lutonly.png"), &px, &m_in);
    cli_run r;
    VKFX(&r, tc_tpath("lutonly.png"), "-f", "box:radius=0", "-o", tc_tpath("lutonly-out.png"));
    expect_ok(&r);
    cr_expect(strstr(r.err, "lutonly.png: its ICC profile has no tone curves") &&
                  strstr(r.err, "converted to sRGB"),
              "stderr: %s", r.err);
    run_free(&r);
    vkfx_pixels got;
    tmeta mo;
    read_png(tc_tpath("lutonly-out.png"), &mo, &got);
    cr_expect_null(mo.icc.data, "the LUT profile was written with sRGB pixels");
    expect_srgb_of(&got, &px, &m_in.icc, "LUT profile");
    tmeta_free(&mo);
    tmeta_free(&m_in);
    vkfx_pixels_free(&got);
    vkfx_pixels_free(&px);
}

/* A profile lcms2 cannot use either is read as sRGB with a note, and not written; --to-srgb
 * converts and writes no profile; --no-linearize keeps values and profile. */
Test(photo, unusable_profile_and_to_srgb)
{
    /* an RGB profile without its tone curve tags and no LUT in their place */
    vkfx_pixels px;
    tc_random_pixels(&px, 5, 4, 3, VKFX_SAMPLE_U8, 4);
    cmsHPROFILE lut = cmsCreate_sRGBProfile();
    cr_assert(cmsWriteTag(lut, cmsSigRedTRCTag, NULL) && cmsWriteTag(lut, cmsSigGreenTRCTag, NULL) &&
              cmsWriteTag(lut, cmsSigBlueTRCTag, NULL));
    tmeta m = {.icc = save_profile(lut)};
    write_png(tc_tpath("lut.png"), &px, &m);
    cli_run r;
    VKFX(&r, tc_tpath("lut.png"), "-f", "box:radius=0", "-o", tc_tpath("x.png"));
    expect_ok(&r);
    cr_expect(strstr(r.err, "note: ") && strstr(r.err, "lut.png: ") &&
                  strstr(r.err, "ICC profile") && strstr(r.err, "read as sRGB"),
              "stderr: %s", r.err);
    run_free(&r);
    {
        vkfx_pixels as_srgb;
        tmeta ms;
        read_png(tc_tpath("x.png"), &ms, &as_srgb);
        cr_expect_null(ms.icc.data, "the unusable profile was written");
        check_same(&as_srgb, &px, 0, "unusable profile read as sRGB, identity chain");
        tmeta_free(&ms);
        vkfx_pixels_free(&as_srgb);
    }
    tmeta_free(&m);

    /* Adobe RGB to sRGB: the profile goes, the colours change */
    size_t n;
    char *data = tc_slurp(VKFX_SOURCE_ROOT "/tests/data/compatibleWithAdobeRGB1998.icc", &n);
    m = (tmeta){.icc = {(unsigned char *)data, n}};
    write_png(tc_tpath("adobe.png"), &px, &m);
    VKFX(&r, tc_tpath("adobe.png"), "-f", "box:radius=0", "-o", tc_tpath("conv.png"), "--to-srgb");
    expect_ok(&r);
    run_free(&r);
    VKFX(&r, tc_tpath("adobe.png"), "-f", "box:radius=0", "-o", tc_tpath("kept.png"),
         "--no-linearize");
    expect_ok(&r);
    run_free(&r);
    vkfx_pixels conv, kept;
    tmeta mc, mk;
    read_png(tc_tpath("conv.png"), &mc, &conv);
    read_png(tc_tpath("kept.png"), &mk, &kept);
    cr_expect_null(mc.icc.data, "--to-srgb kept the profile");
    cr_expect(same_blob(&mk.icc, &m.icc), "--no-linearize dropped the profile");
    check_same(&kept, &px, 0, "--no-linearize, identity chain");
    /* the sRGB reference through lcms2 itself */
    expect_srgb_of(&conv, &px, &m.icc, "--to-srgb");
    tmeta_free(&mc);
    tmeta_free(&mk);
    tmeta_free(&m);
    vkfx_pixels_free(&conv);
    vkfx_pixels_free(&kept);
    vkfx_pixels_free(&px);
}

/* ------------------------------------------------------------------------ */
/* What JPEG holds in more than one segment, and what it cannot hold */

static const char big_xmp_head[] =
    "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/"
    "22-rdf-syntax-ns#\"><rdf:Description rdf:about=\"\" xmlns:dc=\"http://purl.org/dc/elements/"
    "1.1/\" dc:creator=\"Photo Cat\"/><rdf:Description rdf:about=\"\" xmlns:photoshop=\"http://"
    "ns.adobe.com/photoshop/1.0/\"><photoshop:History>";
static const char big_xmp_tail[] = "</photoshop:History></rdf:Description></rdf:RDF></x:xmpmeta>";
#define BIG_XMP_BODY 150000
/* MD5 of the packet below, from Python's hashlib */
#define BIG_XMP_GUID "51CC7D2BCE97C0111982E8998B9F88DC"

/* An XMP packet of 150361 bytes: over two segments' worth. */
static blob big_xmp(void)
{
    size_t h = strlen(big_xmp_head), t = strlen(big_xmp_tail);
    char *x = malloc(h + BIG_XMP_BODY + t + 1);
    cr_assert(x);
    memcpy(x, big_xmp_head, h);
    for (size_t i = 0; i < BIG_XMP_BODY; i++)
        x[h + i] = (char)('a' + i * 7 % 26);
    memcpy(x + h + BIG_XMP_BODY, big_xmp_tail, t + 1);
    blob b = copy_blob(x, h + BIG_XMP_BODY + t);
    free(x);
    return b;
}

/* A JPEG's APP1 segments as libjpeg reads them. */
typedef struct app1s {
    unsigned n;
    blob seg[16];
} app1s;

static app1s read_app1(const char *path)
{
    app1s a = {0};
    struct jpeg_decompress_struct d;
    struct jpeg_error_mgr err;
    FILE *f = jpeg_open(path, &d, &err);
    for (jpeg_saved_marker_ptr s = d.marker_list; s && a.n < 16; s = s->next)
        if (s->marker == JPEG_APP0 + 1)
            a.seg[a.n++] = copy_blob(s->data, s->data_length);
    jpeg_destroy_decompress(&d);
    fclose(f);
    return a;
}

static void app1s_free(app1s *a)
{
    for (unsigned i = 0; i < a->n; i++)
        free(a->seg[i].data);
}

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* XMP over one segment is Adobe's extended XMP: a standard packet naming the
 * MD5 of the extension, the extension in pieces that reassemble into the
 * packet; read back into one packet with every description; with a piece
 * gone, the standard packet alone. */
Test(photo, jpeg_extended_xmp)
{
    vkfx_pixels px;
    tc_random_pixels(&px, 5, 4, 3, VKFX_SAMPLE_U8, 12);
    tmeta m = {.xmp = big_xmp()};
    write_png(tc_tpath("big.png"), &px, &m);
    cli_run r;
    VKFX(&r, tc_tpath("big.png"), "-f", "box:radius=0", "-o", tc_tpath("big.jpg"));
    expect_ok(&r);
    cr_expect(!strstr(r.err, "dropped"), "stderr: %s", r.err);
    run_free(&r);
    app1s a = read_app1(tc_tpath("big.jpg"));
    static const char xmp_id[] = "http://ns.adobe.com/xap/1.0/";
    static const char ext_id[] = "http://ns.adobe.com/xmp/extension/";
    unsigned char *whole = calloc(1, m.xmp.size);
    size_t covered = 0;
    bool standard = false;
    for (unsigned i = 0; i < a.n; i++) {
        const blob *s = &a.seg[i];
        if (s->size >= sizeof(xmp_id) && !memcmp(s->data, xmp_id, sizeof(xmp_id))) {
            cr_expect_leq(s->size - sizeof(xmp_id), 65502);
            cr_expect(strstr((const char *)s->data + sizeof(xmp_id),
                             "xmpNote:HasExtendedXMP=\"" BIG_XMP_GUID "\""),
                      "standard packet: %s", (const char *)s->data + sizeof(xmp_id));
            standard = true;
        } else if (s->size >= sizeof(ext_id) + 40 && !memcmp(s->data, ext_id, sizeof(ext_id))) {
            const unsigned char *h = s->data + sizeof(ext_id);
            cr_expect_eq(memcmp(h, BIG_XMP_GUID, 32), 0, "GUID %.32s", (const char *)h);
            cr_expect_eq(be32(h + 32), m.xmp.size);
            uint32_t off = be32(h + 36);
            size_t n = s->size - sizeof(ext_id) - 40;
            cr_assert_leq(off + n, m.xmp.size);
            memcpy(whole + off, h + 40, n);
            covered += n;
        }
    }
    cr_expect(standard, "no standard XMP packet");
    cr_expect_eq(covered, m.xmp.size);
    cr_expect_eq(memcmp(whole, m.xmp.data, m.xmp.size), 0, "the extension is not the packet");
    free(whole);
    app1s_free(&a);

    /* back to PNG: one packet holding both descriptions, the note gone */
    VKFX(&r, tc_tpath("big.jpg"), "-f", "box:radius=0", "-o", tc_tpath("back.png"));
    expect_ok(&r);
    run_free(&r);
    tmeta got;
    read_png(tc_tpath("back.png"), &got, NULL);
    cr_assert(got.xmp.data);
    const char *x = (const char *)got.xmp.data;
    const char *body = strstr((const char *)m.xmp.data, "<rdf:Description");
    size_t body_n = (size_t)(strstr((const char *)m.xmp.data, "</rdf:RDF>") - body);
    const char *found = strstr(x, "<rdf:Description rdf:about=\"\" xmlns:dc");
    cr_expect(found && !strncmp(found, body, body_n) && !strncmp(found + body_n, "</rdf:RDF>", 10),
              "the descriptions are not all there");
    cr_expect(!strstr(x, "HasExtendedXMP"), "the note stayed");
    cr_expect(!strncmp(x, "<?xpacket", 9) && strstr(x, "<?xpacket end="), "not one packet");
    tmeta_free(&got);

    /* a piece gone: the standard packet, as it was */
    size_t size;
    unsigned char *jpg = (unsigned char *)tc_slurp(tc_tpath("big.jpg"), &size);
    cr_assert(jpg);
    size_t at = 2;
    bool cut = false;
    while (at + 4 < size && jpg[at] == 0xff && jpg[at + 1] != 0xda) {
        size_t len = (size_t)jpg[at + 2] << 8 | jpg[at + 3];
        if (jpg[at + 1] == 0xe1 && !memcmp(jpg + at + 4, ext_id, sizeof(ext_id)) &&
            be32(jpg + at + 4 + sizeof(ext_id) + 36) > 0) {
            memmove(jpg + at, jpg + at + 2 + len, size - at - 2 - len);
            size -= 2 + len;
            cut = true;
            break;
        }
        at += 2 + len;
    }
    cr_assert(cut);
    FILE *f = fopen(tc_tpath("cut.jpg"), "wb");
    cr_assert(f && fwrite(jpg, 1, size, f) == size);
    fclose(f);
    free(jpg);
    VKFX(&r, tc_tpath("cut.jpg"), "-f", "box:radius=0", "-o", tc_tpath("cut.png"));
    expect_ok(&r);
    run_free(&r);
    read_png(tc_tpath("cut.png"), &got, NULL);
    cr_assert(got.xmp.data);
    cr_expect(strstr((const char *)got.xmp.data, "HasExtendedXMP=\"" BIG_XMP_GUID "\"") &&
                  !strstr((const char *)got.xmp.data, "History"),
              "cut: %s", (const char *)got.xmp.data);
    tmeta_free(&got);
    tmeta_free(&m);
    vkfx_pixels_free(&px);
}

/* EXIF is one APP1 segment (the EXIF standard): more than 64 KiB of it
 * cannot go into a JPEG and is dropped with the note; PNG keeps it. */
Test(photo, jpeg_drops_exif_over_one_segment)
{
    vkfx_pixels px;
    tc_random_pixels(&px, 5, 4, 3, VKFX_SAMPLE_U8, 13);
    blob small = make_exif(1);
    unsigned char *e = calloc(1, 70000);
    cr_assert(e);
    memcpy(e, small.data, small.size);
    tmeta m = {.exif = copy_blob(e, 70000)};
    free(e);
    free(small.data);
    write_png(tc_tpath("bigexif.png"), &px, &m);
    cli_run r;
    VKFX(&r, tc_tpath("bigexif.png"), "-f", "box:radius=0", "-o", tc_tpath("bigexif.jpg"));
    expect_ok(&r);
    cr_expect(strstr(r.err, "JPEG cannot hold EXIF of") && strstr(r.err, "dropped"), "stderr: %s",
              r.err);
    run_free(&r);
    tmeta got;
    read_jpeg(tc_tpath("bigexif.jpg"), &got, NULL);
    cr_expect_null(got.exif.data);
    tmeta_free(&got);
    VKFX(&r, tc_tpath("bigexif.png"), "-f", "box:radius=0", "-o", tc_tpath("bigexif-out.png"));
    expect_ok(&r);
    cr_expect(!strstr(r.err, "dropped"), "stderr: %s", r.err);
    run_free(&r);
    read_png(tc_tpath("bigexif-out.png"), &got, NULL);
    cr_expect(same_blob(&got.exif, &m.exif));
    tmeta_free(&got);
    tmeta_free(&m);
    vkfx_pixels_free(&px);
}

/* ------------------------------------------------------------------------ */
/* CMYK JPEGs under a CMYK profile */

/* The test profile's inks: C, M, Y at power 1.6 under K, which no plain
 * CMYK-to-RGB formula gives, through sRGB into Lab (ICC's 16-bit encoding). */
static cmsInt32Number cmyk_sample(const cmsUInt16Number in[], cmsUInt16Number out[], void *user)
{
    (void)user;
    cmsFloat32Number rgb[3];
    cmsCIELab lab;
    for (int c = 0; c < 3; c++)
        rgb[c] = (cmsFloat32Number)(pow(1 - in[c] / 65535.0, 1.6) * (1 - in[3] / 65535.0));
    cmsDoTransform(cmyk_sampler_srgb_to_lab, rgb, &lab, 1);
    cmsFloat2LabEncoded(out, &lab);
    return TRUE;
}

/* An output-class CMYK profile with an AToB0 table (9 points a side). */
static blob cmyk_profile(void)
{
    return lut_profile(cmsSigOutputClass, cmsSigCmykData, 4, 9, cmyk_sample,
                       &cmyk_sampler_srgb_to_lab);
}

/* A CMYK JPEG of inks (inverted as Adobe's marker says where adobe), with
 * icc in APP2; returns the samples libjpeg decodes, as stored. */
static void write_cmyk_jpeg(const char *path, const vkfx_pixels *inks, bool adobe, const blob *icc,
                            vkfx_pixels *stored)
{
    struct jpeg_compress_struct c;
    struct jpeg_error_mgr err;
    FILE *f = jpeg_create(path, &c, &err, inks, JCS_CMYK);
    jpeg_set_colorspace(&c, JCS_CMYK);
    c.write_Adobe_marker = adobe;
    jpeg_start_compress(&c, TRUE);
    jpeg_write_icc_profile(&c, icc->data, (unsigned)icc->size);
    unsigned char *row = malloc((size_t)inks->width * 4);
    for (uint32_t y = 0; y < inks->height; y++) {
        for (size_t i = 0; i < (size_t)inks->width * 4; i++) {
            uint8_t v = ((uint8_t *)inks->data)[(size_t)y * inks->width * 4 + i];
            row[i] = adobe ? (uint8_t)(255 - v) : v;
        }
        jpeg_write_scanlines(&c, &row, 1);
    }
    free(row);
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    fclose(f);
    struct jpeg_decompress_struct d;
    f = jpeg_open(path, &d, &err);
    cr_assert_eq(d.jpeg_color_space, JCS_CMYK);
    cr_assert_eq((bool)d.saw_Adobe_marker, adobe);
    d.out_color_space = JCS_CMYK;
    jpeg_start_decompress(&d);
    cr_assert_eq(vkfx_pixels_alloc(stored, d.output_width, d.output_height, 4, VKFX_SAMPLE_U8),
                 VKFX_OK);
    while (d.output_scanline < d.output_height) {
        JSAMPROW r = (unsigned char *)stored->data + (size_t)d.output_scanline * d.output_width * 4;
        jpeg_read_scanlines(&d, &r, 1);
    }
    jpeg_finish_decompress(&d);
    jpeg_destroy_decompress(&d);
    fclose(f);
}

/* With --to-srgb a CMYK JPEG's inks go through its CMYK profile to sRGB
 * (lcms2, relative colorimetric, inverted inks where Adobe's marker says),
 * the output without a profile; without --to-srgb the same, with a note. */
Test(photo, cmyk_jpeg_through_its_profile)
{
    blob icc = cmyk_profile();
    vkfx_pixels inks;
    tc_random_pixels(&inks, 13, 9, 4, VKFX_SAMPLE_U8, 21);
    for (int adobe = 0; adobe < 2; adobe++) {
        vkfx_pixels stored, want, got;
        write_cmyk_jpeg(tc_tpath("cmyk.jpg"), &inks, adobe, &icc, &stored);
        cmsHPROFILE src = cmsOpenProfileFromMem(icc.data, (cmsUInt32Number)icc.size),
                    dst = cmsCreate_sRGBProfile();
        cmsHTRANSFORM xf = cmsCreateTransform(src, adobe ? TYPE_CMYK_8_REV : TYPE_CMYK_8, dst,
                                              TYPE_RGB_8, INTENT_RELATIVE_COLORIMETRIC, 0);
        cr_assert(xf);
        cr_assert_eq(vkfx_pixels_alloc(&want, stored.width, stored.height, 3, VKFX_SAMPLE_U8),
                     VKFX_OK);
        cmsDoTransform(xf, stored.data, want.data, stored.width * stored.height);
        cmsDeleteTransform(xf);
        cmsCloseProfile(src);
        cmsCloseProfile(dst);
        cli_run r;
        VKFX(&r, tc_tpath("cmyk.jpg"), "-f", "box:radius=0", "-o", tc_tpath("cmyk.png"), "--to-srgb",
             "--precision", "32");
        expect_ok(&r);
        run_free(&r);
        tmeta gm;
        read_png(tc_tpath("cmyk.png"), &gm, &got);
        const char *what = adobe ? "CMYK with Adobe's marker" : "CMYK";
        check_same(&got, &want, 0, what);
        cr_expect_null(gm.icc.data, "%s: the CMYK profile was written", what);
        /* the plain formula is far from the profile's inks */
        uint8_t *s = stored.data, *w = want.data;
        int far = 0;
        for (size_t i = 0; i < (size_t)stored.width * stored.height; i++) {
            unsigned k = adobe ? s[4 * i + 3] : 255u - s[4 * i + 3];
            for (int ch = 0; ch < 3; ch++) {
                unsigned v = adobe ? s[4 * i + ch] : 255u - s[4 * i + ch];
                int plain = (int)((v * k + 127) / 255);
                far = abs(plain - w[3 * i + ch]) > far ? abs(plain - w[3 * i + ch]) : far;
            }
        }
        cr_expect_gt(far, 10, "%s: the profile changes nothing (%d): the test cannot fail", what,
                     far);
        tmeta_free(&gm);
        vkfx_pixels_free(&got);
        /* without --to-srgb the same, with a note */
        VKFX(&r, tc_tpath("cmyk.jpg"), "-f", "box:radius=0", "-o", tc_tpath("noted.png"),
             "--precision", "32");
        expect_ok(&r);
        cr_expect(strstr(r.err, "note: ") && strstr(r.err, "converted to sRGB through its CMYK"),
                  "stderr: %s", r.err);
        run_free(&r);
        read_png(tc_tpath("noted.png"), &gm, &got);
        check_same(&got, &want, 0, what);
        cr_expect_null(gm.icc.data, "%s: the CMYK profile was written", what);
        tmeta_free(&gm);
        vkfx_pixels_free(&got);
        vkfx_pixels_free(&want);
        vkfx_pixels_free(&stored);
    }
    vkfx_pixels_free(&inks);
    free(icc.data);
}

/* ------------------------------------------------------------------------ */
/* OpenEXR's standard attributes */

/* A PNG's description, date, resolution and Adobe RGB profile become an
 * EXR's comments, capDate, xDensity and chromaticities (read by the OpenEXR
 * library); its comment, EXIF and XMP have no attribute: the note says so. */
Test(photo, openexr_standard_attributes)
{
    vkfx_pixels px;
    tc_random_pixels(&px, 5, 4, 3, VKFX_SAMPLE_U8, 14);
    tmeta m = full_meta(1);
    free(m.icc.data);
    size_t n;
    m.icc.data = (unsigned char *)tc_slurp(VKFX_SOURCE_ROOT "/tests/data/compatibleWithAdobeRGB1998.icc", &n);
    m.icc.size = n;
    write_png(tc_tpath("attrs.png"), &px, &m);
    cli_run r;
    VKFX(&r, tc_tpath("attrs.png"), "-f", "box:radius=0", "-o", tc_tpath("attrs.exr"));
    expect_ok(&r);
    cr_expect(strstr(r.err, "OpenEXR cannot hold EXIF, XMP, text chunks of"), "stderr: %s", r.err);
    run_free(&r);
    exr_context_t ctxt = NULL;
    exr_context_initializer_t init = EXR_DEFAULT_CONTEXT_INITIALIZER;
    cr_assert_eq(exr_start_read(&ctxt, tc_tpath("attrs.exr"), &init), EXR_ERR_SUCCESS);
    int32_t len;
    const char *s = NULL;
    cr_expect(exr_attr_get_string(ctxt, 0, "comments", &len, &s) == EXR_ERR_SUCCESS &&
                  !strncmp(s, m.description, (size_t)len) && len == (int32_t)strlen(m.description),
              "comments");
    cr_expect(exr_attr_get_string(ctxt, 0, "capDate", &len, &s) == EXR_ERR_SUCCESS &&
                  len == 19 && !strncmp(s, "2024:05:06 07:08:09", 19),
              "capDate");
    float density = 0, aspect = 0;
    cr_expect(exr_attr_get_float(ctxt, 0, "xDensity", &density) == EXR_ERR_SUCCESS &&
                  exr_get_pixel_aspect_ratio(ctxt, 0, &aspect) == EXR_ERR_SUCCESS &&
                  fabsf(density - 300) < 0.01f && aspect == 1,
              "xDensity %g, pixelAspectRatio %g", density, aspect);
    exr_attr_chromaticities_t c;
    cr_assert_eq(exr_attr_get_chromaticities(ctxt, 0, "chromaticities", &c), EXR_ERR_SUCCESS);
    /* Adobe RGB (1998): its primaries and D65, as the profile's s15Fixed16 colorants give them */
    static const float adobe[8] = {0.64f, 0.33f, 0.21f, 0.71f, 0.15f, 0.06f, 0.3127f, 0.3290f};
    const float *got = &c.red_x;
    for (int i = 0; i < 8; i++)
        cr_expect(fabsf(got[i] - adobe[i]) < 5e-4f, "chromaticity %d is %g, want %g", i, got[i],
                  adobe[i]);
    exr_finish(&ctxt);
    tmeta_free(&m);
    vkfx_pixels_free(&px);
}

/* Orientation and resolution from the places other writers keep them (tests/data/formats):
 * a PNG's XMP tiff:Orientation alone and ImageMagick's EXIF text chunk turn the pixels as
 * Pillow turns them, the XMP then saying 1 as the EXIF does, the text become one eXIf; a
 * JPEG's 300 dpi in EXIF alone reaches PNG's pHYs and TIFF's tags. Outputs read back with
 * libpng and libtiff. */
Test(photo, orientation_and_resolution_outside_their_usual_places)
{
    char in[3][256];
    const char *const names[3] = {"png_pillow_xmp_orientation8.png", "png_magick_text_exif6.png",
                                  "jpeg_pillow_dpi_in_exif.jpg"};
    for (int i = 0; i < 3; i++)
        snprintf(in[i], sizeof(in[i]), "%s/tests/data/formats/%s", VKFX_SOURCE_ROOT, names[i]);
    cli_run r;
    VKFX(&r, in[0], in[1], in[2], "-o", tc_tpath("{stem}.png"));
    expect_ok(&r);
    run_free(&r);
    VKFX(&r, in[0], in[2], "-o", tc_tpath("{stem}.tif"));
    expect_ok(&r);
    run_free(&r);

    tmeta m;
    vkfx_pixels px = {0};
    read_png(tc_tpath("png_pillow_xmp_orientation8.png"), &m, &px);
    cr_expect(px.width == 20 && px.height == 30, "XMP orientation 8: %ux%u, want 20x30", px.width,
              px.height);
    cr_expect(m.xmp.data && strstr((const char *)m.xmp.data, "tiff:Orientation=\"1\""),
              "the PNG's XMP: %.*s", (int)m.xmp.size, m.xmp.data);
    vkfx_pixels_free(&px);
    tmeta_free(&m);
    read_tiff(tc_tpath("png_pillow_xmp_orientation8.tif"), &m);
    cr_expect(m.tiff_orientation == 1, "TIFF orientation %d", m.tiff_orientation);
    cr_expect(m.xmp.data && strstr((const char *)m.xmp.data, "tiff:Orientation=\"1\""),
              "the TIFF's XMP: %.*s", (int)m.xmp.size, m.xmp.data);
    tmeta_free(&m);

    read_png(tc_tpath("png_magick_text_exif6.png"), &m, &px);
    cr_expect(px.width == 20 && px.height == 30, "EXIF text orientation 6: %ux%u, want 20x30",
              px.width, px.height);
    cr_expect(m.exif.data && m.facts.orientation == 1, "eXIf of %zu bytes, orientation %d",
              m.exif.size, m.facts.orientation);
    cr_expect(!m.exif_text, "the EXIF text chunk was kept beside the eXIf");
    vkfx_pixels_free(&px);
    tmeta_free(&m);

    read_png(tc_tpath("jpeg_pillow_dpi_in_exif.png"), &m, NULL);
    cr_expect(m.res && m.res_x == 300 && m.res_y == 300, "PNG resolution %u x %u", m.res_x,
              m.res_y);
    tmeta_free(&m);
    read_tiff(tc_tpath("jpeg_pillow_dpi_in_exif.tif"), &m);
    cr_expect(m.res && m.res_x == 300 && m.res_y == 300, "TIFF resolution %u x %u", m.res_x,
              m.res_y);
    tmeta_free(&m);
}
