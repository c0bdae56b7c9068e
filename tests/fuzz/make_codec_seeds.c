/* Writes the seed corpora of the per-codec fuzz harnesses (corpus/jpeg,
 * corpus/tiff, corpus/webp): tiny images in each variant the decoders tell
 * apart, made with libjpeg, libtiff and libwebp themselves; and those of the
 * metadata harnesses (corpus/exif, corpus/icc): EXIF blocks in both byte
 * orders, and ICC profiles made with lcms2.
 *   meson compile -C BUILD make_codec_seeds && BUILD/make_codec_seeds tests/fuzz/corpus */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <lcms2.h>
#include <tiffio.h>
#include <webp/encode.h>
#include <webp/mux.h>

enum { W = 16, H = 12 };

static unsigned char pixels[W * H * 4 * 4]; /* up to 4 channels of 32 bits */

static void fill(unsigned channels, unsigned bytes)
{
    for (unsigned i = 0; i < W * H * channels * bytes; i++)
        pixels[i] = (unsigned char)((i * 37u + (i / (W * channels * bytes)) * 11u) & 0xff);
}

static void put(const char *dir, const char *name, const void *data, size_t size)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(1);
    }
}

static void jpeg(const char *dir, const char *name, J_COLOR_SPACE in, J_COLOR_SPACE store,
                 int comps, int h, int v, bool progressive, bool arith, int restart)
{
    struct jpeg_compress_struct c;
    struct jpeg_error_mgr e;
    unsigned char *out = NULL;
    unsigned long n = 0;
    c.err = jpeg_std_error(&e);
    jpeg_create_compress(&c);
    jpeg_mem_dest(&c, &out, &n);
    c.image_width = W;
    c.image_height = H;
    c.input_components = comps;
    c.in_color_space = in;
    jpeg_set_defaults(&c);
    jpeg_set_colorspace(&c, store);
    jpeg_set_quality(&c, 80, TRUE);
    c.comp_info[0].h_samp_factor = h;
    c.comp_info[0].v_samp_factor = v;
    c.arith_code = arith;
    c.restart_in_rows = restart;
    if (progressive)
        jpeg_simple_progression(&c);
    fill((unsigned)comps, 1);
    jpeg_start_compress(&c, TRUE);
    while (c.next_scanline < H) {
        JSAMPROW row = pixels + c.next_scanline * W * comps;
        jpeg_write_scanlines(&c, &row, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    put(dir, name, out, n);
    free(out);
}

static void tiff(const char *dir, const char *name, uint16_t bits, uint16_t format, uint16_t spp,
                 uint16_t planar, uint16_t comp, uint32_t tile, uint16_t extra, int pages)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    TIFF *t = TIFFOpen(path, "w");
    if (!t)
        exit(1);
    unsigned bytes = bits / 8u;
    for (int p = 0; p < pages; p++) {
        TIFFSetField(t, TIFFTAG_IMAGEWIDTH, W);
        TIFFSetField(t, TIFFTAG_IMAGELENGTH, H);
        TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, spp);
        TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, bits);
        TIFFSetField(t, TIFFTAG_SAMPLEFORMAT, format);
        TIFFSetField(t, TIFFTAG_PHOTOMETRIC, spp >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK);
        TIFFSetField(t, TIFFTAG_PLANARCONFIG, planar);
        TIFFSetField(t, TIFFTAG_COMPRESSION, comp);
        if (spp == 2 || spp == 4)
            TIFFSetField(t, TIFFTAG_EXTRASAMPLES, 1, &extra);
        unsigned per = planar == PLANARCONFIG_SEPARATE ? bytes : bytes * spp;
        int planes = planar == PLANARCONFIG_SEPARATE ? spp : 1;
        fill(spp, bytes);
        if (format == SAMPLEFORMAT_IEEEFP)
            for (unsigned i = 0; i < W * H * spp; i++)
                ((float *)(void *)pixels)[i] = (float)i / (W * H * spp);
        if (tile) {
            TIFFSetField(t, TIFFTAG_TILEWIDTH, tile);
            TIFFSetField(t, TIFFTAG_TILELENGTH, tile);
            for (int pl = 0; pl < planes; pl++)
                for (uint32_t y = 0; y < H; y += tile)
                    for (uint32_t x = 0; x < W; x += tile)
                        TIFFWriteEncodedTile(t, TIFFComputeTile(t, x, y, 0, (uint16_t)pl), pixels,
                                             (tmsize_t)(tile * tile * per));
        } else {
            TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, 4);
            for (int pl = 0; pl < planes; pl++)
                for (uint32_t y = 0; y < H; y += 4)
                    TIFFWriteEncodedStrip(t, TIFFComputeStrip(t, y, (uint16_t)pl),
                                          pixels + y * W * per, (tmsize_t)(4 * W * per));
        }
        TIFFWriteDirectory(t);
    }
    TIFFClose(t);
}

