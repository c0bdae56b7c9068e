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
    "       vkfx INPUT... -f CHAIN (-o TEMPLATE | --outdir DIR) [options]\n"
    "       vkfx bench [--size WxH] [--reps N] [--precision 16|32] [--json] [--variants]\n"
    "                  [CHAIN...]\n"
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
    "                         file renamed on success); never an input file. With\n"
    "                         several inputs, a TEMPLATE (below). '-' writes the\n"
    "                         image to standard output (one input; --format)\n"
    "      --outdir DIR       write each output into DIR under its input's name\n"
    "                         (GIF, PSD and standard input become NAME.png)\n"
    "      --format EXT       what -o - writes: png (default), jpg, bmp, tga, hdr, exr\n"
    "  -j, --jobs N           threads that decode and encode files while the GPU\n"
    "                         works (default: one per core)\n"
    "      --progress         files done, files/s and time left on stderr, also when\n"
    "                         it is not a terminal or there is one input (shown on a\n"
    "                         terminal for several inputs anyway)\n"
    "      --json[=FILE]      one JSON object per input, a line each, on stdout or in\n"
    "                         FILE: index, input, output, width, height, gpu_ms (per\n"
    "                         pass), gpu_ms_total, notes (counts filters report),\n"
    "                         wall_ms, status (ok or error) and error (the message)\n"
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
    "Batches: INPUT may be several files, a directory (the .png .jpg .jpeg .bmp .tga\n"
    ".gif .psd .hdr .exr files directly in it, by name) or '-' (standard input, once).\n"
    "One GPU context and one set of pipelines serve the whole batch. In -o and in\n"
    "the chain's option values, {stem} (file name without extension), {name} (with\n"
    "it), {ext} (extension, no dot), {dir} (the input's directory, '.' if none) and\n"
    "{index} (1, 2, ... in input order) are the input's; {{ and }} are literal\n"
    "braces. In a chain the fields' values are escaped for it, so a file named\n"
    "'a,b.png' still pairs: -f 'dof:depth=depth/{stem}.png'. Outputs are checked\n"
    "before any work: two inputs writing one file, or an output that is an input,\n"
    "are usage errors. A file that fails is reported and skipped; the others are\n"
    "written. Ctrl-C stops after the files in hand: every file written is complete,\n"
    "no temporary is left, the exit status is 130.\n"
    "\n"
    "File names: the shell's quoting is all a file argument needs (spaces, commas,\n"
    "colons, any UTF-8). In a chain, a backslash escapes the next character, so an\n"
    "option value may hold , : = or \\ (depth=my\\,file.png); quote the chain in\n"
    "single quotes so the shell keeps the backslashes. '#' picks an OpenEXR channel\n"
    "(depth=r.exr#Z) only after an .exr name; elsewhere it is part of the name.\n"
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
    "Compiled kernels are kept in $XDG_CACHE_HOME/vkfx (else ~/.cache/vkfx), one\n"
    "file per device, so later runs start faster; VKFX_PIPELINE_CACHE=0 keeps none.\n"
    "VKFX_PIPELINE_STATS=1 prints the driver's statistics of each kernel compiled\n"
    "(registers, shared memory) where the device reports them. VKFX_MATRIX=0 keeps\n"
    "the matrix units (VK_NV_cooperative_matrix) out: the Gaussian then runs on\n"
    "multiply-adds at every radius, as on devices without them. VKFX_HALF_PACK=0\n"
    "makes the Gaussian round its halves bit by bit even where the device's\n"
    "conversion to halves rounds to nearest even (checked once, on the device);\n"
    "same bytes. VKFX_VARIANT=family:variant[,...] runs those kernel variants\n"
    "instead of the first that applies (gauss: one-pass, matrix, unrolled, generic;\n"
    "box: one-pass, rows, segments; sat: subgroup64, subgroup, shared); one that\n"
    "does not apply, or a name no filter has, is a usage error.\n"
    "\n"
    "Exit status: 0 success, 1 processing error (unreadable or corrupt input,\n"
    "unwritable output, GPU failure; in a batch, any file failed), 2 usage error\n"
    "(bad arguments or chain), 130 interrupted.\n";

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
    OPT_OUTDIR,
    OPT_PROGRESS,
    OPT_JSON,
    OPT_FORMAT,
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
        {"outdir", required_argument, NULL, OPT_OUTDIR},
        {"jobs", required_argument, NULL, 'j'},
        {"progress", no_argument, NULL, OPT_PROGRESS},
        {"json", optional_argument, NULL, OPT_JSON},
        {"format", required_argument, NULL, OPT_FORMAT},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    cli_batch_opts o = {.run = {.precision = 16}};
    long v = 0;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":f:o:q:j:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'f':
            o.chain_text = optarg;
            break;
        case 'o':
            o.output = optarg;
            break;
        case 'q':
            if (!parse_int(optarg, 1, 100, &v))
                return usage_error("--quality '%s' must be an integer 1..100", optarg);
            o.save.jpeg_quality = (int)v;
            break;
        case 'j':
            if (!parse_int(optarg, 1, 256, &v))
                return usage_error("--jobs '%s' must be an integer 1..256", optarg);
            o.jobs = (int)v;
            break;
        case OPT_OUTDIR:
            o.outdir = optarg;
            break;
        case OPT_PROGRESS:
            o.progress = true;
            break;
        case OPT_JSON:
            o.json = optarg ? optarg : "-";
            break;
        case OPT_FORMAT:
            o.format = optarg;
            break;
        case OPT_PRECISION:
            if (!parse_int(optarg, 16, 32, &v) || (v != 16 && v != 32))
                return usage_error("--precision '%s' must be 16 (rgba16f) or 32 (rgba32f)", optarg);
            o.run.precision = (int)v;
            break;
        case OPT_LINEAR:
            o.run.linear = true;
            break;
        case OPT_TIMINGS:
            o.run.timings = true;
            break;
        case OPT_DEVICE:
            o.ctx.device = optarg;
            break;
        case OPT_NO_SUBGROUP:
            o.ctx.no_subgroup_ops = true;
            break;
        case OPT_EXR_FLOAT:
            o.save.exr_float = true;
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
    if (!o.chain_text)
        return usage_error("%s", "no filter chain given (-f CHAIN; vkfx --filters lists them)");
    if (!o.output && !o.outdir)
        return usage_error("%s", "no output given (-o FILE or TEMPLATE, or --outdir DIR)");
    if (o.output && o.outdir)
        return usage_error("%s", "-o and --outdir both name the outputs; give one of them");
    if (o.format && !(o.output && strcmp(o.output, "-") == 0))
        return usage_error("%s", "--format is for -o - (standard output); files take the "
                                 "format of their extension");
    o.ctx.validate = cli_env_flag("VKFX_VALIDATE");
    o.ctx.log = cli_log;
    /* GPU times per pass are measured for --timings and for the --json report. */
    o.run.timings = o.run.timings || o.json;
    return cli_batch(&o, argv + optind, argc - optind);
}
