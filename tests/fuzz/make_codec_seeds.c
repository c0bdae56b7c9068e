/* Writes the seed corpora of the per-codec fuzz harnesses (corpus/jpeg,
 * corpus/tiff, corpus/webp): tiny images in each variant the decoders tell
 * apart, made with libjpeg, libtiff and libwebp themselves.
 *   meson compile -C BUILD make_codec_seeds && BUILD/make_codec_seeds tests/fuzz/corpus */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
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

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: make_codec_seeds CORPUS_DIR (with jpeg/ tiff/ webp/ in it)\n");
        return 2;
    }
    char j[1024], t[1024], w[1024];
    snprintf(j, sizeof(j), "%s/jpeg", argv[1]);
    snprintf(t, sizeof(t), "%s/tiff", argv[1]);
    snprintf(w, sizeof(w), "%s/webp", argv[1]);
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