static void webp(const char *dir, const char *name, bool alpha, bool lossless)
{
    uint8_t *out = NULL;
    fill(alpha ? 4 : 3, 1);
    size_t n = lossless ? (alpha ? WebPEncodeLosslessRGBA(pixels, W, H, W * 4, &out)
                                 : WebPEncodeLosslessRGB(pixels, W, H, W * 3, &out))
                        : (alpha ? WebPEncodeRGBA(pixels, W, H, W * 4, 70, &out)
                                 : WebPEncodeRGB(pixels, W, H, W * 3, 70, &out));
    put(dir, name, out, n);
    WebPFree(out);
}

static void webp_animated(const char *dir, const char *name)
{
    WebPAnimEncoderOptions o;
    WebPAnimEncoderOptionsInit(&o);
    WebPAnimEncoder *enc = WebPAnimEncoderNew(W, H, &o);
    WebPConfig cfg;
    WebPConfigInit(&cfg);
    for (int f = 0; f < 2; f++) {
        WebPPicture pic;
        WebPPictureInit(&pic);
        pic.width = W;
        pic.height = H;
        fill(4, 1);
        pixels[f] ^= 0xff;
        WebPPictureImportRGBA(&pic, pixels, W * 4);
        WebPAnimEncoderAdd(enc, &pic, f * 100, &cfg);
        WebPPictureFree(&pic);
    }
    WebPAnimEncoderAdd(enc, NULL, 200, NULL);
    WebPData data;
    WebPDataInit(&data);
    WebPAnimEncoderAssemble(enc, &data);
    put(dir, name, data.bytes, data.size);
    WebPDataClear(&data);
    WebPAnimEncoderDelete(enc);
}

/* An EXIF block: the TIFF header, IFD0 with count entries (the orientation
 * among them when orientation > 0), "Exif\0\0" in front when jpeg. */
static void exif(const char *dir, const char *name, bool big, bool jpeg, int orientation,
                 uint16_t type, int count)
{
    unsigned char b[128] = {0};
    size_t n = 0;
    if (jpeg) {
        memcpy(b, "Exif\0\0", 6);
        n = 6;
    }
    unsigned char *t = b + n;
#define PUT16(p, v) ((p)[big ? 0 : 1] = (unsigned char)((v) >> 8), (p)[big ? 1 : 0] = (unsigned char)(v))
    memcpy(t, big ? "MM\0*" : "II*\0", 4);
    t[big ? 7 : 4] = 8; /* IFD0 at offset 8 */
    PUT16(t + 8, count);
    for (int i = 0; i < count; i++) {
        unsigned char *e = t + 10 + 12 * i;
        bool o = orientation > 0 && i == count - 1;
        PUT16(e, o ? 0x0112 : 0x010f + i); /* the orientation, or Make, Model, ... */
        PUT16(e + 2, o ? type : 2);
        e[big ? 7 : 4] = 1;
        if (o)
            PUT16(e + 8, orientation);
    }
#undef PUT16
    n += 10 + 12 * (size_t)count + 4;
    put(dir, name, b, n);
}

/* EXIF with IFD0 (orientation 6, Artist, the Exif and GPS pointers), an
 * Exif directory (ExposureTime, its Interoperability pointer), a GPS one
 * and an Interoperability one; loop: the Exif pointer leads back to IFD0. */
