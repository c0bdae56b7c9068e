/* vkfx preview: a page on 127.0.0.1 that renders a chain on one input as its
 * options change, served through libmicrohttpd. Renders take turns on the
 * one device; one superseded by a newer request while it waits is dropped. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <turbojpeg.h>
#include <unistd.h>

#include "cli.h"
#include "preview_html.h"

extern char **environ;

static const char preview_usage[] =
    "usage: vkfx preview INPUT [-f CHAIN] [-o SAVE_PATH] [--port N] [--time-limit S]\n"
    "                    [--no-browser]\n"
    "\n"
    "Serves a page on 127.0.0.1 that shows INPUT through CHAIN as Save writes it:\n"
    "rendered on the GPU at full size and scaled to the view, again at each change\n"
    "(a draft at the view's size while a slider moves on a slow device). The\n"
    "chain's filters and every option are editable there, a click on the image sets\n"
    "focus of dof, satdof and bokeh to the depth under the cursor, and the page\n"
    "shows the equivalent command line. The input and its depth maps are decoded\n"
    "once and kept on the GPU. The first line on stdout is the page's address with\n"
    "its access token, http://127.0.0.1:PORT/?token=TOKEN; the browser opens it\n"
    "unless --no-browser or there is no display (DISPLAY, WAYLAND_DISPLAY).\n"
    "Ctrl-C (or SIGTERM) stops the server, exit status 0.\n"
    "\n"
    "  -f, --filter CHAIN   the chain the page starts with (default: none)\n"
    "  -o, --output FILE    where the page's Save writes the full-size result, as\n"
    "                       'vkfx INPUT -f CHAIN -o FILE' would (atomically, never\n"
    "                       over the input or a map the chain reads); without it\n"
    "                       Save is refused\n"
    "      --port N         TCP port on 127.0.0.1, 0..65535 (default 0: a free one)\n"
    "      --time-limit S   seconds a render or Save may take before it is stopped,\n"
    "                       1..86400 (default 60); the page shows the stop\n"
    "      --no-browser     do not open a browser\n"
    "      --jpeg-codec auto|gpu|cpu\n"
    "                       where the pictures and a JPEG Save are encoded, as for\n"
    "                       vkfx (the device's pictures: libjpeg-turbo's accurate\n"
    "                       DCT, quality 90, 4:2:0)\n"
    "  -h, --help           this text\n"
    "\n"
    "HTTP, for scripts (every request needs the token, as ?token=TOKEN or the\n"
    "cookie the page sets, and a Host of 127.0.0.1:PORT or localhost:PORT):\n"
    "  GET /                          the page\n"
    "  GET /info                      JSON: input, size, output, chain, maps, and\n"
    "                                 every filter with its options\n"
    "  GET /render?chain=C&width=W    JPEG of the chain at width W (default and\n"
    "                                 at most the input's): what Save writes,\n"
    "                                 rendered at full size and box-scaled to W;\n"
    "                                 with &draft=1 the chain runs on the input\n"
    "                                 scaled to W, every size in pixels of the\n"
    "                                 chain (maxcoc, radius, sigma) scaled with\n"
    "                                 it (faster, near; with ripple, whose\n"
    "                                 waves live on the pixel grid, exact);\n"
    "                                 &format=png for a\n"
    "                                 PNG; Server-Timing: gpu, render (GPU,\n"
    "                                 read-back, encode) and wait, in ms. 409\n"
    "                                 when a newer render arrived before it\n"
    "                                 ended, 503 when it took longer than\n"
    "                                 --time-limit; a render whose client left\n"
    "                                 is stopped too\n"
    "  GET /focus?chain=C&x=X&y=Y     JSON: for each link with a depth map, the\n"
    "                                 focus that makes pixel (X, Y) sharp\n"
    "  GET /span?chain=C              JSON: for each link with a depth map, the\n"
    "                                 smallest and largest value it holds (a\n"
    "                                 hole of hole=V left out), and whether\n"
    "                                 it holds floats (else 8/16-bit codes\n"
    "                                 read as 0..1)\n"
    "  GET /band?chain=C&width=W      PNG: the in-focus band of C's first depth\n"
    "                                 filter (tint where its blur is under half\n"
    "                                 a pixel), W wide\n"
    "  GET /check?chain=C             200, or 400 with the line the command\n"
    "                                 line prints for C\n"
    "  POST /save?chain=C             writes the full-size result to -o FILE;\n"
    "                                 409 when FILE exists, unless &replace=1\n"
    "/render and /save take &fast=1 for the filters' fast paths (--fast; the page's\n"
    "Fast box, on at first), whose bytes may differ between devices.\n"
    "A bad chain is status 400 with the line the command line prints. The maps a\n"
    "chain names must be regular files (no FIFO, device or folder).\n";

/* Cookie the page gets with GET /?token=..., so that its requests carry the token. */
#define TOKEN_COOKIE "vkfx_token"

typedef struct server {
    vkfx_context *ctx;
    vkfx_preview *preview;
    const char *input;
    const char *output; /* -o, or NULL */
    const char *chain;  /* -f, or "" */
    vkfx_chain *start;  /* -f parsed, or NULL */
    char token[33];
    unsigned port;
    char host_ip[32], host_name[32]; /* the Host values accepted */
    /* One render or save at a time on the device; a render that finds a
     * newer one queued behind it when its turn comes is dropped, and one
     * running is stopped between passes (struct watch). */
    pthread_mutex_t gpu;
    atomic_uint_fast64_t newest_render;
    unsigned time_limit; /* --time-limit, seconds */
    tjhandle jpeg;
    vkfx_jpeg_codec jpeg_codec; /* --jpeg-codec */
} server;

