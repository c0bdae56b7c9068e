/* Helpers every test shares: deterministic random images, the photos in the
 * repository's images/ folder, crops to awkward sizes, and a sample-by-sample
 * comparison that names the worst pixel. No Criterion in here. */
#ifndef VKFX_TESTS_COMMON_H
#define VKFX_TESTS_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pixels.h"

#ifndef VKFX_TEST_IMAGES
#error "the build must define VKFX_TEST_IMAGES, the folder of the bundled photos (images/)"
#endif

/* A w x h image of channels samples of type s, every sample drawn from a
 * splitmix64 stream seeded with seed (F32 in [0,1)); linear is set for F32
 * only, straight always. Aborts if memory runs out. */
void tc_random_pixels(vkfx_pixels *px, uint32_t w, uint32_t h, uint32_t channels, vkfx_sample s,
                      uint64_t seed);

/* A w x h 8-bit RGBA image of piecewise-linear triangle waves of 3 codes per pixel (period 170
 * pixels), different along x, y and the diagonal, alpha opaque: smooth content for filters
 * whose decisions (sample positions, thresholds) a random image would put on a knife edge. */
void tc_ramp_pixels(vkfx_pixels *px, uint32_t w, uint32_t h);

/* Loads VKFX_TEST_IMAGES "/" name with vkfx_file_load (tests/common_files.c,
 * so that only tests that link core/io/fileio.c need it). */
int tc_load_photo(const char *name, vkfx_pixels *out);
/* Writes px (8-bit RGB) as every page of a TIFF of pages pages (tests/common_files.c);
 * 0, or -1 when it cannot. */
int tc_write_pages_tiff(const char *path, const vkfx_pixels *px, int pages);
/* NULL-terminated names of the colour and gray photos in VKFX_TEST_IMAGES. */
const char *const *tc_photos(void);

/* dst = the w x h region of src whose top left is (x, y); coordinates past
 * src's edges wrap around, so a small image is tiled to fill a large one.
 * Keeps src's channels, sample, linear and straight. */
int tc_crop(const vkfx_pixels *src, uint32_t x, uint32_t y, uint32_t w, uint32_t h,
            vkfx_pixels *dst);
/* A w x h image from src: a centred crop along each axis src is long enough
 * in, tiled from its start along the others. */
int tc_fit(const vkfx_pixels *src, uint32_t w, uint32_t h, vkfx_pixels *dst);

typedef struct tc_diff {
    double max_abs;   /* worst error: sample units, or relative for tc_compare_rel */
    uint32_t x, y, c; /* where it is */
    double got, want; /* the two samples there */
    size_t over;      /* samples whose error exceeds tol (NaN counts as over) */
    double tol;
    double rel_floor; /* 0 for absolute comparisons */
    bool shape_mismatch;
    uint32_t got_w, got_h, got_c, want_w, want_h, want_c;
    vkfx_sample got_s, want_s;
} tc_diff;

/* Absolute difference per sample, in sample units (integer codes for U8/U16). */
tc_diff tc_compare(const vkfx_pixels *got, const vkfx_pixels *want, double tol);
/* |got - want| / max(|want|, rel_floor) per sample, for F32 outputs. */
tc_diff tc_compare_rel(const vkfx_pixels *got, const vkfx_pixels *want, double tol,
                       double rel_floor);
/* True when the shapes match and no sample is over the tolerance. */
bool tc_diff_ok(const tc_diff *d);
/* One line on stderr: what, the worst sample and the count over tolerance,
 * or the two shapes when they differ. */
void tc_report(const tc_diff *d, const char *what);

/* The whole file at path, with a NUL after it (not counted in *size), or
 * NULL if it cannot be read. */
char *tc_slurp(const char *path, size_t *size);
/* Whether the files at a and b both read and hold the same bytes; a message saying which is
 * missing, or their sizes, in why (why_size bytes). */
bool tc_same_files(const char *a, const char *b, char *why, size_t why_size);

/* Writes text to path, replacing it; 0, or -1 with errno. */
int tc_spit_text(const char *path, const char *text);

/* The names in dir (not . and ..; those starting with '.' only if hidden),
 * sorted and joined with spaces into out; how many, or -1 if dir cannot be
 * opened (out is then empty). */
int tc_list_dir(const char *dir, bool hidden, char *out, size_t size);

/* A monotonic clock in seconds, for tests that bound how long a refusal takes. */
double tc_seconds(void);

/* One channel of the histogram filter's JSON. */
typedef struct tc_histogram_channel {
    int min, max;
    double mean;
    uint32_t counts[256];
} tc_histogram_channel;

/* Reads the histogram JSON back: {"pixels": N, "r": {"min", "max", "mean", "counts"}, "g",
 * "b", "luma"}; false where it is missing or not of that shape. */
bool tc_histogram_json(const char *path, unsigned long long *pixels, tc_histogram_channel ch[4]);

/* Removes dir and everything under it (tests' temporary directories). */
void tc_remove_tree(const char *dir);

/* One temporary directory per test: tc_tmpdir_make("cli") creates
 * /tmp/vkfx-cli-XXXXXX into tc_tmpdir (0, or -1 with errno), tc_tmpdir_remove
 * deletes it with everything in it, and tc_tpath(name) is tc_tmpdir "/" name in
 * one of 16 rotating buffers, so one call can hold several paths. */
extern char tc_tmpdir[64];
int tc_tmpdir_make(const char *suite);
void tc_tmpdir_remove(void);
const char *tc_tpath(const char *name);

#endif
