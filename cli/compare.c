/* vkfx compare: checks an image against a golden one on the CPU and says
 * pass or fail in one line a script can parse. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

static const char compare_usage[] =
    "usage: vkfx compare A B [--metric maxabs|psnr|ssim] [--tolerance X] [--diff DIFF.png]\n"
    "Compares two image files on the CPU (no GPU needed), channel by channel, on\n"
    "samples normalised to [0,1]: 8-bit / 255, 16-bit / 65535, float as is. Images\n"
    "with different channels are compared on their common layout: gray is expanded\n"
    "to RGB when the other image has colour, a missing alpha counts as 1.\n"
    "\n"
    "  -m, --metric M      maxabs (default): the largest absolute difference of any\n"
    "                      sample, in 8-bit code units (normalised difference x 255);\n"
    "                      passes when value <= X; default X 0 (exact).\n"
    "                      psnr: 10*log10(1/MSE) in dB over all compared samples,\n"
    "                      'inf' when equal; passes when value >= X; default X 40.\n"
    "                      ssim: mean SSIM (Wang et al. 2004; 11x11 Gaussian window,\n"
    "                      sigma 1.5, K1 0.01, K2 0.03, windows inside the image) of\n"
    "                      the luma 0.2126 R + 0.7152 G + 0.0722 B, alpha ignored;\n"
    "                      passes when value >= X; default X 0.99\n"
    "  -t, --tolerance X   the pass threshold, a number >= 0 (see --metric)\n"
    "  -d, --diff FILE     write a heat map of the per-pixel differences (the largest\n"
    "                      absolute difference over the channels, whatever the\n"
    "                      metric) as an 8-bit RGB PNG of the same size: black where\n"
    "                      equal, rising through red and yellow to white at the\n"
    "                      largest difference in the image (any difference is at\n"
    "                      least red 1). Written atomically; not written when the\n"
    "                      sizes differ\n"
    "  -h, --help          this text\n"
    "\n"
    "Output: one line on stdout, keys always in this order:\n"
    "  vkfx compare: metric=M value=V tolerance=X result=pass|fail reason=R\n"
    "                differ=N share=S a=A b=B\n"
    "V and X are C %g numbers (up to 10 significant digits), V may be 'inf', or\n"
    "'nan' when the sizes differ; R is 'none' (pass), 'value' (over the tolerance)\n"
    "or 'size' (the images differ in width or height; not compared); N is how many\n"
    "samples compared differ at all, S their share of the samples compared (0..1;\n"
    "both 'nan' when the sizes differ); A and B are the paths as given, last on\n"
    "the line.\n"
    "\n"
    "Exit status: 0 within tolerance, 1 not within tolerance or different sizes,\n"
    "2 usage error or trouble: a bad option, a missing, unreadable or corrupt\n"
    "input file, or a --diff file that cannot be written (no result line then).\n";

static int compare_trouble(void)
{
    cli_message("vkfx compare: %s", vkfx_error_message());
    return EXIT_USAGE;
}

bool cli_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

int cli_compare_main(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"metric", required_argument, NULL, 'm'},
        {"tolerance", required_argument, NULL, 't'},
        {"diff", required_argument, NULL, 'd'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    vkfx_metric metric = VKFX_METRIC_MAXABS;
    double tolerance = NAN;
    const char *diff_path = NULL;
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":m:t:d:h", longopts, NULL)) != -1) {
        char *end = NULL;
        switch (c) {
        case 'm':
            if (vkfx_metric_parse(optarg, &metric) < 0)
                return cli_usage_error("compare", "%s", vkfx_error_message());
            break;
        case 't':
            errno = 0;
            tolerance = strtod(optarg, &end);
            if (errno || end == optarg || *end || isnan(tolerance) || tolerance < 0)
                return cli_usage_error("compare", "--tolerance '%s' must be a number >= 0", optarg);
            break;
        case 'd':
            diff_path = optarg;
            break;
        case 'h':
            fputs(compare_usage, stdout);
            return EXIT_OK;
        case ':':
            return cli_usage_error("compare", "option '%s' needs a value", argv[optind - 1]);
        default:
            if (optopt > 0 && optopt < 256) {
                char opt[3] = {'-', (char)optopt, 0};
                return cli_usage_error("compare", "unknown option '%s'", opt);
            }
            return cli_usage_error("compare", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (argc - optind != 2)
        return cli_usage_error("compare", "%s",
                               argc - optind < 2 ? "needs two image files, A and B"
                                                 : "compares two image files, A and B");
    const char *path_a = argv[optind], *path_b = argv[optind + 1];
    if (isnan(tolerance))
        tolerance = vkfx_metric_default_tolerance(metric);
    if (diff_path) {
        vkfx_file_format fmt;
        if (vkfx_file_format_for_output(diff_path, &fmt) < 0 || fmt != VKFX_FILE_PNG)
            return cli_usage_error("compare", "--diff '%s' must name a .png file", diff_path);
        if (cli_same_file(diff_path, path_a) || cli_same_file(diff_path, path_b))
            return cli_usage_error("compare", "--diff '%s' would overwrite an input", diff_path);
    }

    vkfx_pixels a = {0}, b = {0}, heat = {0};
    vkfx_compare_result r = {0};
    vkfx_image_info ia, ib;
    int code = EXIT_USAGE;
    /* Sizes from the headers first: images that cannot match are not decoded. */
    if (vkfx_file_probe(path_a, &ia) < 0 || vkfx_file_probe(path_b, &ib) < 0) {
        code = compare_trouble();
        goto done;
    }
    r.size_mismatch = ia.width != ib.width || ia.height != ib.height;
    r.value = NAN;
    if (!r.size_mismatch && (vkfx_file_load(path_a, &a) < 0 || vkfx_file_load(path_b, &b) < 0 ||
                             vkfx_compare(&a, &b, metric, diff_path != NULL, &r) < 0)) {
        code = compare_trouble();
        goto done;
    }
    if (diff_path && !r.size_mismatch &&
        (vkfx_compare_heatmap(&r, &heat) < 0 ||
         vkfx_file_save(diff_path, VKFX_FILE_PNG, &heat, NULL) < 0)) {
        code = compare_trouble();
        goto done;
    }
    bool pass = !r.size_mismatch && vkfx_metric_passes(metric, r.value, tolerance);
    if (r.size_mismatch)
        cli_message("vkfx compare: the sizes differ: %s is %ux%u, %s is %ux%u", path_a, ia.width,
                    ia.height, path_b, ib.width, ib.height);
    char differ[32] = "nan", share[32] = "nan";
    if (!r.size_mismatch) {
        snprintf(differ, sizeof(differ), "%llu", (unsigned long long)r.differing);
        snprintf(share, sizeof(share), "%.6g", (double)r.differing / (double)r.samples);
    }
    printf("vkfx compare: metric=%s value=%.10g tolerance=%.10g result=%s reason=%s differ=%s "
           "share=%s a=%s b=%s\n",
           vkfx_metric_name(metric), r.value, tolerance, pass ? "pass" : "fail",
           pass              ? "none"
           : r.size_mismatch ? "size"
                             : "value",
           differ, share, path_a, path_b);
    code = pass ? EXIT_OK : EXIT_PROCESSING;
done:
    vkfx_compare_result_free(&r);
    vkfx_pixels_free(&heat);
    vkfx_pixels_free(&a);
    vkfx_pixels_free(&b);
    return code;
}
