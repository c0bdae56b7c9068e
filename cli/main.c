/* vkfx: run image filters as Vulkan compute shaders from the shell. */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "cli.h"

static const char usage_text[] =
    "usage: vkfx INPUT -f CHAIN -o OUTPUT [options]\n"
    "       vkfx bench [--size WxH] [--reps N] [--precision 16|32] [--json] [CHAIN...]\n"
    "       vkfx compare A B [--metric maxabs|psnr|ssim] [--tolerance X] [--diff DIFF.png]\n"
    "       vkfx --filters | --help-filter NAME | --list-devices | --version | --help\n"
    "\n"
    "Runs a chain of image filters on the GPU (or on the software Vulkan device\n"
    "when there is no GPU) and writes the result.\n"
    "\n"
    "  -f, --filter CHAIN     filters applied left to right, all on the GPU:\n"
    "                         name[:key=value]...[,name[:key=value]...]...\n"
    "                         e.g. 'gauss:sigma=3,sobel:invert=1'. A backslash\n"
    "                         escapes the next character, so file names in\n"
    "                         options may hold , : = (quote the chain in the shell)\n"
    "  -o, --output FILE      output image; format from the extension: png, jpg,\n"
    "                         jpeg, bmp, tga, hdr, exr. Written atomically (a temporary\n"
    "                         file renamed on success); never the input file\n"
    "  -q, --quality N        JPEG quality 1..100 (default 90)\n"
    "      --exr-float        OpenEXR output in float channels (default half)\n"
    "      --max-pixels N     refuse inputs (and maps) whose header declares more\n"
    "                         than N pixels, before decoding (default 268435456)\n"
    "      --precision 16|32  internal format rgba16f (default) or rgba32f\n"
    "      --linear           treat 8/16-bit files as linear light: no sRGB decode\n"
    "                         on input, no encode on output\n"
    "      --timings          GPU milliseconds per pass on stderr\n"
    "      --device D         device index or name substring (see --list-devices)\n"
    "      --no-subgroup-ops  run the shared-memory variants of kernels that\n"
    "                         otherwise use subgroup arithmetic (for testing)\n"
    "      --filters          list the filters with one line of help each\n"
    "      --help-filter NAME the options of one filter: type, default, range\n"
    "      --list-devices     the Vulkan devices, '*' marks the default pick\n"
    "      --version          print the version\n"
    "  -h, --help             this text\n"
    "\n"
    "Inputs: PNG (8/16-bit gray, gray+alpha, RGB, RGBA, palette), JPEG, BMP, TGA,\n"
    "GIF (first frame), PSD, Radiance HDR, OpenEXR (scanline or tiled, half, float\n"
    "or uint channels: R, G, B, A or Y, also with a layer prefix such as 'beauty.R').\n"
    "8/16-bit files are sRGB unless --linear; processing is in linear light with\n"
    "premultiplied alpha. PNG and TGA outputs keep the input's channels (PNG also\n"
    "its bit depth; float input gives 16-bit); JPEG is 8-bit RGB, BMP 8-bit RGB or\n"
    "RGBA, HDR float RGB. OpenEXR input and output are linear, premultiplied and\n"
    "unclamped, the image being the display window (pixels outside the data window\n"
    "are transparent black); output keeps the input's channels as Y, YA, RGB or RGBA.\n"
    "\n"
    "Depth maps (depth=FILE in satdof): the first channel of an image, 8/16-bit\n"
    "read as [0,1]; FILE.exr takes its Z channel, else one whose last component is\n"
    "Z (ViewLayer.Depth.Z), else one whose name contains 'depth'; FILE.exr#NAME\n"
    "picks a channel; depth=self reads the input EXR's own depth channel. Float\n"
    "depth is in scene units, and so are focus and range then.\n"
    "\n"
    "Environment: VKFX_VALIDATE=1 turns on the Khronos validation layer with\n"
    "synchronization validation; any message it reports makes the run fail.\n"
    "\n"
    "Exit status: 0 success, 1 processing error (unreadable or corrupt input,\n"
    "unwritable output, GPU failure), 2 usage error (bad arguments or chain).\n";

int cli_exit_code(int status)
{
    return status == VKFX_OK ? EXIT_OK : status == VKFX_E_USAGE ? EXIT_USAGE : EXIT_PROCESSING;
}

void cli_print_error(void)
{
    fprintf(stderr, "vkfx: %s\n", vkfx_error_message());
}

void cli_log(void *user, const char *message)
{
    (void)user;
    fprintf(stderr, "vkfx: %s\n", message);
}

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "vkfx: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry 'vkfx --help'.\n");
    return EXIT_USAGE;
}

static int list_filters(void)
{
    size_t width = 0;
    for (const vkfx_filter *const *f = vkfx_filters; *f; f++)
        width = strlen((*f)->name) > width ? strlen((*f)->name) : width;
    for (const vkfx_filter *const *f = vkfx_filters; *f; f++)
        printf("%-*s  %s\n", (int)width, (*f)->name, (*f)->help);
    printf("\n'vkfx --help-filter NAME' lists a filter's options.\n");
    return EXIT_OK;
}

