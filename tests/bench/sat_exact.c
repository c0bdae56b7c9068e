/* Checks summed-area tables on the device at hand, where the test suite
 * (lavapipe) cannot reach: builds the table of a W x H image of random 8-bit
 * RGB integers (alpha 1, fixed-point shift 0) on the GPU and compares every
 * entry with 64-bit sums on the CPU. Prints the wrong entries' count, the
 * first one, and the subgroup size the table pass ran with; exits 1 if any
 * entry differs.
 *
 *     sat_exact [WIDTH HEIGHT] [--no-subgroup-ops] [--no-subgroup-int64]
 *
 * Built with `meson compile -C BUILD sat_exact`; default size 4096x4096. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "filters/filters.h"
#include "run.h"
#include "staging.h"

#define CHECK(call)                                                                                \
    do {                                                                                           \
        if ((call) < 0) {                                                                          \
            fprintf(stderr, "sat_exact: %s\n", vkfx_error_message());                              \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

int main(int argc, char **argv)
{
    uint32_t w = 4096, h = 4096;
    vkfx_context_opts o = {0};
    int sizes = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--no-subgroup-ops") == 0)
            o.no_subgroup_ops = true;
        else if (strcmp(argv[i], "--no-subgroup-int64") == 0)
            o.no_subgroup_int64 = true;
        else if (sizes < 2 && atoi(argv[i]) > 0)
            *(sizes++ ? &h : &w) = (uint32_t)atoi(argv[i]);
        else {
            fprintf(stderr, "usage: sat_exact [WIDTH HEIGHT] [--no-subgroup-ops] "
                            "[--no-subgroup-int64]\n");
            return 2;
        }
    }
    size_t n = (size_t)w * h;
    float *vals = malloc(n * 3 * sizeof(*vals));
    int64_t *want = malloc(n * 4 * sizeof(*want));
    int64_t *got = malloc(n * 4 * sizeof(*got));
    if (!vals || !want || !got) {
        fprintf(stderr, "sat_exact: out of memory\n");
        return 1;
    }
    uint64_t state = 0x2545f4914f6cdd1dull;
    for (size_t i = 0; i < n * 3; i++) {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        vals[i] = (float)(state >> 56);
    }
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++)
            for (int c = 0; c < 4; c++) {
                size_t p = (size_t)y * w + x, i = p * 4 + c;
                int64_t left = x ? want[i - 4] : 0, up = y ? want[i - (size_t)w * 4] : 0;
                int64_t corner = x && y ? want[i - (size_t)w * 4 - 4] : 0;
                int64_t s = c == 3 ? 1 : (int64_t)vals[p * 3 + c];
                want[i] = s + left + up - corner;
            }

    vkfx_context *ctx = NULL;
    vkfx_staging *staging = NULL;
    vkfx_graph *g = NULL;
    vkfx_buffer *raw = NULL, *probe = NULL;
    vkfx_image *img = NULL;
    vkfx_sat sat = {0};
    vkfx_pixels px = {.width = w,
                      .height = h,
                      .channels = 3,
                      .sample = VKFX_SAMPLE_F32,
                      .linear = true,
                      .straight = true,
                      .data = vals};
    CHECK(vkfx_context_create(&o, &ctx));
    CHECK(vkfx_staging_create(ctx, 0, &staging));
    CHECK(vkfx_graph_begin(ctx, w, h, VK_FORMAT_R32G32B32A32_SFLOAT, false, &g));
    vkfx_graph_set_staging(g, staging);
    CHECK(vkfx_graph_upload(g, vals, n * 3 * sizeof(float), &raw));
    CHECK(vkfx_graph_image(g, w, h, VK_FORMAT_R32G32B32A32_SFLOAT, &img));
    CHECK(vkfx_graph_buffer(g, 16, 0, &probe));
    CHECK(vkfx_record_decode(g, raw, &px, true, NULL, img));
    CHECK(vkfx_sat_record(g, img, 0, probe, &sat));
    enum { BAND = 512 };
    uint32_t nb = (h + BAND - 1) / BAND;
    vkfx_buffer **bands = calloc(nb, sizeof(*bands));
    for (uint32_t b = 0; b < nb; b++) {
        uint32_t y = b * BAND, rows = h - y < BAND ? h - y : BAND;
        CHECK(vkfx_graph_buffer(g, (VkDeviceSize)w * rows * 32, 0, &bands[b]));
        CHECK(vkfx_sat_record_export(g, &sat, y, rows, bands[b]));
    }
    CHECK(vkfx_graph_run(g));
    for (uint32_t b = 0; b < nb; b++) {
        uint32_t y = b * BAND, rows = h - y < BAND ? h - y : BAND;
        CHECK(vkfx_staging_download(staging, bands[b]->buffer, 0, got + (size_t)y * w * 4,
                                    (size_t)w * rows * 32));
    }
    uint32_t lanes[4] = {0};
    CHECK(vkfx_staging_download(staging, probe->buffer, 0, lanes, 16));
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < n * 4; i++)
        if (got[i] != want[i] && bad++ == 0)
            first = i;
    printf("%s, %ux%u, %s: %zu of %zu entries wrong", vkfx_context_device_name(ctx), w, h,
           o.no_subgroup_ops     ? "shared memory"
           : o.no_subgroup_int64 ? "32-bit subgroup pieces"
                                 : "subgroup scans",
           bad, n * 4);
    if (bad)
        printf("; first at (%zu, %zu) channel %zu: %lld, want %lld", first / 4 % w, first / 4 / w,
               first % 4, (long long)got[first], (long long)want[first]);
    printf("; table pass: %u lanes per subgroup, %u subgroups\n", lanes[0], lanes[2]);
    free(bands);
    vkfx_graph_destroy(g);
    vkfx_staging_destroy(staging);
    vkfx_context_destroy(ctx);
    free(vals);
    free(want);
    free(got);
    return bad ? 1 : 0;
}
