/* The library interface the command line uses, the one core/ header cli/ includes: no
 * Vulkan types here, so cli/ stays free of them. Internal headers include this one. */
#ifndef VKFX_VKFX_H
#define VKFX_VKFX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "chain.h"
#include "compare.h"
#include "copy.h"
#include "error.h"
#include "exif.h"
#include "fileio.h"
#include "icc.h"
#include "pixels.h"
#include "safefile.h"

typedef struct vkfx_context vkfx_context;
typedef struct vkfx_staging vkfx_staging;
/* Auxiliary maps decoded once and kept on the device (core/filters/maps.h). */
typedef struct vkfx_maps vkfx_maps;

typedef void (*vkfx_log_fn)(void *user, const char *message);

typedef struct vkfx_context_opts {
    const char *device;     /* NULL: best device; a decimal index; else a name substring */
    bool validate;          /* VK_LAYER_KHRONOS_validation with synchronization validation */
    bool no_subgroup_ops;   /* pretend the device lacks subgroup arithmetic */
    bool no_subgroup_int64; /* pretend it lacks 64-bit subgroup arithmetic */
    vkfx_log_fn log;        /* receives validation messages and warnings; may be NULL */
    void *log_user;
    /* Knobs for tests and tuning, which the command line takes from the environment
     * variables named (cli/main.c); zero is the default. */
    bool no_matrix;         /* VKFX_MATRIX=0: no matrix units, to compare the other kernels */
    bool no_half_pack;      /* VKFX_HALF_PACK=0: halves rounded bit by bit (core/gpu/halfprobe.c) */
    bool pipeline_stats;    /* VKFX_PIPELINE_STATS=1: each pipeline's driver statistics logged */
    bool no_pipeline_cache; /* VKFX_PIPELINE_CACHE=0: no pipeline cache file read or written */
    /* VKFX_VARIANT: kernel variants forced, "family:variant[,family:variant]..." (NULL: none);
     * the caller keeps the string while the context lives. */
    const char *variants;
    uint64_t staging_bytes; /* VKFX_STAGING_BYTES: staging memory of size 0's (0: 64 MiB) */
    uint32_t tile;          /* VKFX_TILE: the largest tile side, below the device's (0: none) */
} vkfx_context_opts;

int vkfx_context_create(const vkfx_context_opts *opts, vkfx_context **out);
void vkfx_context_destroy(vkfx_context *ctx);
/* The same for a run that has reported its failure already: the pipeline
 * cache is still saved, but if that fails too (a full disk, a file-size
 * limit) it does not add a second message to the one the user has. */
void vkfx_context_destroy_after_failure(vkfx_context *ctx);
/* Destroys the device and the instance now, keeping in memory what the
 * pipeline cache's file needs, for a process whose GPU work is over while
 * files are still being written; the destroy call that follows writes it. */
void vkfx_context_close_device(vkfx_context *ctx);
/* Name and type of the device the context runs on, e.g. "llvmpipe (...)", "CPU". */
const char *vkfx_context_device_name(const vkfx_context *ctx);
/* Whether the device's packHalf2x16 rounds to the nearest half, ties to even
 * (checked on the device on the first call; false with VKFX_HALF_PACK=0):
 * the Gaussian's kernels then use it instead of rounding bit by bit, with the
 * same results. */
int vkfx_context_pack_rne(vkfx_context *ctx, bool *rne);
/* Validation messages reported so far (0 without validation). */
unsigned vkfx_context_validation_messages(const vkfx_context *ctx);

#define VKFX_TIMED_KERNELS 16
/* Host wall-clock milliseconds of a context's start, and of building its
 * kernels so far (--timings). */
