/* The part of common.h that needs core/io/fileio.c, kept apart so that tests
 * which never read a file can link without it. */
#include "common.h"

#include <stdio.h>
#include <tiffio.h>

#include "error.h"
#include "fileio.h"

int tc_load_photo(const char *name, vkfx_pixels *out)
{
    char path[4096];
    int n = snprintf(path, sizeof path, "%s/%s", VKFX_TEST_IMAGES, name);
    if (n < 0 || (size_t)n >= sizeof path)
        return vkfx_fail(VKFX_E_USAGE, "photo name too long: %s", name);
    return vkfx_file_load(path, out);
}

int tc_write_pages_tiff(const char *path, const vkfx_pixels *px, int pages)
{
    TIFF *t = TIFFOpen(path, "w");
    if (!t)
        return -1;
    int ok = 1;
    size_t row = (size_t)px->width * 3;
    for (int page = 0; page < pages && ok; page++) {
        TIFFSetField(t, TIFFTAG_IMAGEWIDTH, px->width);
        TIFFSetField(t, TIFFTAG_IMAGELENGTH, px->height);
        TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, 3);
        TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, 8);
        TIFFSetField(t, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_RGB);
        TIFFSetField(t, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
        for (uint32_t y = 0; y < px->height && ok; y++)
            ok = TIFFWriteScanline(t, (unsigned char *)px->data + y * row, y, 0) == 1;
        ok = ok && TIFFWriteDirectory(t);
    }
    TIFFClose(t);
    return ok ? 0 : -1;
}
