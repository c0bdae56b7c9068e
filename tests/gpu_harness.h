/* What GPU tests share: a context with the validation layer on (when
 * VKFX_VALIDATE=1, as meson sets it) whose messages fail the test, and one
 * call that runs a chain on the device and its C reference on the host. */
#ifndef VKFX_TESTS_GPU_HARNESS_H
#define VKFX_TESTS_GPU_HARNESS_H

#include <stdbool.h>

#include "common.h"
#include "ref/ref.h"
#include "vkfx.h"

typedef struct th_gpu {
    vkfx_context *ctx;
    vkfx_staging *staging;
} th_gpu;

/* Creates the context (validation from VKFX_VALIDATE, the shared-memory
 * kernel variants with VKFX_TEST_NO_SUBGROUP_OPS=1, the 32-bit-piece
 * subgroup scans with VKFX_TEST_NO_SUBGROUP_INT64=1, tiles of at most
 * VKFX_TILE pixels a side) and staging memory; aborts the test on failure. */
void th_gpu_open(th_gpu *g);
/* Asserts that the validation layer reported nothing, then frees. */
void th_gpu_close(th_gpu *g);

/* A host reference filter: in and out are linear premultiplied RGBA;
 * precision is the internal format the device ran with (16 or 32). */
typedef int (*th_ref_fn)(const ref_image *in, ref_image *out, const void *arg, int precision);

typedef struct th_case {
    const char *chain; /* the chain the GPU runs */
    th_ref_fn ref;     /* what it must equal */
    const void *arg;
    int precision; /* 16 or 32 */
    double tol;    /* in output sample units (U8/U16) or relative (F32) */
} th_case;

/* References th_case runs often: ref_gauss_stored (arg a th_gauss_arg; the row result rounded
 * to half at precision 16), ref_box (arg an int radius), ref_satblur (arg a ref_sat_params). */
typedef struct th_gauss_arg {
    double sigma;
    int radius;
} th_gauss_arg;
int th_ref_gauss(const ref_image *in, ref_image *out, const void *arg, int precision);
int th_ref_box(const ref_image *in, ref_image *out, const void *arg, int precision);
int th_ref_satblur(const ref_image *in, ref_image *out, const void *arg, int precision);
/* ref_cartoon, arg {sigma, gain}: its blur is float32 whatever the precision. */
int th_ref_cartoon(const ref_image *in, ref_image *out, const void *arg, int precision);
/* ref_tonemap (white 0: unset), rounded to half at rgba16f as the link's output is stored. */
typedef struct th_tonemap_arg {
    double key, white;
} th_tonemap_arg;
int th_ref_tonemap(const ref_image *in, ref_image *out, const void *arg, int precision);

/* Runs the chain text on in through the public API at the given precision
 * into out (channels and sample as asked, data allocated here); any error
 * fails the test, naming the chain. */
void th_run(th_gpu *g, const char *chain, const vkfx_pixels *in, uint32_t out_channels,
            vkfx_sample out_sample, int precision, vkfx_pixels *out);
/* th_run; a usage error whose message contains refused (when not NULL) returns false instead of
 * failing the test. */
bool th_run_unless(th_gpu *g, const char *chain, const vkfx_pixels *in, uint32_t out_channels,
                   vkfx_sample out_sample, int precision, const char *refused, vkfx_pixels *out);

/* Runs c on in through the GPU and through the reference, encodes both to
 * out_channels/out_sample, compares them and reports the worst sample with
 * what (the parameters) on failure. Returns true when within tolerance. */
bool th_check(th_gpu *g, const th_case *c, const vkfx_pixels *in, uint32_t out_channels,
              vkfx_sample out_sample, const char *what);
/* th_check, except that a run the device refuses with a usage error whose message contains
 * refused (when not NULL) is TH_REFUSED instead of a failed test: a forced kernel variant
 * that does not apply. */
typedef enum th_result { TH_WITHIN, TH_OUTSIDE, TH_REFUSED } th_result;
th_result th_check_unless(th_gpu *g, const th_case *c, const vkfx_pixels *in, uint32_t out_channels,
                          vkfx_sample out_sample, const char *what, const char *refused);

/* Runs th_check on random 8-bit images of 1x1, 2x1, 1x3, 7x5 and 17x3 in
 * every channel layout (1-4); returns how many were out of tolerance. */
int th_check_small(th_gpu *g, const th_case *c);

/* Runs chain on in and expects it to be refused as a usage error
 * (VKFX_E_USAGE) whose message contains part. */
void th_expect_usage_error(th_gpu *g, const char *chain, const vkfx_pixels *in, const char *part);

/* Runs text on in in one piece and in tiles of side pixels (VKFX_TILE), out of layout
 * channels x sample, and compares the two byte for byte (reporting the worst sample); returns 1
 * when they differ. Any error fails the test. */
int th_tiled_same(th_gpu *g, const char *text, const vkfx_pixels *in, vkfx_run_opts o,
                  uint32_t channels, vkfx_sample sample, const char *side);

/* Runs th_check at both internal precisions (c's is ignored) on random 8-bit images of
 * channels samples at each of the n sizes {w, h}, seeded seed, seed + 1, ... in the sizes'
 * order; returns how many were out of tolerance. */
int th_check_random_sizes(th_gpu *g, const th_case *c, const uint32_t (*sizes)[2], size_t n,
                          uint32_t channels, uint64_t seed);

/* Runs th_check on every photo of tc_photos at its own size, in its
 * own channel layout, 8-bit output; returns how many were out of tolerance. */
int th_check_photos(th_gpu *g, const th_case *c);

#endif
