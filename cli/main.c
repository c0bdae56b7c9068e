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
    "usage: vkfx INPUT [-f CHAIN] -o OUTPUT [options]\n"
    "       vkfx INPUT... [-f CHAIN] (-o TEMPLATE | --outdir DIR) [options]\n"
    "       vkfx run [options] JOBFILE|-     (one job per line; vkfx run --help)\n"
    "       vkfx bench [--size WxH] [--reps N] [--precision 16|32] [--json] [--variants]\n"
    "                  [CHAIN...]\n"
    "       vkfx compare A B [--metric maxabs|psnr|ssim] [--tolerance X] [--diff DIFF.png]\n"
    "       vkfx preview INPUT [-f CHAIN] [-o SAVE_PATH] [--port N] [--no-browser]\n"
    "       vkfx info [--json] FILE...  (format, size, depth, profile, metadata)\n"
    "       vkfx --filters | --help-filter NAME | --list-devices | --version | --help\n"
    "       vkfx help [COMMAND|FILTER] | vkfx version\n"
    "\n"
    "Runs a chain of image filters on the GPU (or on the software Vulkan device\n"
    "when there is no GPU) and writes the result.\n"
    "\n"
    "  -f, --filter CHAIN     filters applied left to right, all on the GPU:\n"
    "                         name[:key=value]...[,name[:key=value]...]...\n"
    "                         e.g. 'gauss:sigma=3,sobel:invert=1'. A backslash\n"
    "                         escapes the next character, so file names in\n"
    "                         options may hold , : = (quote the chain in the shell).\n"
    "                         Without -f the image is converted: decoded, turned\n"
    "                         upright and written with its metadata\n"
    "  -o, --output FILE      output image; format from the extension: png, jpg,\n"
    "                         jpeg, tif, tiff, webp, exr, bmp, hdr, tga. With\n"
    "                         several inputs, a TEMPLATE (below); its folders are\n"
    "                         created as needed. An existing folder or a name\n"
    "                         ending in '/' is --outdir. '-' writes the image to\n"
    "                         standard output (one input; --format; not onto a\n"
    "                         terminal). A character device (/dev/null) takes\n"
    "                         every input, written with no temporary (--format\n"
    "                         where it has no extension). How files are written:\n"
    "                         see 'Files' below\n"
    "      --outdir DIR       write each output into DIR (created as needed) under\n"
    "                         its input's name (GIF, PSD, standard input: NAME.png)\n"
    "  -n, --no-clobber       never replace an existing file: files to be written\n"
    "                         (outputs, out=, plot=, --json) that exist are a usage\n"
    "                         error before any work, naming them\n"
    "      --no-fsync         do not flush each file to disk before renaming it\n"
    "                         into place (faster; after a crash a file may be empty)\n"
    "      --format EXT       what -o - (or a device or FIFO without an extension)\n"
    "                         writes: png (default), jpg, tif, webp, exr, bmp,\n"
    "                         hdr, tga\n"
    "  -j, --jobs N           threads that decode and encode files while the GPU\n"
    "                         works (default: one per core but one, which feeds\n"
    "                         the GPU; one per core below 4 cores)\n"
    "      --progress         files done, files/s and time left on stderr, also when\n"
    "                         it is not a terminal or there is one input (shown on a\n"
    "                         terminal for several inputs anyway)\n"
    "      --quiet            no notes (metadata a format drops, pages left unread,\n"
    "                         a filter's counts) and no progress line unless\n"
    "                         --progress; errors still. Without it each note is\n"
    "                         shown once a run, with how often it came again at\n"
    "                         the end\n"
    "      --json[=FILE]      one JSON object per input, a line each, on stdout or in\n"
    "                         FILE: index, input, output, width, height, gpu_ms (per\n"
    "                         pass), gpu_ms_total, notes (counts filters report),\n"
    "                         wall_ms, status (ok, error, or exists: skipped by\n"
    "                         --skip-existing) and error (the message); with --shard\n"
    "                         also shard (\"K/N\"), in vkfx run also line; on stdout\n"
    "                         line by line, FILE complete when the run ends\n"
    "      --shard K/N        run only part K of N (K from 0 to N-1): the planned\n"
    "                         jobs sorted by output name, then input, and every Nth\n"
    "                         from the Kth, so N runs with the same arguments (on as\n"
    "                         many machines, in any order of arguments) share the\n"
    "                         work, each job once; outputs are still checked\n"
    "                         against the whole plan. K=$SLURM_ARRAY_TASK_ID,\n"
    "                         N=$SLURM_ARRAY_TASK_COUNT in a Slurm array (--array=0-3);\n"
    "                         K=$JOB_COMPLETION_INDEX in a Kubernetes Indexed Job\n"
    "      --skip-existing    do not run jobs whose output file exists (outputs are\n"
    "                         only ever renamed into place complete), so a killed\n"
    "                         or requeued run finishes the set without redoing work\n"
    "  -q, --quality N        JPEG and lossy WebP quality 1..100 (default 90)\n"
    "      --jpeg-subsampling 444|422|420\n"
    "                         JPEG chroma subsampling (default 444 at quality 90\n"
    "                         and above, 420 below)\n"
    "      --jpeg-progressive JPEG output in progressive scans (default baseline),\n"
    "                         whose Huffman tables are always optimised\n"
    "      --jpeg-optimize    JPEG Huffman tables optimised for the image: files 3\n"
    "                         to 6% smaller, 2 to 5 times the encoding time\n"
    "                         (default the standard tables, as libjpeg, Pillow\n"
    "                         and OpenCV write)\n"
    "      --png-level N      PNG zlib compression level 0..9 (default 6)\n"
    "      --depth 8|16       bits a sample of the output (default the input's, float\n"
    "                         as 16-bit where the format has no float): PNG and\n"
    "                         TIFF hold both, the other 8-bit formats 8 only (16\n"
    "                         for them is a usage error), OpenEXR and HDR neither\n"
    "      --tiff-compression none|lzw|deflate\n"
    "                         TIFF output compression (default deflate: lossless,\n"
    "                         the smallest of the three, read by every TIFF reader)\n"
    "      --lossless         WebP output lossless (default lossy at -q)\n"
    "      --exr-float        OpenEXR output in float channels (default half)\n"
    "      --background COLOR what transparent pixels are flattened onto in a\n"
    "                         format without alpha (JPEG, HDR; default white,\n"
    "                         noted once a run): a name (white, black, gray, red,\n"
    "                         green, blue), #rgb, #rrggbb or R,G,B (0..255)\n"
    "      --max-pixels N     refuse inputs (and maps) whose header declares more\n"
    "                         than N pixels, before decoding (default 268435456).\n"
    "                         It bounds memory too: a file or stream is read up to\n"
    "                         17 x N bytes + 1 MiB and no further; an OpenEXR file's\n"
    "                         channels (all of them, as float planes of its data\n"
    "                         window) may take 16 x N bytes, its display window N\n"
    "                         pixels; its chunk table is checked before that memory\n"
    "                         is taken\n"
    "      --precision auto|16|32\n"
    "                         internal format: auto (default) is rgba32f when the\n"
    "                         input or a map the chain reads has 16-bit or float\n"
    "                         samples, else rgba16f; 16 and 32 force one\n"
    "      --fast             let filters use the device's faster arithmetic where\n"
    "                         they have it (--help-filter NAME says what): outputs\n"
    "                         then differ between devices; without it every output\n"
    "                         is the same bytes on every device\n"
    "      --no-linearize     take 8/16-bit values as they are (as linear light): no\n"
    "                         sRGB or profile curve on input or output, as tools\n"
    "                         that filter encoded values do; the profile is kept\n"
    "      --linear           the same as --no-linearize (its older name)\n"
    "      --to-srgb          convert inputs with an ICC profile to sRGB (lcms2,\n"
    "                         relative colorimetric) and write them without one;\n"
    "                         also for profiles vkfx cannot linearise with\n"
    "      --strip            write no metadata (profile, EXIF, XMP, text,\n"
    "                         resolution) into the outputs\n"
    "      --no-autorotate    keep the stored pixels and the stored EXIF or TIFF\n"
    "                         orientation (inputs and maps)\n"
    "      --no-shrink-on-load\n"
    "                         with --jpeg-codec cpu, decode JPEGs at full size even\n"
    "                         where the chain starts with a resize that shrinks 4x\n"
    "                         or more (with cpu decoded at 1/2, 1/4 or 1/8 in the\n"
    "                         DCT domain by default, leaving the resize at least\n"
    "                         2x: faster for thumbnails without a GPU, within 2\n"
    "                         code values of the exact path on average but up to\n"
    "                         75 at high-contrast edges, as the DCT domain averages\n"
    "                         encoded values, not light); with auto and gpu JPEGs\n"
    "                         are always decoded at full size, the same bytes on\n"
    "                         every device\n"
    "      --timings          GPU milliseconds per pass on stderr, then the host's\n"
    "                         wall clock: process start to main, to device ready\n"
    "                         (loader, instance, device, staging), pipelines built,\n"
    "                         decode, upload, record, GPU (waited for), read-back,\n"
    "                         encode, exit (context closed) and the total; in a\n"
    "                         batch the per-job phases are summed over the jobs\n"
    "      --init-only        create the GPU context (instance, device, pipeline\n"
    "                         cache) and exit: the floor under every run's start;\n"
    "                         with --timings its breakdown\n"
    "      --device D         device index or name substring (see --list-devices)\n"
    "      --jpeg-codec auto|gpu|cpu\n"
    "                         where JPEG files are decoded and encoded: gpu on the\n"
    "                         device, byte for byte libjpeg-turbo's pixels and\n"
    "                         file (baseline 8-bit gray or YCbCr inputs upright\n"
    "                         as stored, decoded at full size, so a thumbnail is\n"
    "                         the full decode resized; baseline output; the rest,\n"
    "                         and streams the device finds damaged, stay with\n"
    "                         libjpeg-turbo), cpu with libjpeg-turbo (and its\n"
    "                         scaled decode for thumbnails); auto (default)\n"
    "                         decodes files of 8 megapixels or more on a GPU and\n"
    "                         smaller ones with libjpeg-turbo's threads (faster\n"
    "                         for them), always at full size, and encodes on the\n"
    "                         device unless it is a software one (lavapipe)\n"
    "      --no-subgroup-ops  run the shared-memory variants of kernels that\n"
    "                         otherwise use subgroup arithmetic (for testing)\n"
    "      --filters          list the filters with one line of help each\n"
    "      --help-filter NAME the options of one filter: type, default, range\n"
    "      --list-devices     the Vulkan devices, '*' marks the default pick\n"
    "      --version          print the version\n"
    "  -h, --help             this text\n"
    "\n"
    "Batches: INPUT may be several files, a directory (the files directly in it\n"
    "whose content is in a format vkfx reads; files named as images that are not\n"
    "are reported) or '-' (standard input, once).\n"
    "One GPU context and one set of pipelines serve the whole batch. In -o and in\n"
    "the chain's option values, {stem} (file name without extension), {name} (with\n"
    "it), {ext} (extension, no dot), {dir} (the input's directory, '.' if none) and\n"
    "{index} (1, 2, ... in input order; {index:04}: 0001, 0002, ...) are the\n"
    "input's; {{ and }} are literal braces. In a chain the fields' values are\n"
    "escaped for it, so a file named 'a,b.png' still pairs:\n"
    "-f 'dof:depth=depth/{stem}.png'. Outputs are checked before any work: two\n"
    "inputs writing one file, or an output that is an input, are usage errors. A\n"
    "file that fails is reported and skipped; the others are written. Only\n"
    "regular files are taken from a directory; others are reported and skipped.\n"
    "\n"
    "Files: every file vkfx writes (outputs, histogram's out= and plot=, --json=FILE,\n"
    "the kernel cache) goes to a temporary beside it, created afresh, flushed to\n"
    "disk and renamed over the target, which keeps its permission bits (and owner\n"
    "and group where allowed); a character device or FIFO is written straight\n"
    "through, as the shell's '>' would (/dev/null as the encoder goes, others\n"
    "whole at the end); a directory, a file without any write bit, or a folder\n"
    "this user cannot write in (an output's, or the one its new folders would be\n"
    "made in) is a usage error before any input is read. Before any work every\n"
    "file written is checked against every file read (inputs, depth and radius\n"
    "maps) and against each other, by identity (links and other spellings\n"
    "included): a clash is a usage error naming both. In a batch, a file named in\n"
    "the chain (out=, plot=) needs a template field, or it would be written over\n"
    "once per input.\n"
    "\n"
    "Signals: SIGINT (Ctrl-C), SIGTERM, SIGHUP, SIGQUIT and SIGPIPE all stop the\n"
    "run: no new work starts, the files in hand are finished within 3 seconds\n"
    "(else dropped), every temporary is removed and the exit status is 128 + the\n"
    "signal (130 for SIGINT). A file written is always complete. A write to a\n"
    "closed pipe (vkfx ... -o - | head -c 10) ends the same way, with 141.\n"
    "\n"
    "File names: the shell's quoting is all a file argument needs (spaces, commas,\n"
    "colons, any UTF-8). In a chain, a backslash escapes the next character, so an\n"
    "option value may hold , : = or \\ (depth=my\\,file.png); quote the chain in\n"
    "single quotes so the shell keeps the backslashes. '#' picks an OpenEXR channel\n"
    "(depth=r.exr#Z) only after an .exr name; elsewhere it is part of the name.\n"
    "\n"
    "Inputs, recognised by content: PNG (8/16-bit gray, gray+alpha, RGB, RGBA,\n"
    "palette), JPEG (libjpeg-turbo: gray, YCbCr, CMYK, YCCK; baseline or\n"
    "progressive; a damaged scan is decoded as libjpeg-turbo decodes it, with a\n"
    "note), TIFF (1 to 16-bit, signed and float gray, RGB, palette, CMYK, L*a*b*\n"
    "and YCbCr, with alpha; strips or tiles, contiguous or planar, any compression\n"
    "libtiff reads; the first page), WebP (lossy, lossless, alpha; the first frame\n"
    "of an animation), BMP, TGA, GIF (first frame), PSD, Radiance HDR, OpenEXR\n"
    "(scanline or tiled, half, float or uint channels: R, G, B, A or Y, also with a\n"
    "layer prefix such as 'beauty.R'). A page or frame left unread is noted on\n"
    "stderr.\n"
    "8/16-bit files are sRGB unless they embed an ICC profile, whose own tone curves\n"
    "(RGB or gray, parametric or sampled) then decode and re-encode them under the\n"
    "same profile; a profile without usable curves (LUT-only) converts them to sRGB\n"
    "through lcms2, as --to-srgb does every profile; a CMYK JPEG is read through its\n"
    "CMYK profile; a damaged or unusable profile is read as sRGB; each with a note.\n"
    "Processing is in linear light with premultiplied alpha\n"
    "(--no-linearize: on the values as stored).\n"
    "Photos: the EXIF orientation (JPEG, PNG eXIf, WebP) or a TIFF's orientation\n"
    "tag turns the pixels upright on reading, maps too (each by its own tag), and\n"
    "the EXIF written says 1. The ICC profile, EXIF, XMP, PNG text and resolution\n"
    "go to the output where its format holds them: PNG all; JPEG all but text\n"
    "(EXIF up to 64 KiB, longer XMP as extended XMP); TIFF all, text as its tags\n"
    "(Description, Author, Copyright, Software, Creation Time); WebP profile,\n"
    "EXIF, XMP; OpenEXR text as comments, owner, capDate (Description, Copyright,\n"
    "Creation Time), resolution as xDensity, an RGB matrix profile as its\n"
    "chromaticities; BMP, TGA and HDR none. What an output drops is noted once\n"
    "a run.\n"
    "--json reports each input's stored and applied orientation and its colour.\n"
    "Outputs: PNG and TGA keep the input's channels (PNG also its bit depth; float\n"
    "input gives 16-bit); TIFF keeps channels and depth (float too); JPEG is 8-bit\n"
    "gray or RGB, WebP and BMP 8-bit RGB or RGBA, HDR float RGB. OpenEXR input and\n"
    "output are linear, premultiplied and unclamped, the image being the display\n"
    "window (pixels outside the data window are transparent black); output keeps\n"
    "the input's channels as Y, YA, RGB or RGBA.\n"
    "\n"
    "Depth maps (depth=FILE in satdof): the first channel of an image, 8/16-bit\n"
    "read as [0,1]; FILE.exr takes its Z channel, else one whose last component is\n"
    "Z (ViewLayer.Depth.Z), else one whose name contains 'depth'; FILE.exr#NAME\n"
    "picks a channel; depth=self reads the input EXR's own depth channel. Float\n"
    "depth is in scene units, and so are focus and range then. Maps have the\n"
    "input's size and orientation: a filter with a map after resize, crop, rotate\n"
    "or flip is refused (put it first); they are never resampled or turned.\n"
    "\n"
    "Resize, crop, rotate, flip: later filters see the new size. Thumbnails of a\n"
    "folder: vkfx -f 'resize:longest=256' -o 'thumbs/{stem}.jpg' photos/\n"
    "\n"
    "Preview: 'vkfx preview INPUT -f CHAIN -o FILE' serves a page on 127.0.0.1 that\n"
    "renders the chain as its options change, with the equivalent command line;\n"
    "'vkfx preview --help' has the details.\n"
    "\n"
    "Compiled kernels are kept in $XDG_CACHE_HOME/vkfx (else ~/.cache/vkfx), one\n"
    "file per device, so later runs start faster. The environment variables for\n"
    "development (validation, kernel variants, statistics) are in the README.\n"
    "\n"
    "Exit status: 0 success, 1 processing error (unreadable or corrupt input,\n"
    "unwritable output or report, standard output included, GPU failure; in a\n"
    "batch, any file failed), 2 usage error (bad arguments or chain, clashing\n"
    "files), 128 + N stopped by signal N (130 for Ctrl-C).\n";

