/* libFuzzer harness: JPEG decoding alone (libjpeg-turbo through core/io/codecs/jpeg.c),
 * targets.c. */
#include "targets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return vkfx_fuzz_jpeg(data, size);
}