static int help_filter(const char *name)
{
    const vkfx_filter *f = vkfx_filter_find(name);
    if (!f) {
        const char *best = NULL;
        size_t best_d = (size_t)-1;
        for (const vkfx_filter *const *g = vkfx_filters; *g; g++) {
            size_t d = vkfx_edit_distance(name, (*g)->name);
            if (d < best_d) {
                best_d = d;
                best = (*g)->name;
            }
        }
        fprintf(stderr, "vkfx: unknown filter '%s'", name);
        if (best && best_d <= 2)
            fprintf(stderr, "; did you mean '%s'?", best);
        fprintf(stderr, " (vkfx --filters lists them)\n");
        return EXIT_USAGE;
    }
    char buf[8192];
    if (vkfx_filter_describe(f, buf, sizeof(buf)) < 0) {
        cli_print_error();
        return EXIT_PROCESSING;
    }
    fputs(buf, stdout);
    return EXIT_OK;
}

static int list_devices(void)
{
    vkfx_device_info *list = NULL;
    uint32_t n = 0;
    int best = -1;
    int ret = vkfx_list_devices(&list, &n, &best);
    if (ret < 0) {
        cli_print_error();
        return cli_exit_code(ret);
    }
    for (uint32_t i = 0; i < n; i++) {
        const vkfx_device_info *d = &list[i];
        printf("%c %u: %s [%s] Vulkan %u.%u, subgroup %u%s%s\n", (int)i == best ? '*' : ' ', i,
               d->name, d->type, d->api_version >> 22, (d->api_version >> 12) & 0x3ff,
               d->subgroup_size, d->usable ? "" : ", unusable: ", d->usable ? "" : d->why_not);
    }
    free(list);
    return EXIT_OK;
}

bool cli_env_flag(const char *name)
{
    const char *v = getenv(name);
    return v && *v && strcmp(v, "0") != 0;
}

/* True when both paths name the same existing file. */
static bool same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

static int check_output_dir(const char *path)
{
    char *copy = strdup(path);
    if (!copy)
        return vkfx_fail(VKFX_E_NOMEM, "out of host memory");
    const char *dir = dirname(copy);
    struct stat st;
    int ret = VKFX_OK;
    if (stat(dir, &st) != 0)
        ret = vkfx_fail(VKFX_E_IO, "%s: output directory '%s' does not exist", path, dir);
    else if (!S_ISDIR(st.st_mode))
        ret = vkfx_fail(VKFX_E_IO, "%s: '%s' is not a directory", path, dir);
    free(copy);
    return ret;
}

static bool parse_int(const char *s, long min, long max, long *out)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || !end || end == s || *end || v < min || v > max)
        return false;
    *out = v;
    return true;
}

static void print_timings(const vkfx_run_result *r)
{
    double total = 0;
    for (uint32_t i = 0; i < r->ntimes; i++) {
        fprintf(stderr, "vkfx: %-16s %9.3f ms\n", r->times[i].label, r->times[i].ms);
        total += r->times[i].ms;
    }
    fprintf(stderr, "vkfx: %-16s %9.3f ms (GPU)\n", "total", total);
}

