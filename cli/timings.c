/* --timings' host wall-clock breakdown: where a run's time went between the
 * process's start and its exit, next to the GPU's own times per pass. */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

static double main_ms; /* CLOCK_MONOTONIC when the program's own code began */

__attribute__((constructor)) static void note_start(void)
{
    main_ms = vkfx_now_ms();
}

/* Milliseconds from the process's creation (fork/exec, in the kernel's
 * clock ticks, usually 10 ms) to note_start: the dynamic linker's work.
 * -1 when /proc is not there. */
static double exec_to_main_ms(void)
{
    FILE *f = fopen("/proc/self/stat", "r");
    char buf[1024];
    size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = 0;
    /* Field 22, starttime, counted after the command name's closing ')'. */
    char *p = strrchr(buf, ')');
    unsigned long long start = 0;
    for (int field = 2; p && field < 22; field++)
        p = strchr(p + 1, ' ');
    struct timespec boot, mono;
    if (!p || sscanf(p + 1, "%llu", &start) != 1 || clock_gettime(CLOCK_BOOTTIME, &boot) != 0 ||
        clock_gettime(CLOCK_MONOTONIC, &mono) != 0)
        return -1;
    /* Both clocks advance together while the machine is awake: move the start to
     * the monotonic clock by their offset now. */
    double boot_ms = (double)boot.tv_sec * 1e3 + (double)boot.tv_nsec * 1e-6;
    double mono_ms = (double)mono.tv_sec * 1e3 + (double)mono.tv_nsec * 1e-6;
    double start_ms = (double)start * 1e3 / (double)sysconf(_SC_CLK_TCK) - (boot_ms - mono_ms);
    return main_ms - start_ms > 0 ? main_ms - start_ms : 0;
}

double cli_since_start_ms(void)
{
    return vkfx_now_ms() - main_ms;
}

static void line(const char *what, double ms, const char *note)
{
    fprintf(stderr, "vkfx: %-16s %9.3f ms (wall%s%s)\n", what, ms, *note ? ", " : "", note);
}

void cli_wall_print(const cli_wall *w)
{
    double exec = exec_to_main_ms();
    char per[64];
    snprintf(per, sizeof(per), "summed over %zu job%s", w->jobs, w->jobs == 1 ? "" : "s");
    if (exec >= 0)
        line("process to main", exec, "from its creation, in the kernel's clock ticks");
    line("start to ready", w->ready_ms, "main to device ready, of which:");
    line("  loader", w->ctx.loader_ms, "");
    line("  instance", w->ctx.instance_ms, "drivers and layers");
    line("  device", w->ctx.device_ms, "");
    line("  staging", w->staging_ms, "mapped host memory for uploads");
    line("pipelines", w->ctx.pipelines_ms, "kernels built, waited for; each kernel below");
    if (w->ctx.probe_ms > 0)
        line("  half probe", w->ctx.probe_ms, "the device's conversion to halves checked");
    for (unsigned i = 0; i < w->ctx.nkernels && i < VKFX_TIMED_KERNELS; i++) {
        char name[40];
        snprintf(name, sizeof(name), "  kernel %s", w->ctx.kernels[i].name);
        line(name, w->ctx.kernels[i].ms,
             w->ctx.kernels[i].compiled
                 ? (w->ctx.kernels[i].threaded ? "compiled, on its own thread" : "compiled")
                 : (w->ctx.kernels[i].threaded ? "from the cache, on its own thread"
                                               : "from the cache"));
    }
    line("decode", w->decode_ms, per);
    line("upload", w->upload_ms, per);
    line("record", w->record_ms - w->ctx.pipelines_ms, "less the pipelines");
    line("GPU", w->wait_ms, "waited for");
    line("read-back", w->readback_ms, per);
    line("encode", w->encode_ms, per);
    line("exit", w->exit_ms, "GPU context and pipeline cache closed");
    line("total", cli_since_start_ms() + (exec > 0 ? exec : 0), "process start to now");
}
