/* The options of the command line and of job-file lines: one table, one
 * getopt_long loop, each option marked with where it applies (a job, the
 * whole run, or information that ends the program). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"

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
    OPT_SHARD,
    OPT_SKIP_EXISTING,
    OPT_INIT_ONLY,
    OPT_NO_FSYNC,
    OPT_JPEG_CODEC,
    OPT_JPEG_SUBSAMPLING,
    OPT_JPEG_PROGRESSIVE,
    OPT_JPEG_OPTIMIZE,
    OPT_PNG_LEVEL,
    OPT_DEPTH,
    OPT_TIFF_COMPRESSION,
    OPT_LOSSLESS,
    OPT_STRIP,
    OPT_TO_SRGB,
    OPT_NO_AUTOROTATE,
    OPT_NO_SHRINK_ON_LOAD,
    OPT_QUIET,
    OPT_BACKGROUND,
    OPT_FAST,
};

const struct option cli_longopts[] = {
    {"filter", required_argument, NULL, 'f'},
    {"output", required_argument, NULL, 'o'},
    {"quality", required_argument, NULL, 'q'},
    {"precision", required_argument, NULL, OPT_PRECISION},
    {"no-linearize", no_argument, NULL, OPT_LINEAR},
    {"linear", no_argument, NULL, OPT_LINEAR},
    {"strip", no_argument, NULL, OPT_STRIP},
    {"to-srgb", no_argument, NULL, OPT_TO_SRGB},
    {"no-autorotate", no_argument, NULL, OPT_NO_AUTOROTATE},
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
    {"quiet", no_argument, NULL, OPT_QUIET},
    {"background", required_argument, NULL, OPT_BACKGROUND},
    {"json", optional_argument, NULL, OPT_JSON},
    {"format", required_argument, NULL, OPT_FORMAT},
    {"shard", required_argument, NULL, OPT_SHARD},
    {"skip-existing", no_argument, NULL, OPT_SKIP_EXISTING},
    {"init-only", no_argument, NULL, OPT_INIT_ONLY},
    {"no-clobber", no_argument, NULL, 'n'},
    {"no-fsync", no_argument, NULL, OPT_NO_FSYNC},
    {"jpeg-codec", required_argument, NULL, OPT_JPEG_CODEC},
    {"jpeg-subsampling", required_argument, NULL, OPT_JPEG_SUBSAMPLING},
    {"jpeg-progressive", no_argument, NULL, OPT_JPEG_PROGRESSIVE},
    {"jpeg-optimize", no_argument, NULL, OPT_JPEG_OPTIMIZE},
    {"png-level", required_argument, NULL, OPT_PNG_LEVEL},
    {"depth", required_argument, NULL, OPT_DEPTH},
    {"tiff-compression", required_argument, NULL, OPT_TIFF_COMPRESSION},
    {"lossless", no_argument, NULL, OPT_LOSSLESS},
    {"no-shrink-on-load", no_argument, NULL, OPT_NO_SHRINK_ON_LOAD},
    {"fast", no_argument, NULL, OPT_FAST},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static cli_scope scope_of(int c)
{
    switch (c) {
    case 'f':
    case 'o':
    case 'q':
    case OPT_OUTDIR:
    case OPT_FORMAT:
    case OPT_PRECISION:
    case OPT_LINEAR:
    case OPT_STRIP:
    case OPT_TO_SRGB:
    case OPT_EXR_FLOAT:
    case OPT_JPEG_SUBSAMPLING:
    case OPT_JPEG_PROGRESSIVE:
    case OPT_JPEG_OPTIMIZE:
    case OPT_PNG_LEVEL:
    case OPT_DEPTH:
    case OPT_TIFF_COMPRESSION:
    case OPT_LOSSLESS:
    case OPT_NO_SHRINK_ON_LOAD:
    case OPT_BACKGROUND:
    case OPT_FAST:
        return CLI_SCOPE_JOB;
    case OPT_FILTERS:
    case OPT_HELP_FILTER:
    case OPT_LIST_DEVICES:
    case OPT_VERSION:
    case 'h':
        return CLI_SCOPE_INFO;
    default:
        return CLI_SCOPE_RUN;
    }
}

static bool parse_long(const char *s, long min, long max, long *out)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || !end || end == s || *end || v < min || v > max)
        return false;
    *out = v;
    return true;
}

/* "K/N" with 0 <= K < N. */
static int parse_shard(const char *s, unsigned *k, unsigned *n)
{
    const char *slash = strchr(s, '/');
    char head[32];
    long kv = 0, nv = 0;
    if (slash && (size_t)(slash - s) < sizeof(head)) {
        memcpy(head, s, (size_t)(slash - s));
        head[slash - s] = 0;
    }
    if (!slash || (size_t)(slash - s) >= sizeof(head) || !parse_long(head, 0, 1000000, &kv) ||
        !parse_long(slash + 1, 1, 1000000, &nv) || kv >= nv)
        return vkfx_fail(VKFX_E_USAGE,
                         "--shard '%s' must be K/N with 0 <= K < N <= 1000000 (K counts from 0, "
                         "as SLURM_ARRAY_TASK_ID and JOB_COMPLETION_INDEX do)",
                         s);
    *k = (unsigned)kv;
    *n = (unsigned)nv;
    return VKFX_OK;
}

