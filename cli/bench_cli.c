/* vkfx bench: times filter chains on a large random image beside a copy
 * kernel, as a table or JSON. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char *const default_chains[] = {
    "gauss:sigma=2", "gauss:sigma=8", "box:radius=15", "sobel", "cartoon",
};

static const char bench_usage[] =
    "usage: vkfx bench [--size WxH] [--reps N] [--precision 16|32] [--device D] [--json]\n"
    "                  [--no-subgroup-ops] [--variants] [--fast] [CHAIN...]\n"
    "       vkfx bench --decode FILE.jpg [--reps N] [--device D] [--json]\n"
    "                  [--sub-bits N] [--lanes N]\n"
    "Times each CHAIN (default: gauss:sigma=2, gauss:sigma=8, box:radius=15, sobel,\n"
    "cartoon) on a random WxH image (default 4096x4096) in the internal format, with\n"
    "Vulkan timestamp queries: the median of N runs (default 20) after a quarter\n"
    "of a second of warm-up runs (GPU clocks drop while new kernels compile), next\n"
    "to three references on the same image: 'copy' reads each pixel once and\n"
    "writes it once, 'read' only reads it once, 'copy-sat' reads it once and writes\n"
    "32 bytes per pixel, the bytes of a summed-area table (satblur, satdof). GB/s\n"
    "counts the image read once and written once ('read': read once; 'copy-sat':\n"
    "read once, 32 bytes a pixel written); 'x copy' is the ratio to the copy's time.\n"
    "--variants times each chain once per kernel variant of its filters that applies\n"
    "on the device, named 'CHAIN [family:variant]' (what VKFX_VARIANT=family:variant\n"
    "forces in a run); a chain whose filters have one kernel each runs once.\n"
    "--fast times the filters' fast paths (vkfx --fast), whose outputs may differ\n"
    "between devices; without it, the paths that give the same bytes everywhere.\n"
    "--decode times the device's decode of a JPEG (baseline 8-bit gray or YCbCr,\n"
    "stored upright: what --jpeg-codec gpu decodes there), from its bytes on the\n"
    "device to the chain's input, per pass (jpeg.*), the median of N runs after\n"
    "the warm-up, beside libjpeg-turbo's decode of the same file on one core; GB/s\n"
    "counts the decoded samples written. Then what the synchronisation of the\n"
    "entropy-coded data took: its subsequences of --sub-bits bits (8..65536) and\n"
    "sequences of --lanes subsequences (1..256) each, one work group each (both by\n"
    "default the device's), the rounds recorded to link the sequences, the most turns\n"
    "a work group took to settle its subsequences, the last round that moved a\n"
    "sequence's end (0: the first settled them) and the subsequences decoded in all.\n";

/* status, or a failure where the validation layer (VKFX_VALIDATE=1) spoke. */
static int validated(vkfx_context *ctx, int status)
{
    if (status == VKFX_OK && vkfx_context_validation_messages(ctx))
        status = vkfx_fail(VKFX_E_VULKAN, "the validation layer reported %u message(s)",
                           vkfx_context_validation_messages(ctx));
    return status;
}

