/* vkfx info FILE...: what a file holds, as vipsheader and identify tell it: format, stored
 * size, channels, bit depth, orientation, the ICC profile's description and the metadata
 * blocks with their sizes; one line a file, or one JSON object a line with --json. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char info_usage[] =
    "usage: vkfx info [--json] FILE...\n"
    "\n"
    "Prints what each FILE holds, one line a file: its format (from its content),\n"
    "size as stored, channels, bit depth, the EXIF or TIFF orientation (and the\n"
    "size once turned upright), the ICC profile's description, and the metadata\n"
    "blocks with their sizes (ICC, EXIF, XMP, text, resolution). --json prints one\n"
    "object a line instead: file, format, width, height, channels, bits, float,\n"
    "orientation, profile, icc_bytes, exif_bytes, xmp_bytes, texts, text_bytes,\n"
    "resolution (x, y, unit) where there is one. The file is decoded to be sure it\n"
    "reads. A file that cannot be read is reported and the others still are;\n"
    "the exit status is then 1.\n";

typedef struct facts {
    const char *format;
    uint32_t width, height, channels, bits;
    bool is_float;
    int orientation; /* 0: none stored */
    char profile[256];
    size_t texts, text_bytes;
} facts;

/* The format by the file's first bytes. */
static const char *format_of(const char *path)
{
    unsigned char head[64];
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t n = fread(head, 1, sizeof(head), f);
    fclose(f);
    const vkfx_codec *c = vkfx_codec_sniff(head, n);
    return c ? c->name : NULL;
}

static const char *unit_name(vkfx_res_unit u)
{
    switch (u) {
    case VKFX_RES_NONE:
        return "none";
    case VKFX_RES_PER_INCH:
        return "inch";
    case VKFX_RES_PER_CM:
        return "cm";
    }
    return "none";
}

static void print_line(const char *path, const facts *f, const vkfx_meta *m)
{
    char line[2048];
    int n = snprintf(line, sizeof(line), "%s: %s %ux%u, %u channel%s, %u-bit%s", path, f->format,
                     f->width, f->height, f->channels, f->channels == 1 ? "" : "s", f->bits,
                     f->is_float ? " float" : "");
    if (f->orientation > 1)
        n += snprintf(line + n, sizeof(line) - (size_t)n, ", orientation %d (upright %ux%u)",
                      f->orientation, f->orientation >= 5 ? f->height : f->width,
                      f->orientation >= 5 ? f->width : f->height);
    if (f->profile[0])
        n += snprintf(line + n, sizeof(line) - (size_t)n, ", profile '%s'", f->profile);
    if (m->icc.data)
        n += snprintf(line + n, sizeof(line) - (size_t)n, ", ICC %zu B", m->icc.size);
    if (m->exif.data)
        n += snprintf(line + n, sizeof(line) - (size_t)n, ", EXIF %zu B", m->exif.size);
    if (m->xmp.data)
        n += snprintf(line + n, sizeof(line) - (size_t)n, ", XMP %zu B", m->xmp.size);
    if (f->texts)
        n += snprintf(line + n, sizeof(line) - (size_t)n, ", %zu text%s %zu B", f->texts,
                      f->texts == 1 ? "" : "s", f->text_bytes);
    if (m->has_res)
        snprintf(line + n, sizeof(line) - (size_t)n, ", resolution %gx%g per %s", m->res_x,
                 m->res_y, unit_name(m->res_unit));
    /* Names and profile descriptions come from files: shown escaped. */
    char shown[4 * sizeof(line)];
    cli_escape(line, shown, sizeof(shown));
    printf("%s\n", shown);
}

static void print_json(const char *path, const facts *f, const vkfx_meta *m)
{
    printf("{\"file\": ");
    cli_json_string(stdout, path);
    printf(", \"format\": \"%s\", \"width\": %u, \"height\": %u, \"channels\": %u, \"bits\": %u, "
           "\"float\": %s, \"orientation\": %d, \"profile\": ",
           f->format, f->width, f->height, f->channels, f->bits, f->is_float ? "true" : "false",
           f->orientation ? f->orientation : 1);
    cli_json_string(stdout, f->profile);
    printf(", \"icc_bytes\": %zu, \"exif_bytes\": %zu, \"xmp_bytes\": %zu, \"texts\": %zu, "
           "\"text_bytes\": %zu",
           m->icc.size, m->exif.size, m->xmp.size, f->texts, f->text_bytes);
    if (m->has_res)
        printf(", \"resolution\": {\"x\": %g, \"y\": %g, \"unit\": \"%s\"}", m->res_x, m->res_y,
               unit_name(m->res_unit));
    printf("}\n");
}

/* One file: 0, or a library status with its message set. */
static int info_one(const char *path, bool json)
{
    vkfx_pixels px = {0};
    vkfx_meta m = {0};
    int ret = vkfx_file_load_meta(path, &px, &m);
    if (ret == VKFX_OK) {
        facts f = {.format = format_of(path),
                   .width = px.width,
                   .height = px.height,
                   .channels = px.channels,
                   .bits = px.sample == VKFX_SAMPLE_U8    ? 8
                           : px.sample == VKFX_SAMPLE_U16 ? 16
                                                          : 32,
                   .is_float = px.sample == VKFX_SAMPLE_F32,
                   .orientation = m.stored_orientation};
        if (!f.format)
            f.format = "?";
        vkfx_icc_description(&m.icc, f.profile, sizeof(f.profile));
        for (uint32_t i = 0; i < m.ntexts; i++) {
            f.texts++;
            f.text_bytes += strlen(m.texts[i].key) + strlen(m.texts[i].text);
        }
        if (json)
            print_json(path, &f, &m);
        else
            print_line(path, &f, &m);
    }
    vkfx_pixels_free(&px);
    vkfx_meta_free(&m);
    return ret;
}

int cli_info_main(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"json", no_argument, NULL, 'J'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    bool json = false;
    int c;
    opterr = 0;
    optind = 0;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (c) {
        case 'J':
            json = true;
            break;
        case 'h':
            fputs(info_usage, stdout);
            return EXIT_OK;
        default:
            cli_message("vkfx info: unknown option '%s'", argv[optind - 1]);
            fprintf(stderr, "Try 'vkfx info --help'.\n");
            return EXIT_USAGE;
        }
    }
    if (optind >= argc) {
        cli_message("vkfx info: no file given");
        fprintf(stderr, "Try 'vkfx info --help'.\n");
        return EXIT_USAGE;
    }
    /* The stored size and orientation, not the upright pixels. */
    vkfx_file_set_autorotate(false);
    int code = EXIT_OK;
    for (int i = optind; i < argc; i++)
        if (info_one(argv[i], json) < 0) {
            cli_print_error();
            code = EXIT_PROCESSING;
        }
    if (fflush(stdout) != 0) {
        cli_message("vkfx info: standard output: cannot write");
        code = EXIT_PROCESSING;
    }
    return code;
}