/* ret, or a failure when the validation layer (VKFX_VALIDATE=1) reported
 * anything since it stood at messages: as in a file run, any message fails. */
static int checked(vkfx_context *ctx, unsigned messages, int ret)
{
    if (ret == VKFX_OK && vkfx_context_validation_messages(ctx) != messages)
        return vkfx_fail(VKFX_E_VULKAN, "the validation layer reported a problem (above)");
    return ret;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static enum MHD_Result send_buffer(struct MHD_Connection *c, unsigned status, const char *type,
                                   void *data, size_t size, void (*free_fn)(void *),
                                   const char *timing)
{
    struct MHD_Response *r =
        free_fn ? MHD_create_response_from_buffer_with_free_callback(size, data, free_fn)
                : MHD_create_response_from_buffer(size, data, MHD_RESPMEM_MUST_COPY);
    if (!r) {
        if (free_fn)
            free_fn(data);
        return MHD_NO;
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    if (timing)
        MHD_add_response_header(r, "Server-Timing", timing);
    enum MHD_Result ret = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result send_text(struct MHD_Connection *c, unsigned status, const char *text)
{
    return send_buffer(c, status, "text/plain; charset=utf-8", (void *)text, strlen(text), NULL,
                       NULL);
}

/* The line the command line prints for the calling thread's last error. */
static enum MHD_Result send_error(struct MHD_Connection *c, int status)
{
    char line[2048];
    snprintf(line, sizeof(line), "vkfx: %s\n", vkfx_error_message());
    bool request = status == VKFX_E_USAGE || status == VKFX_E_IO || status == VKFX_E_FORMAT ||
                   status == VKFX_E_LIMIT;
    return send_text(c, request ? MHD_HTTP_BAD_REQUEST : MHD_HTTP_INTERNAL_SERVER_ERROR, line);
}

/* A stream whose text becomes the response (JSON). */
typedef struct membuf {
    FILE *f;
    char *data;
    size_t size;
} membuf;

static enum MHD_Result send_stream(struct MHD_Connection *c, membuf *m, const char *type)
{
    if (fclose(m->f) != 0) {
        free(m->data);
        return send_text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "vkfx: out of host memory\n");
    }
    return send_buffer(c, MHD_HTTP_OK, type, m->data, m->size, free, NULL);
}

static bool same_text(const char *a, const char *b)
{
    /* In time independent of where they differ: the token is a secret. */
    size_t la = strlen(a), lb = strlen(b);
    unsigned char diff = la != lb;
    for (size_t i = 0; i < la && i < lb; i++)
        diff |= (unsigned char)(a[i] ^ b[i]);
    return diff == 0;
}

/* The token from ?token= or from the page's cookie. */
static bool has_token(struct MHD_Connection *c, const server *s)
{
    const char *q = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "token");
    const char *k = MHD_lookup_connection_value(c, MHD_COOKIE_KIND, TOKEN_COOKIE);
    return (q && same_text(q, s->token)) || (k && same_text(k, s->token));
}

static const char *arg(struct MHD_Connection *c, const char *name)
{
    return MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, name);
}

/* The request's fast (absent or 0: the same bytes on every device; 1: --fast); false when it
 * is something else. */
static bool fast_arg(struct MHD_Connection *c, bool *fast)
{
    const char *v = arg(c, "fast");
    *fast = v && strcmp(v, "1") == 0;
    return !v || *fast || strcmp(v, "0") == 0;
}

static bool parse_u32(const char *text, unsigned long max, uint32_t *out)
{
    char *end = NULL;
    if (!text || !*text || *text == '-' || *text == '+')
        return false;
    errno = 0;
    unsigned long v = strtoul(text, &end, 10);
    if (errno || *end || v > max)
        return false;
    *out = (uint32_t)v;
    return true;
}

/* The chain of ?chain= (missing or empty: no filters, the input as it is). */
static int request_chain(struct MHD_Connection *c, vkfx_chain **out)
{
    const char *text = arg(c, "chain");
    *out = NULL;
    if (!text || !*text) {
        *out = calloc(1, sizeof(**out));
        return *out ? VKFX_OK : vkfx_fail(VKFX_E_NOMEM, "out of host memory");
    }
    return vkfx_chain_parse(text, out);
}

static enum MHD_Result page(struct MHD_Connection *c, server *s)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(
        sizeof(vkfx_preview_html), (void *)vkfx_preview_html, MHD_RESPMEM_PERSISTENT);
    if (!r)
        return MHD_NO;
    char cookie[128];
    snprintf(cookie, sizeof(cookie), TOKEN_COOKIE "=%s; Path=/; HttpOnly; SameSite=Strict",
             s->token);
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/html; charset=utf-8");
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    MHD_add_response_header(r, MHD_HTTP_HEADER_SET_COOKIE, cookie);
    /* Nothing from elsewhere: the page is self-contained. */
    MHD_add_response_header(r, "Content-Security-Policy",
                            "default-src 'self'; script-src 'unsafe-inline'; "
                            "style-src 'unsafe-inline'; img-src 'self' blob: data:");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
    enum MHD_Result ret = MHD_queue_response(c, MHD_HTTP_OK, r);
    MHD_destroy_response(r);
    return ret;
}