typedef struct vkfx_context_times {
    double loader_ms;    /* loading the Vulkan loader (libvulkan) */
    double instance_ms;  /* vkCreateInstance: the drivers and layers loaded */
    double device_ms;    /* choosing and creating the device, up to ready */
    double pipelines_ms; /* shader modules, layouts and pipelines built */
    double probe_ms;     /* the half-conversion check, when it ran (build and run) */
    /* Each kernel built, in the order its build ended (the first VKFX_TIMED_KERNELS). */
    struct {
        const char *name; /* the kernel descriptor's */
        double ms;        /* vkCreateComputePipelines alone, on whichever thread built it */
        bool compiled;    /* not found in the pipeline cache */
        bool threaded;    /* built ahead on a thread of its own */
    } kernels[VKFX_TIMED_KERNELS];
    unsigned nkernels; /* how many were built, counting those past the array */
} vkfx_context_times;
void vkfx_context_times_get(const vkfx_context *ctx, vkfx_context_times *t);
/* CLOCK_MONOTONIC in milliseconds. */
double vkfx_now_ms(void);

typedef struct vkfx_device_info {
    char name[256];
    const char *type; /* "discrete GPU", "integrated GPU", "virtual GPU", "CPU", "other" */
    uint32_t api_version;
    uint32_t subgroup_size;
    bool usable; /* Vulkan 1.3 and the features vkfx needs */
    char why_not[128];
} vkfx_device_info;

/* Lists the physical devices in the order --device indexes them; *best is
 * the index picked without --device (-1 if none is usable). */
int vkfx_list_devices(vkfx_device_info **list, uint32_t *count, int *best);

/* size: the most mapped staging memory taken (0: the context's staging_bytes, or 64 MiB); it is
 * taken at the first copy, only as large as the copies need. */
int vkfx_staging_create(vkfx_context *ctx, uint64_t size, vkfx_staging **out);
void vkfx_staging_destroy(vkfx_staging *s);

typedef struct vkfx_pass_time {
    char label[48];
    double ms;
} vkfx_pass_time;

/* A count a filter reports about its run (bokeh: "bokeh.hot_spots"), for
 * --json and bench --json. */
typedef struct vkfx_note {
    char key[40];
    uint64_t value;
} vkfx_note;
#define VKFX_MAX_NOTES 16

/* A check that a caller polling its work gives a run: with it, the run
 * submits its passes one at a time and asks stop after each, ending with
 * VKFX_E_STOPPED once stop says so (a client gone, a newer request, a
 * time limit: what stop weighs is the caller's). */
typedef struct vkfx_cancel {
    bool (*stop)(void *user);
    void *user;
} vkfx_cancel;

typedef struct vkfx_run_opts {
    int precision; /* 16 (rgba16f) or 32 (rgba32f); 0 (auto) is 16 here: see below */
    /* --fast: filters may take the device's faster arithmetic, whose results differ between
     * devices; false: the same bytes on every device. */
    bool fast;
    bool linear;  /* 8/16-bit samples are linear: no sRGB transfer either way */
    bool timings; /* collect GPU time per pass */
    /* out keeps premultiplied colour (OpenEXR) instead of straight colour. */
    bool premultiplied_out;
    /* The input's file, for filter options that name it (depth=self); may be NULL. */
    const char *input_path;
    /* Maps already decoded, used instead of reading the filters' map files; may be NULL. */
    vkfx_maps *maps;
    /* The input's ICC tone curves (core/include/icc.h), or NULL for sRGB: 8/16-bit
     * samples are linearised through them on the GPU (a table the host
     * makes) and encoded back on the host after read-back, so the sRGB path
     * is untouched. */
    const struct vkfx_tone *tone;
    /* With tone, vkfx_run_start's run in one piece leaves the encoding to
     * the caller: out comes back as linear floats (VKFX_SAMPLE_F32), for
     * vkfx_tone_encode_pixels on a thread other than the one that feeds the
     * GPU. A run in tiles encodes as vkfx_run does. */
    bool tone_later;
    /* The size the first filter's sizes refer to, when the input was decoded smaller
     * (vkfx_file_load_for_chain); 0: the input's. */
    uint32_t source_width, source_height;
    /* The output encoded as JPEG on the device, in the same submission as the chain, with
     * these options (core/gpu/jpeg_gpu_enc.h), where the run is in one piece of 8-bit codes that
     * path covers: the file's bytes come back in the result's jpeg instead of the pixels (out's
     * data stays NULL). NULL: the pixels come back. jpeg_codec says where (CPU: never here). */
    const vkfx_save_opts *jpeg;
    vkfx_jpeg_codec jpeg_codec;
    /* Asked between passes whether to stop; NULL: the run goes to its end. */
    const vkfx_cancel *cancel;
    /* An output without alpha is composited over background (its encoded RGB, 0..1) where
     * flatten; otherwise its colour is written as it is under the alpha dropped. */
    bool flatten;
    float background[3];
    /* The input as a JPEG for the device to decode in the run's own submission
     * (vkfx_file_load_jpeg_input), which must live until the run is finished: in gives its
     * shape, its data is not read. A stream the device refuses, or a run in tiles, takes
     * libjpeg-turbo's pixels of the same bytes, without a word. NULL: in's pixels. */
    const vkfx_jpeg_input *jpeg_in;
} vkfx_run_opts;

