/* libFuzzer harness: EXIF orientation parsing and rewriting (core/io/exif.c), targets.c. */
#include "targets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return vkfx_fuzz_exif(data, size);
}