static const char *type_name(vkfx_opt_type t)
{
    switch (t) {
    case VKFX_OPT_INT:
        return "int";
    case VKFX_OPT_FLOAT:
        return "float";
    case VKFX_OPT_BOOL:
        return "bool";
    case VKFX_OPT_CHOICE:
        return "choice";
    case VKFX_OPT_PATH:
        return "file";
    }
    return "?";
}

/* One option row of the registry, as --help-filter shows it; pixels: a length in the image's
 * pixels. */
static void option_json(FILE *f, const vkfx_filter *filter, const vkfx_option *o)
{
    fprintf(f, "{\"name\":");
    cli_json_string(f, o->name);
    fprintf(f, ",\"type\":\"%s\",\"required\":%s,\"unset_default\":%s", type_name(o->type),
            o->required ? "true" : "false", o->unset_default ? "true" : "false");
    if (o->type == VKFX_OPT_INT || o->type == VKFX_OPT_FLOAT)
        fprintf(f, ",\"min\":%.17g,\"max\":%.17g", o->min, o->max);
    if (o->type != VKFX_OPT_PATH)
        fprintf(f, ",\"default\":%.17g", o->def);
    if (o->def_text) {
        fprintf(f, ",\"default_text\":");
        cli_json_string(f, o->def_text);
    }
    if (o->type == VKFX_OPT_CHOICE && o->choices) {
        fprintf(f, ",\"choices\":[");
        for (size_t i = 0; o->choices[i]; i++) {
            fprintf(f, i ? "," : "");
            cli_json_string(f, o->choices[i]);
        }
        fprintf(f, "]");
    }
    if (vkfx_option_in_pixels(filter, o))
        fprintf(f, ",\"pixels\":true");
    fprintf(f, ",\"help\":");
    cli_json_string(f, o->help ? o->help : "");
    fprintf(f, "}");
}

/* The file an option of a parsed link names, or NULL (not a file option, or not given). */
static const char *path_option(const vkfx_chain_link *l, const vkfx_option *o)
{
    if (o->type != VKFX_OPT_PATH)
        return NULL;
    return *(char *const *)((const char *)l->params + o->offset);
}

/* A depth map's span, for the page's focus and range: float maps are in scene units, the
 * others' codes read as 0..1. */
static void span_fields(FILE *f, double lo, double hi, bool is_float)
{
    fprintf(f, ",\"min\":%.9g,\"max\":%.9g,\"float\":%s", lo, hi, is_float ? "true" : "false");
}

static enum MHD_Result info(struct MHD_Connection *c, server *s)
{
    membuf m = {0};
    vkfx_chain *chain = NULL;
    char describe[16384];
    m.f = open_memstream(&m.data, &m.size);
    if (!m.f)
        return send_text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "vkfx: out of host memory\n");
    uint32_t w = 0, h = 0;
    vkfx_preview_size(s->preview, &w, &h);
    fprintf(m.f, "{\"input\":");
    cli_json_string(m.f, s->input);
    fprintf(m.f, ",\"width\":%u,\"height\":%u,\"output\":", w, h);
    if (s->output)
        cli_json_string(m.f, s->output);
    else
        fprintf(m.f, "null");
    /* The folder relative paths are read from, for a command line that works anywhere. */
    char *cwd = getcwd(NULL, 0);
    fprintf(m.f, ",\"cwd\":");
    if (cwd)
        cli_json_string(m.f, cwd);
    else
        fprintf(m.f, "null");
    free(cwd);
    fprintf(m.f, ",\"time_limit\":%u,\"chain\":", s->time_limit);
    cli_json_string(m.f, s->chain);
    /* The map files the starting chain names (read once, at start). */
    fprintf(m.f, ",\"maps\":[");
    bool first = true;
    if (*s->chain && vkfx_chain_parse(s->chain, &chain) == VKFX_OK) {
        for (size_t i = 0; i < chain->count; i++) {
            const vkfx_chain_link *l = &chain->links[i];
            for (const vkfx_option *o = l->filter->options; o && o->name; o++) {
                const char *path = path_option(l, o);
                if (!path)
                    continue;
                fprintf(m.f, "%s{\"filter\":", first ? "" : ",");
                cli_json_string(m.f, l->filter->name);
                fprintf(m.f, ",\"option\":");
                cli_json_string(m.f, o->name);
                fprintf(m.f, ",\"path\":");
                cli_json_string(m.f, path);
                /* The span of a depth map's values, for the page's focus and range. */
                bool has = false, is_float = false;
                double lo = 0, hi = 0;
                pthread_mutex_lock(&s->gpu);
                int ret = vkfx_preview_depth_range(s->preview, chain, i, &has, &lo, &hi, &is_float);
                pthread_mutex_unlock(&s->gpu);
                if (ret == VKFX_OK && has && strcmp(o->name, "depth") == 0)
                    span_fields(m.f, lo, hi, is_float);
                fprintf(m.f, "}");
                first = false;
            }
        }
    }
    vkfx_chain_free(chain);
    fprintf(m.f, "],\"filters\":[");
    for (const vkfx_filter *const *f = vkfx_filters; *f; f++) {
        fprintf(m.f, "%s{\"name\":", f == vkfx_filters ? "" : ",");
        cli_json_string(m.f, (*f)->name);
        fprintf(m.f, ",\"help\":");
        cli_json_string(m.f, (*f)->help ? (*f)->help : "");
        fprintf(m.f, ",\"describe\":");
        cli_json_string(
            m.f, vkfx_filter_describe(*f, describe, sizeof(describe)) == VKFX_OK ? describe : "");
        fprintf(m.f, ",\"options\":[");
        for (const vkfx_option *o = (*f)->options; o && o->name; o++) {
            fprintf(m.f, o == (*f)->options ? "" : ",");
            option_json(m.f, *f, o);
        }
        fprintf(m.f, "]}");
    }
    fprintf(m.f, "]}\n");
    return send_stream(c, &m, "application/json");
}