enum {
    OPT_PRECISION = 256,
    OPT_LINEAR,
    OPT_TIMINGS,
    OPT_DEVICE,
    OPT_FILTERS,
    OPT_HELP_FILTER,
    OPT_LIST_DEVICES,
    OPT_VERSION,
    OPT_NO_SUBGROUP,
    OPT_EXR_FLOAT,
    OPT_MAX_PIXELS,
};

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "bench") == 0)
        return cli_bench_main(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "compare") == 0)
        return cli_compare_main(argc - 1, argv + 1);

    static const struct option longopts[] = {
        {"filter", required_argument, NULL, 'f'},
        {"output", required_argument, NULL, 'o'},
        {"quality", required_argument, NULL, 'q'},
        {"precision", required_argument, NULL, OPT_PRECISION},
        {"linear", no_argument, NULL, OPT_LINEAR},
        {"timings", no_argument, NULL, OPT_TIMINGS},
        {"device", required_argument, NULL, OPT_DEVICE},
        {"filters", no_argument, NULL, OPT_FILTERS},
        {"help-filter", required_argument, NULL, OPT_HELP_FILTER},
        {"list-devices", no_argument, NULL, OPT_LIST_DEVICES},
        {"version", no_argument, NULL, OPT_VERSION},
        {"no-subgroup-ops", no_argument, NULL, OPT_NO_SUBGROUP},
        {"exr-float", no_argument, NULL, OPT_EXR_FLOAT},
        {"max-pixels", required_argument, NULL, OPT_MAX_PIXELS},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *chain_text = NULL, *output = NULL, *device = NULL;
    bool no_subgroup_ops = false;
    vkfx_run_opts run = {.precision = 16};
    vkfx_save_opts save = {0};
    long v = 0;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":f:o:q:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'f':
            chain_text = optarg;
            break;
        case 'o':
            output = optarg;
            break;
        case 'q':
            if (!parse_int(optarg, 1, 100, &v))
                return usage_error("--quality '%s' must be an integer 1..100", optarg);
            save.jpeg_quality = (int)v;
            break;
        case OPT_PRECISION:
            if (!parse_int(optarg, 16, 32, &v) || (v != 16 && v != 32))
                return usage_error("--precision '%s' must be 16 (rgba16f) or 32 (rgba32f)", optarg);
            run.precision = (int)v;
            break;
        case OPT_LINEAR:
            run.linear = true;
            break;
        case OPT_TIMINGS:
            run.timings = true;
            break;
        case OPT_DEVICE:
            device = optarg;
            break;
        case OPT_NO_SUBGROUP:
            no_subgroup_ops = true;
            break;
        case OPT_EXR_FLOAT:
            save.exr_float = true;
            break;
        case OPT_MAX_PIXELS:
            if (!parse_int(optarg, 1, 1L << 40, &v))
                return usage_error("--max-pixels '%s' must be an integer 1..1099511627776", optarg);
            vkfx_file_set_max_pixels((uint64_t)v);
            break;
        case OPT_FILTERS:
            return list_filters();
        case OPT_HELP_FILTER:
            return help_filter(optarg);
        case OPT_LIST_DEVICES:
            return list_devices();
        case OPT_VERSION:
            printf("vkfx %s\n", VKFX_VERSION);
            return EXIT_OK;
        case 'h':
            fputs(usage_text, stdout);
            return EXIT_OK;
        case ':':
            if (optopt > 0 && optopt < 256) {
                char opt[3] = {'-', (char)optopt, 0};
                return usage_error("option '%s' needs a value", opt);
            }
            return usage_error("option '%s' needs a value", argv[optind - 1]);
        case '?':
        default:
            /* For a short option in a cluster (-Zq) optind has not moved past it yet. */
            if (optopt > 0 && optopt < 256) {
                char opt[3] = {'-', (char)optopt, 0};
                return usage_error("unknown option '%s'", opt);
            }
            return usage_error("unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind >= argc)
        return usage_error("%s", "no input file given");
    if (argc - optind > 1)
        return usage_error("one input file at a time; got also '%s'", argv[optind + 1]);
    const char *input = argv[optind];
    if (!chain_text)
        return usage_error("%s", "no filter chain given (-f CHAIN; vkfx --filters lists them)");
    if (!output)
        return usage_error("%s", "no output file given (-o FILE)");

    int status = VKFX_OK;
    vkfx_chain *chain = NULL;
    vkfx_context *ctx = NULL;
    vkfx_staging *staging = NULL;
    vkfx_pixels in = {0}, out = {0};
    vkfx_run_result result = {0};
    vkfx_file_format fmt;
    if ((status = vkfx_chain_parse(chain_text, &chain)) < 0 ||
        (status = vkfx_file_format_for_output(output, &fmt)) < 0)
        goto done;
    if (same_file(input, output)) {
        status = vkfx_fail(VKFX_E_USAGE, "%s: the output would overwrite the input", output);
        goto done;
    }
    if ((status = check_output_dir(output)) < 0 || (status = vkfx_file_load(input, &in)) < 0)
        goto done;
    vkfx_context_opts copts = {
        .device = device,
        .no_subgroup_ops = no_subgroup_ops,
        .validate = cli_env_flag("VKFX_VALIDATE"),
        .log = cli_log,
    };
    if ((status = vkfx_context_create(&copts, &ctx)) < 0 ||
        (status = vkfx_staging_create(ctx, 0, &staging)) < 0)
        goto done;
    vkfx_file_output_layout(fmt, in.channels, in.sample, &out.channels, &out.sample);
    run.premultiplied_out = fmt == VKFX_FILE_EXR;
    run.input_path = input;
    if ((status = vkfx_run(ctx, staging, chain, &in, &out, &run, &result)) < 0)
        goto done;
    if (vkfx_context_validation_messages(ctx)) {
        status = vkfx_fail(VKFX_E_VULKAN, "the validation layer reported %u message(s)",
                           vkfx_context_validation_messages(ctx));
        goto done;
    }
    if ((status = vkfx_file_save(output, fmt, &out, &save)) < 0)
        goto done;
    if (run.timings)
        print_timings(&result);
done:
    if (status < 0)
        cli_print_error();
    free(result.times);
    vkfx_pixels_free(&in);
    vkfx_pixels_free(&out);
    vkfx_staging_destroy(staging);
    vkfx_context_destroy(ctx);
    vkfx_chain_free(chain);
    return cli_exit_code(status);
}