/* vkfx bench --decode FILE. */
static int bench_decode(const char *path, const vkfx_bench_opts *o, const char *device,
                        bool no_subgroup_ops, bool json)
{
    vkfx_context *ctx = NULL;
    vkfx_staging *staging = NULL;
    vkfx_bench_case c;
    double host_ms = 0;
    vkfx_context_opts copts = {.device = device, .no_subgroup_ops = no_subgroup_ops};
    cli_context_env(&copts);
    int status = vkfx_context_create(&copts, &ctx);
    if (status == VKFX_OK && (status = vkfx_staging_create(ctx, 0, &staging)) == VKFX_OK)
        status = vkfx_bench_decode(ctx, staging, path, o, &c, &host_ms);
    status = validated(ctx, status);
    if (status == VKFX_OK && json) {
        printf("{\"device\": ");
        cli_json_string(stdout, vkfx_context_device_name(ctx));
        printf(", \"decode\": ");
        cli_json_string(stdout, path);
        printf(", \"reps\": %d, \"ms\": %.4f, \"ms_min\": %.4f, \"gbps\": %.4f, "
               "\"host_ms\": %.4f, \"passes\": {",
               o->reps, c.ms_median, c.ms_min, c.gbps, host_ms);
        for (uint32_t p = 0; p < c.npasses; p++) {
            printf("%s", p ? ", " : "");
            cli_json_string(stdout, c.passes[p].label);
            printf(": %.4f", c.passes[p].ms);
        }
        printf("}, \"notes\": {");
        for (uint32_t n = 0; n < c.nnotes; n++) {
            printf("%s", n ? ", " : "");
            cli_json_string(stdout, c.notes[n].key);
            printf(": %llu", (unsigned long long)c.notes[n].value);
        }
        printf("}}\n");
    } else if (status == VKFX_OK) {
        printf("device: %s, median of %d runs\n", vkfx_context_device_name(ctx), o->reps);
        printf("%-40s %10s %10s %10s\n", "case", "ms", "min ms", "GB/s");
        printf("%-40s %10.4f %10.4f %10.3f\n", c.name, c.ms_median, c.ms_min, c.gbps);
        for (uint32_t p = 0; p < c.npasses; p++)
            printf("  %-38s %10.4f\n", c.passes[p].label, c.passes[p].ms);
        printf("%-40s %10.4f\n", "libjpeg-turbo, one core (host)", host_ms);
        for (uint32_t n = 0; n < c.nnotes; n++)
            printf("%-40s %10llu\n", c.notes[n].key, (unsigned long long)c.notes[n].value);
    } else {
        cli_print_error();
    }
    vkfx_staging_destroy(staging);
    vkfx_context_destroy(ctx);
    return cli_exit_code(status);
}