static void free_jpeg(void *data)
{
    tjFree(data);
}

/* What a render or Save on the device is polled for between passes
 * (vkfx_cancel): its client gone, a newer render asked for, the time
 * limit passed. Work nobody waits for any more would hold the device
 * from every later request. */
typedef enum stop_reason { GOING, OVERTAKEN, CLIENT_GONE, TIMED_OUT } stop_reason;

typedef struct watch {
    server *s;
    int fd;               /* the client's socket, or -1 */
    uint_fast64_t ticket; /* the render's place in newest_render; 0 for Save */
    double deadline;      /* now_ms() at which it is stopped */
    stop_reason why;
} watch;

/* A client that closed its end (the page aborted the request, the tab
 * went) shows as the socket's end of stream, peeked at without taking a
 * byte of a request that may follow. */
static bool client_gone(int fd)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    if (fd < 0 || poll(&p, 1, 0) <= 0)
        return false;
    if (p.revents & (POLLHUP | POLLERR))
        return true;
    char byte;
    ssize_t n = recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

static bool watch_stop(void *user)
{
    watch *w = user;
    if (w->ticket && atomic_load(&w->s->newest_render) != w->ticket)
        w->why = OVERTAKEN;
    else if (client_gone(w->fd))
        w->why = CLIENT_GONE;
    else if (now_ms() > w->deadline)
        w->why = TIMED_OUT;
    return w->why != GOING;
}

static watch watch_start(server *s, struct MHD_Connection *c, uint_fast64_t ticket)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    return (watch){.s = s,
                   .fd = ci ? ci->connect_fd : -1,
                   .ticket = ticket,
                   .deadline = now_ms() + s->time_limit * 1e3};
}

/* The answer to work that watch_stop ended. */
static enum MHD_Result send_stopped(struct MHD_Connection *c, const watch *w, const char *what)
{
    char line[256];
    switch (w->why) {
    case OVERTAKEN:
        return send_text(c, MHD_HTTP_CONFLICT, "vkfx: superseded by a newer render\n");
    case CLIENT_GONE:
        return MHD_NO; /* nobody to answer: the connection is closed */
    case TIMED_OUT:
    case GOING:
        break;
    }
    snprintf(line, sizeof(line),
             "vkfx: the %s took longer than %u s and was stopped (vkfx preview --time-limit)\n",
             what, w->s->time_limit);
    return send_text(c, MHD_HTTP_SERVICE_UNAVAILABLE, line);
}

static enum MHD_Result render(struct MHD_Connection *c, server *s)
{
    uint32_t width = 0;
    vkfx_chain *chain = NULL;
    const char *w = arg(c, "width");
    if (w && !parse_u32(w, 1u << 20, &width)) {
        char line[256];
        snprintf(line, sizeof(line), "vkfx: width '%.64s' must be an integer 1..%u\n", w, 1u << 20);
        return send_text(c, MHD_HTTP_BAD_REQUEST, line);
    }
    const char *draft_arg = arg(c, "draft"), *format = arg(c, "format");
    bool draft = draft_arg && strcmp(draft_arg, "1") == 0;
    bool png = format && strcmp(format, "png") == 0;
    bool fast;
    if ((draft_arg && !draft && strcmp(draft_arg, "0") != 0) ||
        (format && !png && strcmp(format, "jpeg") != 0))
        return send_text(c, MHD_HTTP_BAD_REQUEST,
                         "vkfx: draft must be 0 or 1, format jpeg or png\n");
    if (!fast_arg(c, &fast))
        return send_text(c, MHD_HTTP_BAD_REQUEST, "vkfx: fast must be 0 or 1\n");
    int ret = request_chain(c, &chain);
    if (ret < 0)
        return send_error(c, ret);
    /* Latest wins: a render that a newer one overtook while it waited for
     * the device is dropped, so no queue of stale frames forms. */
    uint_fast64_t ticket = atomic_fetch_add(&s->newest_render, 1) + 1;
    double asked = now_ms();
    pthread_mutex_lock(&s->gpu);
    if (atomic_load(&s->newest_render) != ticket) {
        pthread_mutex_unlock(&s->gpu);
        vkfx_chain_free(chain);
        return send_text(c, MHD_HTTP_CONFLICT, "vkfx: superseded by a newer render\n");
    }
    double start = now_ms();
    vkfx_pixels px = {0};
    double gpu_ms = -1;
    unsigned char *jpeg = NULL, *device_jpeg = NULL;
    unsigned long jpeg_size = 0;
    size_t device_size = 0;
    unsigned messages = vkfx_context_validation_messages(s->ctx);
    watch wt = watch_start(s, c, ticket);
    vkfx_cancel cancel = {watch_stop, &wt};
    vkfx_preview_set_fast(s->preview, fast);
    ret = checked(s->ctx, messages,
                  png ? vkfx_preview_view(s->preview, chain, width, &px, &gpu_ms, &cancel)
                  : draft ? vkfx_preview_render_jpeg(s->preview, chain, width, s->jpeg_codec,
                                                     &device_jpeg, &device_size, &px, &gpu_ms,
                                                     &cancel)
                          : vkfx_preview_view_jpeg(s->preview, chain, width, s->jpeg_codec,
                                                   &device_jpeg, &device_size, &px, &gpu_ms,
                                                   &cancel));
    size_t png_size = 0;
    if (ret == VKFX_OK && png) {
        ret = vkfx_png_encode(&px, 1, &jpeg, &png_size);
        jpeg_size = png_size;
    } else if (ret == VKFX_OK && !device_jpeg &&
               tjCompress2(s->jpeg, px.data, (int)px.width, 0, (int)px.height, TJPF_RGB, &jpeg,
                           &jpeg_size, TJSAMP_420, vkfx_preview_jpeg.jpeg_quality, 0) != 0) {
        ret = vkfx_fail(VKFX_E_NOMEM, "JPEG encoding failed: %s", tjGetErrorStr2(s->jpeg));
    }
    double done = now_ms();
    pthread_mutex_unlock(&s->gpu);
    vkfx_pixels_free(&px);
    vkfx_chain_free(chain);
    if (ret < 0) {
        png ? free(jpeg) : tjFree(jpeg);
        free(device_jpeg);
    }
    if (ret == VKFX_E_STOPPED)
        return send_stopped(c, &wt, "render");
    if (ret < 0)
        return send_error(c, ret);
    char timing[160];
    snprintf(timing, sizeof(timing), "gpu;dur=%.3f, render;dur=%.3f, wait;dur=%.3f",
             gpu_ms < 0 ? 0 : gpu_ms, done - start, start - asked);
    if (device_jpeg)
        return send_buffer(c, MHD_HTTP_OK, "image/jpeg", device_jpeg, device_size, free, timing);
    return send_buffer(c, MHD_HTTP_OK, png ? "image/png" : "image/jpeg", jpeg, jpeg_size,
                       png ? free : free_jpeg, timing);
}