int cli_exit_code(int status)
{
    return status == VKFX_OK ? EXIT_OK : status == VKFX_E_USAGE ? EXIT_USAGE : EXIT_PROCESSING;
}

void cli_print_error(void)
{
    cli_message("vkfx: %s", vkfx_error_message());
}

void cli_log(void *user, const char *message)
{
    (void)user;
    /* The validation layer's messages fail the run: errors, which --quiet keeps. */
    if (strncmp(message, "validation ", 11) == 0)
        cli_message("vkfx: %s", message);
    else
        cli_note(message, "%s", message);
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
        const char *best = vkfx_filter_suggest(name);
        cli_message("vkfx: unknown filter '%s'%s%s%s (vkfx --filters lists them)", name,
                    best ? "; did you mean '" : "", best ? best : "", best ? "'?" : "");
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

/* Whether the environment variable is set to exactly value. */
static bool env_is(const char *name, const char *value)
{
    const char *v = getenv(name);
    return v && strcmp(v, value) == 0;
}

void cli_context_env(vkfx_context_opts *o)
{
    o->validate = cli_env_flag("VKFX_VALIDATE");
    o->log = cli_log;
    o->no_matrix = env_is("VKFX_MATRIX", "0");
    o->no_half_pack = env_is("VKFX_HALF_PACK", "0");
    o->pipeline_stats = env_is("VKFX_PIPELINE_STATS", "1");
    o->no_pipeline_cache = env_is("VKFX_PIPELINE_CACHE", "0");
    const char *v = getenv("VKFX_VARIANT");
    o->variants = v && *v ? v : NULL;
    v = getenv("VKFX_STAGING_BYTES");
    o->staging_bytes = v && *v ? strtoull(v, NULL, 0) : 0;
    v = getenv("VKFX_TILE");
    o->tile = v && atoi(v) > 0 ? (uint32_t)atoi(v) : 0;
}

/* --init-only: the GPU context created and closed, the floor of every run. */
static int init_only(const cli_batch_opts *o)
{
    vkfx_context *ctx = NULL;
    int ret = vkfx_context_create(&o->ctx, &ctx);
    if (ret < 0) {
        cli_print_error();
        return cli_exit_code(ret);
    }
    cli_wall w = {.ready_ms = cli_since_start_ms()};
    vkfx_context_times_get(ctx, &w.ctx);
    double t = vkfx_now_ms();
    vkfx_context_destroy(ctx);
    w.exit_ms = vkfx_now_ms() - t;
    if (o->timings)
        cli_wall_print(&w);
    return EXIT_OK;
}

int main(int argc, char **argv)
{
    if (cli_signals_start() < 0) {
        fprintf(stderr, "vkfx: cannot start the thread that handles signals\n");
        return EXIT_PROCESSING;
    }
    if (argc > 1 && strcmp(argv[1], "bench") == 0)
        return cli_bench_main(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "compare") == 0)
        return cli_compare_main(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "run") == 0)
        return cli_run_main(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "preview") == 0)
        return cli_preview_main(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "info") == 0)
        return cli_info_main(argc - 1, argv + 1);
    /* The words users type first: 'vkfx help [COMMAND|FILTER]', 'vkfx version'. */
    if (argc == 2 && strcmp(argv[1], "version") == 0) {
        printf("vkfx %s\n", VKFX_VERSION);
        return EXIT_OK;
    }
    if (argc > 1 && strcmp(argv[1], "help") == 0) {
        static const struct {
            const char *name;
            int (*main)(int, char **);
        } commands[] = {{"run", cli_run_main},
                        {"bench", cli_bench_main},
                        {"compare", cli_compare_main},
                        {"preview", cli_preview_main},
                        {"info", cli_info_main}};
        if (argc == 2) {
            fputs(usage_text, stdout);
            return EXIT_OK;
        }
        for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
            if (strcmp(argv[2], commands[i].name) == 0)
                return commands[i].main(2, (char *[]){argv[2], "--help", NULL});
        return help_filter(argv[2]);
    }

    cli_batch_opts o = {0};
    cli_info info = CLI_INFO_NONE;
    const char *info_arg = NULL;
    int first = argc;
    if (cli_parse_options(argc, argv, CLI_SCOPE_JOB | CLI_SCOPE_RUN | CLI_SCOPE_INFO, &o, &first,
                          &info, &info_arg) < 0)
        return cli_usage_error(NULL, "%s", vkfx_error_message());
    switch (info) {
    case CLI_INFO_NONE:
        break;
    case CLI_INFO_FILTERS:
        return list_filters();
    case CLI_INFO_HELP_FILTER:
        return help_filter(info_arg);
    case CLI_INFO_LIST_DEVICES:
        return list_devices();
    case CLI_INFO_VERSION:
        printf("vkfx %s\n", VKFX_VERSION);
        return EXIT_OK;
    case CLI_INFO_HELP:
        fputs(usage_text, stdout);
        return EXIT_OK;
    }
    cli_context_env(&o.ctx);
    if (o.init_only)
        return init_only(&o);
    if (cli_check_job(&o.job, argc - first) < 0)
        return cli_usage_error(NULL, "%s", vkfx_error_message());
    return cli_batch(&o, argv + first, argc - first);
}
