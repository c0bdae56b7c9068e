/* libFuzzer harness: ICC profiles opened from memory by lcms2 (core/io/icc.c), targets.c. */
#include "targets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return vkfx_fuzz_icc(data, size);
}