/* Writes link i of chain's object into f (after sep) where it has one to write (*wrote). */
typedef int (*link_json_fn)(FILE *f, const char *sep, server *s, const vkfx_chain *chain, size_t i,
                            const void *user, bool *wrote);

/* JSON {HEAD"links":[...]}: an object for each link of ?chain= that fn writes one for, the
 * device's lock held (the maps are the session's); or the error of the first that fails. */
static enum MHD_Result send_links(struct MHD_Connection *c, server *s, const char *head,
                                  link_json_fn fn, const void *user)
{
    vkfx_chain *chain = NULL;
    int ret = request_chain(c, &chain);
    if (ret < 0)
        return send_error(c, ret);
    membuf m = {0};
    m.f = open_memstream(&m.data, &m.size);
    if (!m.f) {
        vkfx_chain_free(chain);
        return send_text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "vkfx: out of host memory\n");
    }
    fprintf(m.f, "{%s\"links\":[", head);
    bool first = true;
    pthread_mutex_lock(&s->gpu);
    for (size_t i = 0; i < chain->count && ret == VKFX_OK; i++) {
        bool wrote = false;
        ret = fn(m.f, first ? "" : ",", s, chain, i, user, &wrote);
        first = first && !wrote;
    }
    pthread_mutex_unlock(&s->gpu);
    vkfx_chain_free(chain);
    if (ret < 0) {
        fclose(m.f);
        free(m.data);
        return send_error(c, ret);
    }
    fprintf(m.f, "]}\n");
    return send_stream(c, &m, "application/json");
}

static int focus_json(FILE *f, const char *sep, server *s, const vkfx_chain *chain, size_t i,
                      const void *user, bool *wrote)
{
    const uint32_t *xy = user;
    double value = 0;
    int ret = vkfx_preview_focus(s->preview, chain, i, xy[0], xy[1], wrote, &value);
    if (ret < 0 || !*wrote)
        return ret;
    /* Nine digits bring the float the filter compares with back exactly. */
    fprintf(f, "%s{\"index\":%zu,\"filter\":", sep, i);
    cli_json_string(f, chain->links[i].filter->name);
    fprintf(f, ",\"focus\":\"%.9g\"}", value);
    return VKFX_OK;
}

static enum MHD_Result focus(struct MHD_Connection *c, server *s)
{
    uint32_t xy[2] = {0, 0}, w = 0, h = 0;
    vkfx_preview_size(s->preview, &w, &h);
    if (!parse_u32(arg(c, "x"), w - 1, &xy[0]) || !parse_u32(arg(c, "y"), h - 1, &xy[1])) {
        char line[160];
        snprintf(line, sizeof(line), "vkfx: x and y must be a pixel of the %ux%u image\n", w, h);
        return send_text(c, MHD_HTTP_BAD_REQUEST, line);
    }
    char head[64];
    snprintf(head, sizeof(head), "\"x\":%u,\"y\":%u,", xy[0], xy[1]);
    return send_links(c, s, head, focus_json, xy);
}

static int span_json(FILE *f, const char *sep, server *s, const vkfx_chain *chain, size_t i,
                     const void *user, bool *wrote)
{
    (void)user;
    double lo = 0, hi = 0;
    bool is_float = false;
    int ret = vkfx_preview_depth_range(s->preview, chain, i, wrote, &lo, &hi, &is_float);
    if (ret == VKFX_OK && *wrote) {
        fprintf(f, "%s{\"index\":%zu", sep, i);
        span_fields(f, lo, hi, is_float);
        fprintf(f, "}");
    }
    return ret;
}

/* The span of each depth map of the chain, for the page's focus and range
 * controls of a map it has not seen (the starting chain's are in /info). */
static enum MHD_Result span(struct MHD_Connection *c, server *s)
{
    return send_links(c, s, "", span_json, NULL);
}