/* The index of word in the NULL-terminated words, or -1. */
static int choice(const char *word, const char *const *words)
{
    for (int i = 0; words[i]; i++)
        if (strcmp(word, words[i]) == 0)
            return i;
    return -1;
}

/* --background: a name, #rgb, #rrggbb or R,G,B (0..255 each) into sRGB values 0..1. */
static int parse_color(const char *s, float rgb[3])
{
    static const struct {
        const char *name;
        unsigned rgb;
    } names[] = {{"white", 0xffffff}, {"black", 0x000000}, {"gray", 0x808080}, {"grey", 0x808080},
                 {"red", 0xff0000},   {"green", 0x008000}, {"blue", 0x0000ff}};
    unsigned v = 0, r, g, b;
    int n = 0;
    bool ok = false;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && !ok; i++)
        if (strcasecmp(s, names[i].name) == 0) {
            v = names[i].rgb;
            ok = true;
        }
    size_t len = strlen(s);
    if (!ok && s[0] == '#' && (len == 4 || len == 7) &&
        strspn(s + 1, "0123456789abcdefABCDEF") == len - 1) {
        v = (unsigned)strtoul(s + 1, NULL, 16);
        if (len == 4) /* #rgb: each digit doubled */
            v = ((v >> 8) & 15) * 0x110000 + ((v >> 4) & 15) * 0x1100 + (v & 15) * 0x11;
        ok = true;
    }
    if (!ok && sscanf(s, "%u,%u,%u%n", &r, &g, &b, &n) == 3 && (size_t)n == len && r < 256 &&
        g < 256 && b < 256) {
        v = r << 16 | g << 8 | b;
        ok = true;
    }
    if (!ok)
        return vkfx_fail(VKFX_E_USAGE,
                         "--background '%s' must be a colour: white, black, gray, red, green, "
                         "blue, #rgb, #rrggbb or R,G,B (0..255 each)",
                         s);
    for (int c = 0; c < 3; c++)
        rgb[c] = (float)((v >> (16 - 8 * c)) & 255) / 255.0f;
    return VKFX_OK;
}

int cli_jpeg_codec(const char *word, const char *what, vkfx_jpeg_codec *out)
{
    static const char *const codecs[] = {"auto", "gpu", "cpu", NULL}; /* vkfx_jpeg_codec */
    int k = choice(word, codecs);
    if (k < 0)
        return vkfx_fail(VKFX_E_USAGE, "%s '%s' must be auto, gpu or cpu", what, word);
    *out = (vkfx_jpeg_codec)k;
    return VKFX_OK;
}

int cli_jpeg_codec_default(vkfx_jpeg_codec *out)
{
    /* The test suite sets VKFX_JPEG_CODEC=gpu to run every JPEG output through the device on
     * lavapipe, where auto would keep libjpeg-turbo; --jpeg-codec overrides it. */
    const char *env = getenv("VKFX_JPEG_CODEC");
    *out = VKFX_JPEG_CODEC_AUTO;
    return env && *env ? cli_jpeg_codec(env, "VKFX_JPEG_CODEC", out) : VKFX_OK;
}

/* The option as the user wrote it, for messages. */
static const char *option_name(char **argv, int c, char *buf, size_t len)
{
    if (c > 0 && c < 256) {
        snprintf(buf, len, "-%c", c);
        return buf;
    }
    for (const struct option *l = cli_longopts; l->name; l++)
        if (l->val == c) {
            snprintf(buf, len, "--%s", l->name);
            return buf;
        }
    return argv[optind - 1];
}