int cli_bench_main(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"size", required_argument, NULL, 's'},
        {"reps", required_argument, NULL, 'r'},
        {"precision", required_argument, NULL, 'p'},
        {"device", required_argument, NULL, 'd'},
        {"json", no_argument, NULL, 'j'},
        {"no-subgroup-ops", no_argument, NULL, 'n'},
        {"variants", no_argument, NULL, 'v'},
        {"fast", no_argument, NULL, 'F'},
        {"decode", required_argument, NULL, 'D'},
        {"sub-bits", required_argument, NULL, 'S'},
        {"lanes", required_argument, NULL, 'L'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    vkfx_bench_opts o = {.width = 4096, .height = 4096, .precision = 16, .reps = 20};
    const char *device = NULL, *decode = NULL;
    bool no_subgroup_ops = false;
    bool json = false;
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        char tail = 0;
        switch (c) {
        case 's':
            if (sscanf(optarg, "%ux%u%c", &o.width, &o.height, &tail) != 2 || !o.width ||
                !o.height || o.width > 65536 || o.height > 65536) {
                return cli_usage_error("bench", "--size '%s' must be WxH, e.g. 4096x4096", optarg);
            }
            break;
        case 'r':
            o.reps = atoi(optarg);
            if (o.reps < 1 || o.reps > 10000) {
                return cli_usage_error("bench", "--reps '%s' must be 1..10000", optarg);
            }
            break;
        case 'p':
            o.precision = atoi(optarg);
            if (o.precision != 16 && o.precision != 32) {
                return cli_usage_error("bench", "--precision '%s' must be 16 or 32", optarg);
            }
            break;
        case 'd':
            device = optarg;
            break;
        case 'j':
            json = true;
            break;
        case 'n':
            no_subgroup_ops = true;
            break;
        case 'v':
            o.variants = true;
            break;
        case 'F':
            o.fast = true;
            break;
        case 'D':
            decode = optarg;
            break;
        case 'S':
            o.jpeg_sub_bits = (uint32_t)atoi(optarg);
            if (o.jpeg_sub_bits < 8 || o.jpeg_sub_bits > 65536)
                return cli_usage_error("bench", "--sub-bits '%s' must be 8..65536", optarg);
            break;
        case 'L':
            o.jpeg_lanes = (uint32_t)atoi(optarg);
            if (o.jpeg_lanes < 1 || o.jpeg_lanes > 256)
                return cli_usage_error("bench", "--lanes '%s' must be 1..256", optarg);
            break;
        case 'h':
            fputs(bench_usage, stdout);
            return EXIT_OK;
        default:
            cli_message("vkfx bench: unknown option '%s'", argv[optind - 1]);
            fputs(bench_usage, stderr);
            return EXIT_USAGE;
        }
    }
    if (decode && (optind < argc || o.variants)) {
        cli_message("vkfx bench: --decode times the decode alone: no CHAIN or --variants");
        return EXIT_USAGE;
    }
    if (decode)
        return bench_decode(decode, &o, device, no_subgroup_ops, json);
    o.chains = optind < argc ? (const char *const *)argv + optind : default_chains;
    o.nchains = optind < argc ? (size_t)(argc - optind)
                              : sizeof(default_chains) / sizeof(default_chains[0]);
    /* Check every chain before the device starts. */
    for (size_t i = 0; i < o.nchains; i++) {
        vkfx_chain *chain = NULL;
        if (vkfx_chain_parse(o.chains[i], &chain) < 0) {
            cli_print_error();
            return EXIT_USAGE;
        }
        vkfx_chain_free(chain);
    }
    vkfx_context *ctx = NULL;
    vkfx_staging *staging = NULL;
    vkfx_bench_case *cases = calloc(vkfx_bench_max_cases(&o), sizeof(*cases));
    size_t ncases = 0;
    vkfx_context_opts copts = {.device = device, .no_subgroup_ops = no_subgroup_ops};
    cli_context_env(&copts);
    int status = cases ? VKFX_OK : vkfx_fail(VKFX_E_NOMEM, "out of host memory");
    if (status == VKFX_OK && (status = vkfx_context_create(&copts, &ctx)) == VKFX_OK &&
        (status = vkfx_staging_create(ctx, 0, &staging)) == VKFX_OK)
        status = vkfx_bench(ctx, staging, &o, cases, &ncases);
    status = validated(ctx, status);
    if (status == VKFX_OK && json) {
        printf("{\"device\": ");
        cli_json_string(stdout, vkfx_context_device_name(ctx));
        printf(", \"width\": %u, \"height\": %u, \"format\": \"%s\", \"reps\": %d, \"fast\": %s, "
               "\"cases\": [",
               o.width, o.height, o.precision == 32 ? "rgba32f" : "rgba16f", o.reps,
               o.fast ? "true" : "false");
        for (size_t i = 0; i < ncases; i++) {
            printf("%s\n  {\"name\": ", i ? "," : "");
            cli_json_string(stdout, cases[i].name);
            printf(", \"ms\": %.4f, \"ms_min\": %.4f, \"gbps\": %.1f, \"vs_copy\": %.3f, "
                   "\"extra_bytes\": %llu, \"passes\": {",
                   cases[i].ms_median, cases[i].ms_min, cases[i].gbps, cases[i].vs_copy,
                   (unsigned long long)cases[i].extra_bytes);
            for (uint32_t p = 0; p < cases[i].npasses; p++) {
                printf("%s", p ? ", " : "");
                cli_json_string(stdout, cases[i].passes[p].label);
                printf(": %.4f", cases[i].passes[p].ms);
            }
            printf("}, \"notes\": {");
            for (uint32_t n = 0; n < cases[i].nnotes; n++) {
                printf("%s", n ? ", " : "");
                cli_json_string(stdout, cases[i].notes[n].key);
                printf(": %llu", (unsigned long long)cases[i].notes[n].value);
            }
            printf("}}");
        }
        printf("\n]}\n");
    } else if (status == VKFX_OK) {
        printf("device: %s, %ux%u %s, median of %d runs%s\n", vkfx_context_device_name(ctx),
               o.width, o.height, o.precision == 32 ? "rgba32f" : "rgba16f", o.reps,
               o.fast ? ", --fast" : "");
        printf("%-40s %10s %10s %10s %8s\n", "case", "ms", "min ms", "GB/s", "x copy");
        for (size_t i = 0; i < ncases; i++) {
            printf("%-40s %10.4f %10.4f %10.1f %8.2f\n", cases[i].name, cases[i].ms_median,
                   cases[i].ms_min, cases[i].gbps, cases[i].vs_copy);
            for (uint32_t p = 0; cases[i].npasses > 1 && p < cases[i].npasses; p++)
                printf("  %-38s %10.4f\n", cases[i].passes[p].label, cases[i].passes[p].ms);
            if (cases[i].extra_bytes)
                printf("  %-38s %10.1f MiB beyond input and output\n", "device memory",
                       cases[i].extra_bytes / 1048576.0);
        }
    } else {
        cli_print_error();
    }
    free(cases);
    vkfx_staging_destroy(staging);
    vkfx_context_destroy(ctx);
    return cli_exit_code(status);
}