/* The in-focus band of the chain's first depth filter, as a PNG the page lays over the picture. */
static enum MHD_Result band(struct MHD_Connection *c, server *s)
{
    uint32_t width = 0;
    vkfx_chain *chain = NULL;
    vkfx_pixels px = {0};
    unsigned char *png = NULL;
    size_t size = 0;
    const char *w = arg(c, "width");
    if (w && !parse_u32(w, 1u << 20, &width))
        return send_text(c, MHD_HTTP_BAD_REQUEST, "vkfx: width must be an integer\n");
    int ret = request_chain(c, &chain);
    if (ret < 0)
        return send_error(c, ret);
    /* The maps are the session's: one user at a time. */
    pthread_mutex_lock(&s->gpu);
    ret = vkfx_preview_band(s->preview, chain, width, &px);
    pthread_mutex_unlock(&s->gpu);
    if (ret == VKFX_OK)
        ret = vkfx_png_encode(&px, 1, &png, &size);
    vkfx_pixels_free(&px);
    vkfx_chain_free(chain);
    if (ret < 0)
        return send_error(c, ret);
    return send_buffer(c, MHD_HTTP_OK, "image/png", png, size, free, NULL);
}

/* Whether the starting chain names path as option o of filter f. */
static bool named_at_start(const server *s, const vkfx_filter *f, const vkfx_option *o,
                           const char *path)
{
    for (size_t i = 0; s->start && i < s->start->count; i++) {
        const char *p = path_option(&s->start->links[i], o);
        if (s->start->links[i].filter == f && p && strcmp(p, path) == 0)
            return true;
    }
    return false;
}

/* The files a save touches: -o is never the input nor a file the chain
 * reads (a map), by identity as for any run (cli/paths.c), and files a
 * filter writes after its run (histogram's out and plot, from its finish
 * hook) are written only where the -f chain names them: the page never
 * chooses a path that is written. */
static int check_save_paths(const server *s, const vkfx_chain *chain)
{
    cli_paths paths = {0};
    int ret = cli_paths_add(&paths, s->input, false, "input", NULL);
    if (ret == VKFX_OK)
        ret = cli_paths_add(&paths, s->output, true, "-o", NULL);
    if (ret == VKFX_OK && chain)
        ret = cli_paths_add_chain(&paths, chain, s->input);
    if (ret == VKFX_OK)
        ret = cli_paths_check(&paths);
    cli_paths_free(&paths);
    for (size_t i = 0; ret == VKFX_OK && chain && i < chain->count; i++) {
        const vkfx_chain_link *l = &chain->links[i];
        for (const vkfx_option *o = l->filter->options; o && o->name; o++) {
            const char *path = path_option(l, o);
            if (path && l->filter->finish && !named_at_start(s, l->filter, o, path))
                return vkfx_fail(VKFX_E_USAGE,
                                 "%s: %s=%s: Save writes only the files that the -f chain of "
                                 "vkfx preview names",
                                 l->filter->name, o->name, path);
        }
    }
    return ret;
}

static enum MHD_Result save(struct MHD_Connection *c, server *s)
{
    vkfx_chain *chain = NULL;
    const char *text = arg(c, "chain");
    if (!s->output)
        return send_text(c, MHD_HTTP_BAD_REQUEST,
                         "vkfx: no output: start vkfx preview with -o FILE to save\n");
    if (!text || !*text)
        return send_text(c, MHD_HTTP_BAD_REQUEST,
                         "vkfx: no filter chain given (-f CHAIN; vkfx --filters lists them)\n");
    /* Save never replaces a file unasked: the page asks the artist first. */
    const char *replace = arg(c, "replace");
    bool fast;
    if (!fast_arg(c, &fast))
        return send_text(c, MHD_HTTP_BAD_REQUEST, "vkfx: fast must be 0 or 1\n");
    struct stat st;
    if (!(replace && strcmp(replace, "1") == 0) && lstat(s->output, &st) == 0) {
        char line[4200];
        snprintf(line, sizeof(line),
                 "vkfx: %s exists: Save again with replace=1 to replace it\n", s->output);
        return send_text(c, MHD_HTTP_CONFLICT, line);
    }
    int ret = vkfx_chain_parse(text, &chain);
    if (ret == VKFX_OK)
        ret = check_save_paths(s, chain);
    if (ret < 0) {
        vkfx_chain_free(chain);
        return send_error(c, ret);
    }
    pthread_mutex_lock(&s->gpu);
    double start = now_ms();
    unsigned messages = vkfx_context_validation_messages(s->ctx);
    watch wt = watch_start(s, c, 0);
    vkfx_cancel cancel = {watch_stop, &wt};
    vkfx_preview_set_fast(s->preview, fast);
    ret = checked(s->ctx, messages, vkfx_preview_save(s->preview, chain, s->output, NULL, &cancel));
    double done = now_ms();
    pthread_mutex_unlock(&s->gpu);
    vkfx_chain_free(chain);
    if (ret == VKFX_E_STOPPED)
        return send_stopped(c, &wt, "Save");
    if (ret < 0)
        return send_error(c, ret);
    membuf m = {0};
    m.f = open_memstream(&m.data, &m.size);
    if (!m.f)
        return send_text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "vkfx: out of host memory\n");
    fprintf(m.f, "{\"output\":");
    cli_json_string(m.f, s->output);
    fprintf(m.f, ",\"ms\":%.3f}\n", done - start);
    return send_stream(c, &m, "application/json");
}

/* The chain as the command line takes it: 200, or 400 with the line that
 * `vkfx INPUT -f CHAIN` prints (the maps are read when it renders). */