static int misplaced(const char *name, unsigned scopes, cli_scope where)
{
    if (where == CLI_SCOPE_JOB)
        return vkfx_fail(VKFX_E_USAGE, "'%s' belongs to a job: write it on the job's line", name);
    if (where == CLI_SCOPE_RUN && (scopes & CLI_SCOPE_JOB))
        return vkfx_fail(VKFX_E_USAGE,
                         "'%s' applies to the whole run, not to one job: give it to 'vkfx run'",
                         name);
    return vkfx_fail(VKFX_E_USAGE, "'%s' is not an option of a job or of 'vkfx run'", name);
}

int cli_parse_options(int argc, char **argv, unsigned scopes, cli_batch_opts *o, int *first,
                      cli_info *info, const char **info_arg)
{
    /* Indexed by vkfx_jpeg_subsampling and vkfx_tiff_compression. */
    static const char *const subsamplings[] = {"auto", "444", "422", "420", NULL};
    static const char *const tiff_compressions[] = {"deflate", "lzw", "none", NULL};
    long v = 0;
    int c, k;
    char name[48];
    *info = CLI_INFO_NONE;
    if ((scopes & CLI_SCOPE_RUN) && cli_jpeg_codec_default(&o->jpeg_codec) < 0)
        return VKFX_E_USAGE;
    opterr = 0;
    optind = 0; /* GNU getopt starts afresh: the parser runs once per job line */
    while ((c = getopt_long(argc, argv, ":f:o:q:j:nh", cli_longopts, NULL)) != -1) {
        if (c == ':' || c == '?') {
            /* For a short option in a cluster (-Zq) optind has not moved past it yet. */
            const char *opt = optopt > 0 && optopt < 256
                                  ? option_name(argv, optopt, name, sizeof(name))
                                  : argv[optind - 1];
            return c == ':' ? vkfx_fail(VKFX_E_USAGE, "option '%s' needs a value", opt)
                            : vkfx_fail(VKFX_E_USAGE, "unknown option '%s'", opt);
        }
        cli_scope where = scope_of(c);
        if (!(scopes & where))
            return misplaced(option_name(argv, c, name, sizeof(name)), scopes, where);
        switch (c) {
        case 'f':
            o->job.chain_text = optarg;
            break;
        case 'o':
            o->job.output = optarg;
            break;
        case 'q':
            if (!parse_long(optarg, 1, 100, &v))
                return vkfx_fail(VKFX_E_USAGE, "--quality '%s' must be an integer 1..100", optarg);
            o->job.save.jpeg_quality = (int)v;
            break;
        case 'j':
            if (!parse_long(optarg, 1, 256, &v))
                return vkfx_fail(VKFX_E_USAGE, "--jobs '%s' must be an integer 1..256", optarg);
            o->threads = (int)v;
            break;
        case OPT_OUTDIR:
            o->job.outdir = optarg;
            break;
        case OPT_PROGRESS:
            o->progress = true;
            break;
        case OPT_BACKGROUND:
            if (parse_color(optarg, o->job.background) < 0)
                return VKFX_E_USAGE;
            o->job.background_set = true;
            break;
        case OPT_QUIET:
            cli_notes_set_quiet(true);
            break;
        case OPT_JSON:
            o->json = optarg ? optarg : "-";
            break;
        case OPT_FORMAT:
            o->job.format = optarg;
            break;
        case OPT_PRECISION:
            if (strcmp(optarg, "auto") == 0)
                v = 0;
            else if (!parse_long(optarg, 16, 32, &v) || (v != 16 && v != 32))
                return vkfx_fail(VKFX_E_USAGE,
                                 "--precision '%s' must be auto, 16 (rgba16f) or 32 (rgba32f)",
                                 optarg);
            o->job.precision = (int)v;
            break;
        case OPT_JPEG_SUBSAMPLING:
            if ((k = choice(optarg, subsamplings)) <= 0)
                return vkfx_fail(VKFX_E_USAGE, "--jpeg-subsampling '%s' must be 444, 422 or 420",
                                 optarg);
            o->job.save.jpeg_subsampling = (vkfx_jpeg_subsampling)k;
            break;
        case OPT_JPEG_PROGRESSIVE:
            o->job.save.jpeg_progressive = true;
            break;
        case OPT_JPEG_OPTIMIZE:
            o->job.save.jpeg_optimize = true;
            break;
        case OPT_PNG_LEVEL:
            if (!parse_long(optarg, 0, 9, &v))
                return vkfx_fail(VKFX_E_USAGE, "--png-level '%s' must be an integer 0..9", optarg);
            o->job.save.png_level_set = true;
            o->job.save.png_level = (int)v;
            break;
        case OPT_DEPTH:
            if (!parse_long(optarg, 8, 16, &v) || (v != 8 && v != 16))
                return vkfx_fail(VKFX_E_USAGE, "--depth '%s' must be 8 or 16", optarg);
            o->job.save.depth = (int)v;
            break;
        case OPT_TIFF_COMPRESSION:
            if ((k = choice(optarg, tiff_compressions)) < 0)
                return vkfx_fail(VKFX_E_USAGE,
                                 "--tiff-compression '%s' must be none, lzw or deflate", optarg);
            o->job.save.tiff_compression = (vkfx_tiff_compression)k;
            break;
        case OPT_LOSSLESS:
            o->job.save.webp_lossless = true;
            break;
        case OPT_LINEAR:
            o->job.linear = true;
            break;
        case OPT_FAST:
            o->job.fast = true;
            break;
        case OPT_STRIP:
            o->job.strip = true;
            break;
        case OPT_TO_SRGB:
            o->job.to_srgb = true;
            break;
        case OPT_NO_AUTOROTATE:
            vkfx_file_set_autorotate(false);
            break;
        case OPT_NO_SHRINK_ON_LOAD:
            o->job.no_shrink_on_load = true;
            break;
        case OPT_TIMINGS:
            o->timings = true;
            break;
        case OPT_DEVICE:
            o->ctx.device = optarg;
            break;
        case OPT_NO_SUBGROUP:
            o->ctx.no_subgroup_ops = true;
            break;
        case OPT_EXR_FLOAT:
            o->job.save.exr_float = true;
            break;
        case OPT_MAX_PIXELS:
            if (!parse_long(optarg, 1, 1L << 40, &v))
                return vkfx_fail(VKFX_E_USAGE,
                                 "--max-pixels '%s' must be an integer 1..1099511627776", optarg);
            vkfx_file_set_max_pixels((uint64_t)v);
            break;
        case OPT_SHARD:
            if (parse_shard(optarg, &o->shard_k, &o->shard_n) < 0)
                return VKFX_E_USAGE;
            break;
        case OPT_SKIP_EXISTING:
            o->skip_existing = true;
            break;
        case OPT_INIT_ONLY:
            o->init_only = true;
            break;
        case 'n':
            vkfx_safefile_set_no_clobber(true);
            break;
        case OPT_NO_FSYNC:
            vkfx_safefile_set_fsync(false);
            break;
        case OPT_JPEG_CODEC:
            if (cli_jpeg_codec(optarg, "--jpeg-codec", &o->jpeg_codec) < 0)
                return VKFX_E_USAGE;
            break;
        case OPT_FILTERS:
            *info = CLI_INFO_FILTERS;
            return VKFX_OK;
        case OPT_HELP_FILTER:
            *info = CLI_INFO_HELP_FILTER;
            *info_arg = optarg;
            return VKFX_OK;
        case OPT_LIST_DEVICES:
            *info = CLI_INFO_LIST_DEVICES;
            return VKFX_OK;
        case OPT_VERSION:
            *info = CLI_INFO_VERSION;
            return VKFX_OK;
        case 'h':
            *info = CLI_INFO_HELP;
            return VKFX_OK;
        default:
            return vkfx_fail(VKFX_E_USAGE, "unknown option '%s'", argv[optind - 1]);
        }
    }
    *first = optind;
    return VKFX_OK;
}

int cli_check_job(const cli_job_opts *j, int ninputs)
{
    if (ninputs <= 0)
        return vkfx_fail(VKFX_E_USAGE, "no input file given");
    if (!j->output && !j->outdir)
        return vkfx_fail(VKFX_E_USAGE, "no output given (-o FILE or TEMPLATE, or --outdir DIR)");
    if (j->output && j->outdir)
        return vkfx_fail(VKFX_E_USAGE, "-o and --outdir both name the outputs; give one of them");
    if (j->format && !j->output)
        return vkfx_fail(VKFX_E_USAGE, "--format is for -o - (standard output) and -o naming a "
                                       "device or FIFO; --outdir keeps each input's format");
    return VKFX_OK;
}