/* --precision auto: 32 where the input or a map the chain reads has 16-bit
 * or float samples (rgba16f would round them), else 16. */
int vkfx_auto_precision(const vkfx_chain *chain, const vkfx_pixels *in);

/* vkfx_file_load_meta for a run of chain, with shrink-on-load: a JPEG whose chain starts with
 * a resize that shrinks both sides by 4x or more is decoded at 1/2, 1/4 or 1/8 of its size,
 * leaving the resize the rest; *source_w x *source_h is then the file's upright size, which
 * the resize's sizes refer to (vkfx_run_opts.source_width), else 0 x 0. */
int vkfx_file_load_for_chain(const char *path, const vkfx_chain *chain, vkfx_pixels *out,
                             vkfx_meta *meta, uint32_t *source_w, uint32_t *source_h);

typedef struct vkfx_run_result {
    vkfx_pass_time *times; /* owned: free() */
    uint32_t ntimes;
    uint64_t device_bytes_peak;
    vkfx_note notes[VKFX_MAX_NOTES]; /* in the order the filters reported them */
    uint32_t nnotes;
    /* Host wall-clock milliseconds: recording the work (kernels built on
     * the way included), copying the image into staging memory, waiting
     * for the device, copying the result back. */
    double record_ms, upload_ms, wait_ms, readback_ms;
    /* With vkfx_run_opts.jpeg, where the device encoded it: the whole file (owned: free()). */
    unsigned char *jpeg;
    size_t jpeg_size;
    /* With vkfx_run_opts.jpeg_in, where the device left the JPEG to libjpeg-turbo: the note its
     * decode left (a damaged scan), "" none. */
    char decode_note[160];
} vkfx_run_result;

/* Runs chain on in. out->channels and out->sample say what to produce (the
 * output file's layout); out->data is allocated here. An image too large for
 * the device in one piece runs in tiles, a filter that reshapes it (resize,
 * crop, rotate, flip) in tiles of its outputs and the filters between them
 * as runs of their own: the same bytes as one piece. */
int vkfx_run(vkfx_context *ctx, vkfx_staging *staging, const vkfx_chain *chain,
             const vkfx_pixels *in, vkfx_pixels *out, const vkfx_run_opts *opts,
             vkfx_run_result *result);

/* Where codec (--jpeg-codec) sends the decoding of JPEG files on ctx's device: gpu to the
 * device; cpu to libjpeg-turbo; auto to the device for files of VKFX_JPEG_DEVICE_PIXELS or more
 * on a GPU, else to libjpeg-turbo (core/run/run.c says why). Both give the same pixels: a file
 * is decoded at full size unless codec is cpu, whose scaled decode (shrink-on-load,
 * vkfx_file_load_for_chain) only libjpeg-turbo has. */
typedef enum vkfx_jpeg_decode_where {
    VKFX_JPEG_DECODE_HOST,
    VKFX_JPEG_DECODE_DEVICE,
    VKFX_JPEG_DECODE_LARGE, /* files of VKFX_JPEG_DEVICE_PIXELS or more on the device */
} vkfx_jpeg_decode_where;
#define VKFX_JPEG_DEVICE_PIXELS 8000000u
vkfx_jpeg_decode_where vkfx_jpeg_decode_here(vkfx_context *ctx, vkfx_jpeg_codec codec);

