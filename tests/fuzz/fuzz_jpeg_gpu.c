/* libFuzzer harness: JPEG decoding on the device (core/gpu/jpeg_gpu.c) against libjpeg-turbo's.
 * The bytes go through the checks a run makes before it offers a file to the device (its
 * header, --max-pixels, the bytes its blocks need), then to the device's decoder: a stream it
 * takes must decode as libjpeg-turbo decodes it, to the byte, and one libjpeg-turbo refuses
 * or decodes with a warning must be refused by the device too; a stream it refuses (1) is
 * libjpeg-turbo's in a run. Anything else aborts. The device is whatever vkfx picks (lavapipe
 * here), opened once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec.h"
#include "error.h"
#include "fileio.h"
#include "jpeg_gpu.h"
#include "staging.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void broken(const char *what)
{
    fprintf(stderr, "fuzz target contract broken: %s (%s)\n", what, vkfx_error_message());
    abort();
}

static vkfx_context *ctx;
static vkfx_staging *staging;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!ctx) {
        vkfx_file_set_max_pixels(4u << 20);
        vkfx_context_opts o = {0};
        if (vkfx_context_create(&o, &ctx) < 0 || vkfx_staging_create(ctx, 0, &staging) < 0)
            broken("no device");
    }
    vkfx_image_info info;
    vkfx_error_clear();
    if (VKFX_FILE_JPEG->probe(data, size, "fuzz", &info) < 0 ||
        vkfx_check_pixels("fuzz", info.width, info.height) < 0 ||
        vkfx_check_stored("fuzz", "JPEG", info.width, info.height,
                          ((uint64_t)info.width + 7) / 8 * (((uint64_t)info.height + 7) / 8), 4,
                          size) < 0)
        return 0;
    vkfx_pixels gpu = {0}, cpu = {0};
    int ret = vkfx_jpeg_gpu_decode(ctx, staging, data, size, NULL, &gpu);
    if (ret < 0)
        broken("the device failed");
    if (ret == 1)
        return 0;
    vkfx_decode_note note = {{0}};
    int cpu_ret = VKFX_FILE_JPEG->decode(data, size, "fuzz", &cpu, &note);
    if (cpu_ret < 0)
        broken("the device decoded a stream libjpeg-turbo refuses");
    if (note.text[0])
        broken("the device decoded a stream libjpeg-turbo warns about");
    if (cpu.width != gpu.width || cpu.height != gpu.height || cpu.channels != gpu.channels ||
        memcmp(cpu.data, gpu.data, vkfx_pixels_bytes(&cpu)) != 0)
        broken("the device's samples differ from libjpeg-turbo's");
    vkfx_pixels_free(&gpu);
    vkfx_pixels_free(&cpu);
    return 0;
}
