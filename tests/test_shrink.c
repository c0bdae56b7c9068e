/* Shrink-on-load: each photo of images/ saved as a JPEG (quality 90), then resized to widths that
 * shrink it 4x to 40x, decoded at 1/2, 1/4 or 1/8 (vkfx_file_load_for_chain) and at full size
 * (vkfx_file_load); both runs on the GPU with the validation layer. The shrunk decode must be
 * smaller than the file and the outputs of one size; their difference is printed for each
 * output (worst sample and mean, in 8-bit code values), and the mean over every output must
 * stay within 2 code values. The worst samples do not: the DCT-domain decode averages encoded
 * values, darker than the linear-light average wherever a block has texture, by up to 75 codes
 * at high-contrast edges of these photos (README, "Thumbnails"). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>

#include "gpu_harness.h"

/* One run of text on in (its sizes referring to source_w x source_h when not 0). */
static void run(th_gpu *g, const char *text, const vkfx_pixels *in, uint32_t source_w,
                uint32_t source_h, vkfx_pixels *out)
{
    vkfx_chain *chain = NULL;
    vkfx_run_result r;
    vkfx_run_opts o = {.precision = 16, .source_width = source_w, .source_height = source_h};
    *out = (vkfx_pixels){.channels = 3, .sample = VKFX_SAMPLE_U8};
    cr_assert_eq(vkfx_chain_parse(text, &chain), VKFX_OK);
    cr_assert_eq(vkfx_run(g->ctx, g->staging, chain, in, out, &o, &r), VKFX_OK, "%s: %s", text,
                 vkfx_error_message());
    free(r.times);
    vkfx_chain_free(chain);
}

Test(shrink, within_codes_of_the_full_decode, .timeout = 600)
{
    /* 5.86: 6000 to 1024 wide, tests/bench/thumbs.py's shrink, which leaves 1.46x after a 1/4
     * decode: 3.2 codes on average, where 1/2 keeps 1.2 (tests/bench/RESULTS.md). */
    static const double divisors[] = {4.2, 5.86, 8.5, 17, 40};
    cr_assert_eq(tc_tmpdir_make("shrink"), 0);
    th_gpu g;
    th_gpu_open(&g);
    double worst = 0, sum = 0;
    size_t n = 0;
    for (const char *const *name = tc_photos(); *name; name++) {
        vkfx_pixels photo, rgb;
        cr_assert_eq(tc_load_photo(*name, &photo), VKFX_OK, "%s: %s", *name, vkfx_error_message());
        run(&g, "crop", &photo, 0, 0, &rgb);
        const char *jpeg = tc_tpath("photo.jpg");
        vkfx_save_opts save = {.jpeg_quality = 90};
        cr_assert_eq(vkfx_file_save(jpeg, VKFX_FILE_JPEG, &rgb, &save), VKFX_OK);
        for (size_t i = 0; i < sizeof(divisors) / sizeof(divisors[0]); i++) {
            char chain[64];
            snprintf(chain, sizeof(chain), "resize:width=%u",
                     (unsigned)fmax(1, floor(photo.width / divisors[i] + 0.5)));
            vkfx_chain *parsed = NULL;
            cr_assert_eq(vkfx_chain_parse(chain, &parsed), VKFX_OK);
            vkfx_pixels small, full, a, b;
            uint32_t sw, sh;
            cr_assert_eq(vkfx_file_load_for_chain(jpeg, parsed, &small, NULL, &sw, &sh), VKFX_OK);
            cr_assert_eq(vkfx_file_load(jpeg, &full), VKFX_OK);
            cr_expect(sw == full.width && sh == full.height && small.width < full.width,
                      "%s %s: decoded %ux%u of %ux%u", *name, chain, small.width, small.height,
                      sw, sh);
            run(&g, chain, &small, sw, sh, &a);
            run(&g, chain, &full, 0, 0, &b);
            tc_diff d = tc_compare(&a, &b, 2);
            cr_assert(!d.shape_mismatch, "%s %s: shapes differ", *name, chain);
            const uint8_t *pa = a.data, *pb = b.data;
            double local = 0;
            for (size_t k = 0; k < (size_t)a.width * a.height * 3; k++) {
                double e = fabs((double)pa[k] - pb[k]);
                local += e;
                worst = fmax(worst, e);
            }
            sum += local;
            n += (size_t)a.width * a.height * 3;
            fprintf(stderr, "shrink: %s %s from 1/%u: worst %.0f at (%u, %u), mean %.3f codes\n",
                    *name, chain, full.width / small.width, d.max_abs, d.x, d.y,
                    local / ((double)a.width * a.height * 3));
            vkfx_pixels_free(&small);
            vkfx_pixels_free(&full);
            vkfx_pixels_free(&a);
            vkfx_pixels_free(&b);
            vkfx_chain_free(parsed);
        }
        vkfx_pixels_free(&photo);
        vkfx_pixels_free(&rgb);
    }
    th_gpu_close(&g);
    tc_tmpdir_remove();
    fprintf(stderr, "shrink: worst %.0f, mean %.3f codes over every output\n", worst, sum / n);
    cr_expect_leq(sum / n, 2, "the mean is %.3f codes from the full decode's", sum / n);
}
