/* The part of common.h that needs core/io/fileio.c, kept apart so that tests
 * which never read a file can link without it. */
#include "common.h"

#include <stdio.h>

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