static enum MHD_Result check(struct MHD_Connection *c)
{
    vkfx_chain *chain = NULL;
    const char *text = arg(c, "chain");
    if (!text || !*text)
        return send_text(c, MHD_HTTP_BAD_REQUEST,
                         "vkfx: no filter chain given (-f CHAIN; vkfx --filters lists them)\n");
    int ret = vkfx_chain_parse(text, &chain);
    vkfx_chain_free(chain);
    return ret < 0 ? send_error(c, ret) : send_text(c, MHD_HTTP_OK, "ok\n");
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
                              const char *method, const char *version, const char *upload_data,
                              size_t *upload_data_size, void **con_cls)
{
    (void)version;
    (void)upload_data;
    server *s = cls;
    static int seen;
    /* The first call has the headers; a body (ignored) comes in later calls. */
    if (!*con_cls) {
        *con_cls = &seen;
        if (strcmp(method, MHD_HTTP_METHOD_POST) == 0)
            return MHD_YES;
    }
    if (*upload_data_size) {
        *upload_data_size = 0;
        return MHD_YES;
    }
    /* DNS rebinding: a page of another name that resolves to 127.0.0.1 sends its own Host. */
    const char *host = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);
    if (!host || (strcmp(host, s->host_ip) != 0 && strcmp(host, s->host_name) != 0))
        return send_text(c, MHD_HTTP_MISDIRECTED_REQUEST,
                         "vkfx: this server answers to 127.0.0.1 and localhost only\n");
    if (!has_token(c, s))
        return send_text(c, MHD_HTTP_FORBIDDEN,
                         "vkfx: a valid token is needed: open the address vkfx preview "
                         "printed\n");
    bool get = strcmp(method, MHD_HTTP_METHOD_GET) == 0;
    bool post = strcmp(method, MHD_HTTP_METHOD_POST) == 0;
    if (get && strcmp(url, "/") == 0)
        return page(c, s);
    if (get && strcmp(url, "/info") == 0)
        return info(c, s);
    if (get && strcmp(url, "/render") == 0)
        return render(c, s);
    if (get && strcmp(url, "/focus") == 0)
        return focus(c, s);
    if (post && strcmp(url, "/save") == 0)
        return save(c, s);
    if (get && strcmp(url, "/check") == 0)
        return check(c);
    if (get && strcmp(url, "/band") == 0)
        return band(c, s);
    if (get && strcmp(url, "/span") == 0)
        return span(c, s);
    if (strcmp(url, "/") == 0 || strcmp(url, "/info") == 0 || strcmp(url, "/render") == 0 ||
        strcmp(url, "/focus") == 0 || strcmp(url, "/save") == 0 || strcmp(url, "/check") == 0 ||
        strcmp(url, "/band") == 0 || strcmp(url, "/span") == 0)
        return send_text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "vkfx: method not allowed\n");
    return send_text(c, MHD_HTTP_NOT_FOUND, "vkfx: not found\n");
}