/* vkfx_run in two halves, so that the next image can be uploaded while the
 * GPU works on this one: start records and submits (an image that needs
 * tiles runs to the end here), finish waits, reads the image back and
 * frees *pending, on success and on failure. in may be freed after start;
 * every started run must be finished.
 * vkfx_run_start_held records without submitting: vkfx_run_submit (or the finish) submits it.
 * A caller with a run in flight records the next, finishes the one in flight, then submits
 * the next: the finish's read-back then queues behind nothing but its own run's work, while
 * the recording still overlaps the device's work. */
typedef struct vkfx_pending vkfx_pending;
int vkfx_run_start_held(vkfx_context *ctx, vkfx_staging *staging, const vkfx_chain *chain,
                        const vkfx_pixels *in, const vkfx_pixels *out, const vkfx_run_opts *opts,
                        vkfx_pending **pending);
int vkfx_run_submit(vkfx_pending *pending);
int vkfx_run_start(vkfx_context *ctx, vkfx_staging *staging, const vkfx_chain *chain,
                   const vkfx_pixels *in, const vkfx_pixels *out, const vkfx_run_opts *opts,
                   vkfx_pending **pending);
int vkfx_run_finish(vkfx_pending *pending, vkfx_pixels *out, vkfx_run_result *result);

typedef struct vkfx_bench_opts {
    uint32_t width, height;
    int precision; /* 16 or 32 */
    int reps;      /* timed runs per case (after one warm-up) */
    const char *const *chains;
    size_t nchains;
    /* Each chain once per variant of its filters' kernels (VKFX_VARIANT's family:variant) that
     * applies on the device, instead of once with the variants vkfx picks. */
    bool variants;
    bool fast; /* time the filters' fast paths (vkfx_run_opts.fast) */
    /* vkfx_bench_decode: the bits of a subsequence and the subsequences of a work group of the
     * synchronisation (0: the defaults, core/gpu/jpeg_gpu.c). */
    uint32_t jpeg_sub_bits, jpeg_lanes;
} vkfx_bench_opts;

typedef struct vkfx_bench_case {
    char name[160]; /* "copy", the chain text, or with variants "CHAIN [family:variant]" */
    double ms_median, ms_min;
    double gbps;               /* image bytes read once plus written once, over the median */
    double vs_copy;            /* median over the copy kernel's median */
    vkfx_pass_time passes[16]; /* median of each pass, in order */
    uint32_t npasses;
    /* Device memory the chain allocated beyond its input and output images
     * (temporaries, auxiliary maps); 0 for the copy. */
    uint64_t extra_bytes;
    vkfx_note notes[VKFX_MAX_NOTES]; /* what the chain's filters reported */
    uint32_t nnotes;
} vkfx_bench_case;

/* Fills cases[0] with the copy kernel (each pixel read once and written
 * once), cases[1] with the read kernel (each pixel read once, nothing
 * written), cases[2] with copy-sat (each pixel read once, 32 bytes written
 * per pixel into two rgba32ui images: a summed-area table's bytes) and
 * cases[3..] with the chains; *ncases is how many it filled. */
#define VKFX_BENCH_REFERENCES 3
int vkfx_bench(vkfx_context *ctx, vkfx_staging *staging, const vkfx_bench_opts *opts,
               vkfx_bench_case *cases, size_t *ncases);
/* How many cases vkfx_bench may fill for opts, the references included (every chain must
 * parse). */
size_t vkfx_bench_max_cases(const vkfx_bench_opts *opts);

/* Times decoding the JPEG file at path on the device, from its parsed bytes on the device to
 * its packed 8-bit samples (the chain's input), opts->reps times after a warm-up: *c as for a
 * chain (gbps: the decoded bytes written; notes: what the synchronisation of subsequences took,
 * jpeg.* as in vkfx_jpeg_sync_stats), and *host_ms the median of libjpeg-turbo's decode of the
 * same bytes on this thread. A file the device does not decode is a VKFX_E_USAGE naming it. */
int vkfx_bench_decode(vkfx_context *ctx, vkfx_staging *staging, const char *path,
                      const vkfx_bench_opts *opts, vkfx_bench_case *c, double *host_ms);

/* vkfx preview's session, which needs the types above, and the PNG of its exact frames. */
#include "pngwrite.h"
#include "preview.h"

#endif
