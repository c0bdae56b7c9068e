/* libFuzzer harness: WebP decoding alone (libwebp through core/io/codecs/webp.c), targets.c. */
#include "targets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return vkfx_fuzz_webp(data, size);
}