/* 128 random bits as 32 hex digits. */
static int make_token(char out[33])
{
    unsigned char bits[16];
    size_t got = 0;
    while (got < sizeof(bits)) {
        ssize_t n = getrandom(bits + got, sizeof(bits) - got, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return vkfx_fail(VKFX_E_IO, "getrandom: %s", strerror(errno));
        got += (size_t)n;
    }
    for (size_t i = 0; i < sizeof(bits); i++)
        snprintf(out + 2 * i, 3, "%02x", bits[i]);
    return VKFX_OK;
}

static pid_t open_browser(const char *url)
{
    const char *display = getenv("DISPLAY"), *wayland = getenv("WAYLAND_DISPLAY");
    if (!(display && *display) && !(wayland && *wayland))
        return 0;
    pid_t pid = 0;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    /* The browser's chatter stays off our stdout, whose first line is the address. */
    posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    char *argv[] = {"xdg-open", (char *)url, NULL};
    if (posix_spawnp(&pid, "xdg-open", &fa, NULL, argv, environ) != 0) {
        fprintf(stderr, "vkfx: could not run xdg-open; open %s in a browser\n", url);
        pid = 0;
    }
    posix_spawn_file_actions_destroy(&fa);
    return pid;
}

/* -o checked at start: a format vkfx writes, in an existing directory
 * (check_save_paths compares it with what the run reads). */
static int check_output(const char *output)
{
    vkfx_file_format fmt;
    int ret = vkfx_file_format_for_output(output, &fmt);
    if (ret < 0)
        return ret;
    char *copy = strdup(output);
    if (!copy)
        return vkfx_fail(VKFX_E_NOMEM, "out of host memory");
    const char *slash = strrchr(copy, '/');
    const char *dir = slash ? (slash == copy ? "/" : (copy[slash - copy] = 0, copy)) : ".";
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        ret = vkfx_fail(VKFX_E_IO, "%s: output directory '%s' does not exist", output, dir);
    free(copy);
    return ret;
}

enum { OPT_PORT = 256, OPT_NO_BROWSER, OPT_TIME_LIMIT, OPT_JPEG_CODEC };

int cli_preview_main(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"filter", required_argument, NULL, 'f'},
        {"output", required_argument, NULL, 'o'},
        {"port", required_argument, NULL, OPT_PORT},
        {"no-browser", no_argument, NULL, OPT_NO_BROWSER},
        {"time-limit", required_argument, NULL, OPT_TIME_LIMIT},
        {"jpeg-codec", required_argument, NULL, OPT_JPEG_CODEC},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    server s = {.chain = "", .gpu = PTHREAD_MUTEX_INITIALIZER, .time_limit = 60};
    bool no_browser = false;
    long port = 0;
    int c;
    if (cli_jpeg_codec_default(&s.jpeg_codec) < 0)
        return cli_usage_error("preview", "%s", vkfx_error_message());
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":f:o:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'f':
            s.chain = optarg;
            break;
        case 'o':
            s.output = optarg;
            break;
        case OPT_PORT: {
            char *end = NULL;
            errno = 0;
            port = strtol(optarg, &end, 10);
            if (errno || end == optarg || *end || port < 0 || port > 65535)
                return cli_usage_error("preview", "--port '%s' must be an integer 0..65535",
                                       optarg);
            break;
        }
        case OPT_TIME_LIMIT: {
            char *end = NULL;
            errno = 0;
            long limit = strtol(optarg, &end, 10);
            if (errno || end == optarg || *end || limit < 1 || limit > 86400)
                return cli_usage_error("preview", "--time-limit '%s' must be an integer 1..86400 "
                                           "(seconds)",
                                           optarg);
            s.time_limit = (unsigned)limit;
            break;
        }
        case OPT_NO_BROWSER:
            no_browser = true;
            break;
        case OPT_JPEG_CODEC:
            if (cli_jpeg_codec(optarg, "--jpeg-codec", &s.jpeg_codec) < 0)
                return cli_usage_error("preview", "%s", vkfx_error_message());
            break;
        case 'h':
            fputs(preview_usage, stdout);
            return EXIT_OK;
        case ':':
            return cli_usage_error("preview", "option '%s' needs a value", argv[optind - 1]);
        default:
            if (optopt > 0 && optopt < 256) {
                char opt[3] = {'-', (char)optopt, 0};
                return cli_usage_error("preview", "unknown option '%s'", opt);
            }
            return cli_usage_error("preview", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind >= argc)
        return cli_usage_error("preview", "%s", "no input file given");
    if (optind + 1 < argc)
        return cli_usage_error("preview", "one input only; '%s' is a second", argv[optind + 1]);
    s.input = argv[optind];

    /* A stop signal (cli/signals.c) ends the server cleanly, exit 0: it is
     * taken gracefully from here on, so one that comes during start-up ends
     * the server as soon as it stands. */
    cli_signals_graceful(true);

    int status = EXIT_OK;
    vkfx_context *ctx = NULL;
    vkfx_chain *chain = NULL;
    struct MHD_Daemon *d = NULL;
    int ret = VKFX_OK;
    if (*s.chain && (ret = vkfx_chain_parse(s.chain, &chain)) < 0)
        goto fail;
    s.start = chain;
    if (s.output && (ret = check_output(s.output)) < 0)
        goto fail;
    if (s.output && (ret = check_save_paths(&s, chain)) < 0)
        goto fail;
    if ((ret = make_token(s.token)) < 0)
        goto fail;
    vkfx_context_opts co = {0};
    cli_context_env(&co);
    if ((ret = vkfx_context_create(&co, &ctx)) < 0)
        goto fail;
    s.ctx = ctx;
    if ((ret = vkfx_preview_open(ctx, s.input, &s.preview)) < 0)
        goto fail;
    vkfx_preview_set_jpeg_codec(s.preview, s.jpeg_codec);
    if (!(s.jpeg = tjInitCompress())) {
        ret = vkfx_fail(VKFX_E_NOMEM, "JPEG encoder: %s", tjGetErrorStr2(NULL));
        goto fail;
    }
    /* The starting chain once at full size before the page is served: its
     * maps are read, its kernels built, and a mistake in it ends the
     * command as it would end a file run. */
    if (chain) {
        vkfx_pixels first = {0};
        double gpu_ms = 0;
        unsigned messages = vkfx_context_validation_messages(ctx);
        ret =
            checked(ctx, messages, vkfx_preview_render(s.preview, chain, 0, &first, &gpu_ms, NULL));
        vkfx_pixels_free(&first);
        if (ret < 0)
            goto fail;
    }

    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION, 0, NULL,
                         NULL, handle, &s, MHD_OPTION_SOCK_ADDR, &addr,
                         MHD_OPTION_CONNECTION_TIMEOUT, 60u, MHD_OPTION_END);
    if (!d) {
        ret = vkfx_fail(VKFX_E_IO, "cannot listen on 127.0.0.1:%ld%s", port,
                        port ? " (in use?)" : "");
        goto fail;
    }
    const union MHD_DaemonInfo *di = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    s.port = di ? di->port : (unsigned)port;
    snprintf(s.host_ip, sizeof(s.host_ip), "127.0.0.1:%u", s.port);
    snprintf(s.host_name, sizeof(s.host_name), "localhost:%u", s.port);
    char url[96];
    snprintf(url, sizeof(url), "http://127.0.0.1:%u/?token=%s", s.port, s.token);
    printf("%s\n", url);
    fflush(stdout);
    pid_t browser = no_browser ? 0 : open_browser(url);

    cli_signals_wait();
    if (browser > 0)
        waitpid(browser, NULL, WNOHANG);
    goto done;
fail:
    cli_print_error();
    status = cli_exit_code(ret);
done:
    if (d)
        MHD_stop_daemon(d);
    vkfx_chain_free(chain);
    if (s.jpeg)
        tjDestroy(s.jpeg);
    vkfx_preview_close(s.preview);
    if (ctx) {
        if (status == EXIT_OK)
            vkfx_context_destroy(ctx);
        else
            vkfx_context_destroy_after_failure(ctx);
    }
    return status;
}
