/* libFuzzer harness: TIFF decoding alone (libtiff through core/io/codecs/tiff.c), targets.c. */
#include "targets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return vkfx_fuzz_tiff(data, size);
}