static void exif_dirs(const char *dir, const char *name, bool big, bool loop)
{
    unsigned char b[160] = {0};
#define PUT(p, v, n)                                                                             \
    for (int k = 0; k < (n); k++)                                                                \
    (p)[big ? (n) - 1 - k : k] = (unsigned char)((v) >> (8 * k))
    static const unsigned entries[][5] = {
        /* directory, tag, type, count, value */
        {8, 0x0112, 3, 1, 6},    {8, 0x013b, 2, 8, 140},   {8, 0x8769, 4, 1, 62},
        {8, 0x8825, 4, 1, 92},   {62, 0x829a, 5, 1, 148},  {62, 0xa005, 4, 1, 110},
        {92, 0x0000, 1, 4, 0x02020000}, {110, 0x0001, 2, 4, 0x52393800},
    };
    memcpy(b, big ? "MM\0*" : "II*\0", 4);
    PUT(b + 4, 8u, 4);
    for (size_t i = 0; i < sizeof(entries) / sizeof(entries[0]); i++) {
        unsigned char *d = b + entries[i][0];
        unsigned k = d[big ? 1 : 0]++;
        unsigned char *e = d + 2 + 12 * k;
        PUT(e, entries[i][1], 2);
        PUT(e + 2, entries[i][2], 2);
        PUT(e + 4, entries[i][3], 4);
        unsigned v = loop && entries[i][1] == 0x8769 ? 8 : entries[i][4];
        if (entries[i][2] == 3) {
            PUT(e + 8, v, 2);
        } else if (entries[i][2] == 1 || (entries[i][2] == 2 && entries[i][3] <= 4)) {
            for (int j = 0; j < 4; j++)
                e[8 + j] = (unsigned char)(v >> (24 - 8 * j));
        } else {
            PUT(e + 8, v, 4);
        }
    }
    memcpy(b + 140, "A. Cat", 7);
    PUT(b + 148, 1u, 4);
    PUT(b + 152, 250u, 4);
#undef PUT
    put(dir, name, b, sizeof(b));
}

static void icc(const char *dir, const char *name, cmsHPROFILE p)
{
    cmsUInt32Number size = 0;
    void *data = NULL;
    if (!p || !cmsSaveProfileToMem(p, NULL, &size) || !(data = malloc(size)) ||
        !cmsSaveProfileToMem(p, data, &size)) {
        fprintf(stderr, "cannot make the profile %s\n", name);
        exit(1);
    }
    put(dir, name, data, size);
    free(data);
    cmsCloseProfile(p);
}

/* An RGB (three copies of curve) or gray profile, white D50; curve is freed. */
static cmsHPROFILE profile(bool rgb, cmsToneCurve *curve)
{
    static const cmsCIExyYTRIPLE primaries = {{0.64, 0.33, 1}, {0.3, 0.6, 1}, {0.15, 0.06, 1}};
    cmsToneCurve *const curves[3] = {curve, curve, curve};
    cmsHPROFILE p = rgb ? cmsCreateRGBProfile(cmsD50_xyY(), &primaries, curves)
                        : cmsCreateGrayProfile(cmsD50_xyY(), curve);
    cmsFreeToneCurve(curve);
    return p;
}

static void metadata_seeds(const char *e, const char *i)
{
    exif(e, "ii-orientation-6.exif", false, false, 6, 3, 3);
    exif(e, "mm-orientation-8.exif", true, false, 8, 3, 1);
    exif(e, "jpeg-ii-orientation-3.exif", false, true, 3, 3, 2);
    exif(e, "jpeg-mm-orientation-5.exif", true, true, 5, 3, 4);
    exif(e, "ii-orientation-9.exif", false, false, 9, 3, 1);
    exif(e, "mm-orientation-long.exif", true, false, 2, 4, 1);
    exif(e, "ii-no-orientation.exif", false, false, 0, 3, 2);
    exif_dirs(e, "ii-directories.exif", false, false);
    exif_dirs(e, "mm-directories.exif", true, false);
    exif_dirs(e, "ii-directory-loop.exif", false, true);
    double srgb[5] = {2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045};
    icc(i, "srgb.icc", cmsCreate_sRGBProfile());
    icc(i, "rgb-parametric.icc", profile(true, cmsBuildParametricToneCurve(NULL, 4, srgb)));
    icc(i, "rgb-gamma-1.8.icc", profile(true, cmsBuildGamma(NULL, 1.8)));
    cmsUInt16Number table[17], falling[17];
    for (int k = 0; k < 17; k++) {
        table[k] = (cmsUInt16Number)(65535.0 * k * k / 256);
        falling[k] = (cmsUInt16Number)(65535 - 4096 * k + (k == 16));
    }
    icc(i, "rgb-sampled.icc", profile(true, cmsBuildTabulatedToneCurve16(NULL, 17, table)));
    icc(i, "gray-gamma-2.2.icc", profile(false, cmsBuildGamma(NULL, 2.2)));
    icc(i, "gray-sampled.icc", profile(false, cmsBuildTabulatedToneCurve16(NULL, 17, table)));
    icc(i, "gray-falling.icc", profile(false, cmsBuildTabulatedToneCurve16(NULL, 17, falling)));
    icc(i, "lab.icc", cmsCreateLab4Profile(NULL));
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: make_codec_seeds CORPUS_DIR (with jpeg/ tiff/ webp/ exif/ icc/ in it)\n");
        return 2;
    }
    char j[1024], t[1024], w[1024], e[1024], i[1024];
    snprintf(j, sizeof(j), "%s/jpeg", argv[1]);
    snprintf(t, sizeof(t), "%s/tiff", argv[1]);
    snprintf(w, sizeof(w), "%s/webp", argv[1]);
    snprintf(e, sizeof(e), "%s/exif", argv[1]);
    snprintf(i, sizeof(i), "%s/icc", argv[1]);
    metadata_seeds(e, i);
    jpeg(j, "gray.jpg", JCS_GRAYSCALE, JCS_GRAYSCALE, 1, 1, 1, false, false, 0);
    jpeg(j, "ycc-420.jpg", JCS_RGB, JCS_YCbCr, 3, 2, 2, false, false, 0);
    jpeg(j, "ycc-422-restart.jpg", JCS_RGB, JCS_YCbCr, 3, 2, 1, false, false, 1);
    jpeg(j, "ycc-444-progressive.jpg", JCS_RGB, JCS_YCbCr, 3, 1, 1, true, false, 0);
    jpeg(j, "ycc-420-arithmetic.jpg", JCS_RGB, JCS_YCbCr, 3, 2, 2, false, true, 0);
    jpeg(j, "cmyk.jpg", JCS_CMYK, JCS_CMYK, 4, 1, 1, false, false, 0);
    jpeg(j, "ycck-progressive.jpg", JCS_CMYK, JCS_YCCK, 4, 2, 2, true, false, 0);
    tiff(t, "u8-rgb-strips-none.tif", 8, SAMPLEFORMAT_UINT, 3, PLANARCONFIG_CONTIG,
         COMPRESSION_NONE, 0, 0, 1);
    tiff(t, "u8-graya-strips-lzw.tif", 8, SAMPLEFORMAT_UINT, 2, PLANARCONFIG_CONTIG,
         COMPRESSION_LZW, 0, EXTRASAMPLE_UNASSALPHA, 1);
    tiff(t, "u16-rgba-planar-deflate.tif", 16, SAMPLEFORMAT_UINT, 4, PLANARCONFIG_SEPARATE,
         COMPRESSION_ADOBE_DEFLATE, 0, EXTRASAMPLE_ASSOCALPHA, 1);
    tiff(t, "u16-gray-tiles-packbits.tif", 16, SAMPLEFORMAT_UINT, 1, PLANARCONFIG_CONTIG,
         COMPRESSION_PACKBITS, 16, 0, 1);
    tiff(t, "f32-rgb-tiles-planar.tif", 32, SAMPLEFORMAT_IEEEFP, 3, PLANARCONFIG_SEPARATE,
         COMPRESSION_NONE, 16, 0, 1);
    tiff(t, "u8-rgb-tiles-jpeg.tif", 8, SAMPLEFORMAT_UINT, 3, PLANARCONFIG_CONTIG, COMPRESSION_JPEG,
         16, 0, 1);
    tiff(t, "u8-rgb-two-pages.tif", 8, SAMPLEFORMAT_UINT, 3, PLANARCONFIG_CONTIG, COMPRESSION_LZW,
         0, 0, 2);
    webp(w, "lossy.webp", false, false);
    webp(w, "lossy-alpha.webp", true, false);
    webp(w, "lossless.webp", false, true);
    webp(w, "lossless-alpha.webp", true, true);
    webp_animated(w, "animated.webp");
    return 0;
}
