/* Summed-area tables (glsl/sat_tile.comp): a sums pass that writes
 * each tile's bottom row and the right column of each half of it, two carry
 * passes (sat_carry: along the rows over the half-tiles, then down the
 * columns over the tile rows), and a table pass over the half-tiles that
 * rebuilds their sums and adds the carries. The image is read twice and the
 * table written once; the sums in between are about 1/TH + 2/TW of the
 * table's size. A sums tile is 4 subgroup widths across (128 columns at 32
 * lanes), a table tile 2, both STEPS blocks of 4 rows down, each walked by
 * one subgroup (a band); work groups hold GROUP invocations (one band at 32
 * lanes, several at fewer), or one band of up to MAX_LANES. */
#include "error.h"
#include "variant.h"
#include "filters.h"

#include "sat_carry.spv.h"
#include "sat_export.spv.h"
#include "sat_sums.spv.h"
#include "sat_sums_sg.spv.h"
#include "sat_sums_sg64.spv.h"
#include "sat_table.spv.h"
#include "sat_table_sg.spv.h"
#include "sat_table_sg64.spv.h"
#include "../../glsl/sat.h"

_Static_assert(sizeof(sat_tile_push) == SAT_TILE_PUSH_BYTES, "the tile passes' push block");
_Static_assert(sizeof(sat_carry_push) == SAT_CARRY_PUSH_BYTES, "sat_carry's push block");
_Static_assert(sizeof(sat_export_push) == SAT_EXPORT_PUSH_BYTES, "sat_export's push block");

enum {
    SUMS_BLOCK_W = 4,
    TABLE_BLOCK_W = 2,
    BLOCK_H = 4,
    STEPS = 8,
    GROUP = 32,
    MAX_LANES = 64,
    SHARED_LANES = 32,
    CARRY_LINES = 32,
    CARRY_PARTS = 8
};

#define TILE_KERNEL(kname)                                                                         \
    {                                                                                              \
        .name = #kname, VKFX_SPV(kname), .nbind = 6,                                               \
        .bind = {VKFX_BIND_SAMPLED, VKFX_BIND_STORAGE_IMAGE, VKFX_BIND_STORAGE_IMAGE,              \
                 VKFX_BIND_BUFFER,  VKFX_BIND_BUFFER,        VKFX_BIND_BUFFER},                    \
        .push_size = sizeof(sat_tile_push),                                                        \
    }
/* [pass][path]: the sums and the table pass; shared memory, 32-bit subgroup
 * pieces, 64-bit subgroup scans. */
static const vkfx_kernel_desc tile_kernels[2][3] = {
    {TILE_KERNEL(sat_sums), TILE_KERNEL(sat_sums_sg), TILE_KERNEL(sat_sums_sg64)},
    {TILE_KERNEL(sat_table), TILE_KERNEL(sat_table_sg), TILE_KERNEL(sat_table_sg64)},
};

static const vkfx_kernel_desc export_kernel = {
    .name = "sat_export",
    VKFX_SPV(sat_export),
    .nbind = 3,
    .bind = {VKFX_BIND_SAMPLED, VKFX_BIND_SAMPLED, VKFX_BIND_BUFFER},
    .push_size = sizeof(sat_export_push)};
static const vkfx_kernel_desc carry_kernel = {.name = "sat_carry",
                                              VKFX_SPV(sat_carry),
                                              .nbind = 2,
                                              .bind = {VKFX_BIND_BUFFER, VKFX_BIND_BUFFER},
                                              .push_size = sizeof(sat_carry_push)};

int vkfx_sat_shift(uint32_t width, uint32_t height)
{
    /* |box sum| <= W H 65504 2^shift < 2^63, 65504 < 2^16. */
    uint64_t n = (uint64_t)width * height;
    int bits = 0;
    while (bits < 63 && (1ull << bits) < n)
        bits++;
    int shift = 63 - 1 - 16 - bits;
    return shift > 24 ? 24 : shift < 0 ? 0 : shift;
}

/* Subgroup scans need a known, fixed subgroup size dividing the tile width:
 * one the pipeline can pin, or the only one the device has. */
static bool use_subgroups(const vkfx_caps *caps)
{
    return caps->subgroup_arith && caps->subgroup_size >= 4 && caps->subgroup_size <= MAX_LANES &&
           (caps->subgroup_size_control || caps->min_subgroup_size == caps->max_subgroup_size);
}

/* The table by the kernels of path: 0 shared memory, 1 32-bit subgroup pieces, 2 64-bit subgroup
 * scans. */
static int record_path(vkfx_graph *g, vkfx_image *src, int shift, vkfx_buffer *probe, vkfx_sat *out,
                       int path)
{
    int ret = VKFX_OK;
    const vkfx_caps *caps = vkfx_graph_caps(g);
    uint32_t w = vkfx_graph_width(g), h = vkfx_graph_height(g);
    vkfx_kernel *sums = NULL, *table = NULL, *across = NULL, *down = NULL;
    vkfx_buffer *cols = NULL, *rows = NULL;
    const bool sg = path > 0;
    /* A band of lanes is one subgroup on the subgroup paths; each band walks
     * down its own tile. */
    uint32_t lanes = sg ? caps->subgroup_size : SHARED_LANES;
    uint32_t bands = lanes < GROUP ? GROUP / lanes : 1;
    /* The sums pass's tiles are twice as wide as the table pass's. */
    uint32_t tw = lanes * SUMS_BLOCK_W, th = STEPS * BLOCK_H;
    _Static_assert(SUMS_BLOCK_W == 2 * TABLE_BLOCK_W, "a sums tile is two table tiles");
    uint32_t ti = vkfx_groups(w, tw), tj = vkfx_groups(h, th);
    uint32_t halves = vkfx_groups(w, tw / 2);
    VkDeviceSize entry = 4 * sizeof(int64_t);
    out->lo = out->hi = NULL;
    out->shift = shift;

    if (!caps->shader_int64)
        return vkfx_fail(VKFX_E_LIMIT, "summed-area tables need 64-bit integers in shaders "
                                       "(shaderInt64), which this device lacks");
    VkDeviceSize aux = (VkDeviceSize)(tj > halves ? tj : halves) * (w > h ? w : h) * entry;
    if (aux > caps->storage_buffer_range)
        return vkfx_fail(VKFX_E_LIMIT,
                         "a %ux%u image needs %.1f MiB of tile sums for its summed-area table, "
                         "beyond this device's largest storage buffer (%.1f MiB)",
                         w, h, aux / 1048576.0, caps->storage_buffer_range / 1048576.0);

    vkfx_spec tspec = {.local = {lanes, bands, 1},
                       .subgroup = sg ? lanes : 0,
                       .nextra = VKFX_SPEC_COUNT(SAT_SPEC_STEPS),
                       .extra = {[VKFX_SPEC(SAT_SPEC_SHIFT)] = (uint32_t)shift,
                                 [VKFX_SPEC(SAT_SPEC_STEPS)] = STEPS}};
    TRY(vkfx_graph_kernel(g, &tile_kernels[0][path], &tspec, &sums));
    TRY(vkfx_graph_kernel(g, &tile_kernels[1][path], &tspec, &table));
    vkfx_spec cspec = {.local = {CARRY_LINES, CARRY_PARTS, 1},
                       .nextra = VKFX_SPEC_COUNT(SAT_SPEC_ADD_LEFT)};
    TRY(vkfx_graph_kernel(g, &carry_kernel, &cspec, &across));
    cspec.extra[VKFX_SPEC(SAT_SPEC_ADD_LEFT)] = 1;
    TRY(vkfx_graph_kernel(g, &carry_kernel, &cspec, &down));

    TRY(vkfx_graph_image(g, w, h, VK_FORMAT_R32G32B32A32_UINT, &out->lo));
    TRY(vkfx_graph_image(g, w, h, VK_FORMAT_R32G32B32A32_UINT, &out->hi));
    TRY(vkfx_graph_buffer(g, (VkDeviceSize)tj * w * entry, 0, &cols));
    TRY(vkfx_graph_buffer(g, (VkDeviceSize)halves * h * entry, 0, &rows));
    if (!probe)
        TRY(vkfx_graph_buffer(g, 16, 0, &probe));

    sat_tile_push size = {{(int32_t)w, (int32_t)h}};
    vkfx_dispatch a = {
        .kernel = sums,
        .label = "sat.sums",
        .use = {{.image = src},
                {.image = out->lo},
                {.image = out->hi},
                {.buffer = cols, .write = true},
                {.buffer = rows, .write = true},
                {.buffer = probe}},
        .push = &size,
        .groups = {vkfx_groups(ti, bands), tj, 1},
    };
    TRY(vkfx_graph_dispatch(g, &a));
    /* rows: along each row over the half-tiles, the sums left of each
     * half-tile in that row of it. */
    sat_carry_push push_across = {h, halves, h, 1, 0, 0, h};
    vkfx_dispatch b1 = {
        .kernel = across,
        .label = "sat.carry",
        .use = {{.buffer = rows, .write = true}, {.buffer = cols}},
        .push = &push_across,
        .groups = {vkfx_groups(h, CARRY_LINES), 1, 1},
    };
    TRY(vkfx_graph_dispatch(g, &b1));
    /* cols: down each column over the tile rows, each tile row's bottom-row
     * sums plus its sums left of the tile: S on the row above each tile. */
    sat_carry_push push_down = {w, tj, w, 1, tw, th, h};
    vkfx_dispatch b2 = {
        .kernel = down,
        .label = "sat.carry",
        .use = {{.buffer = cols, .write = true}, {.buffer = rows}},
        .push = &push_down,
        .groups = {vkfx_groups(w, CARRY_LINES), 1, 1},
    };
    TRY(vkfx_graph_dispatch(g, &b2));
    vkfx_dispatch c = {
        .kernel = table,
        .label = "sat.table",
        .use = {{.image = src},
                {.image = out->lo, .write = true},
                {.image = out->hi, .write = true},
                {.buffer = cols},
                {.buffer = rows},
                {.buffer = probe, .write = true}},
        .push = &size,
        .groups = {vkfx_groups(halves, bands), tj, 1},
    };
    TRY(vkfx_graph_dispatch(g, &c));
fail:
    if (ret < 0)
        vkfx_fail_context(ret, "building the summed-area table");
    return ret;
}

typedef struct sat_job {
    vkfx_image *src;
    int shift;
    vkfx_buffer *probe;
    vkfx_sat *out;
} sat_job;

static bool subgroup64_applies(const vkfx_caps *caps, const void *job)
{
    (void)job;
    return use_subgroups(caps) && caps->subgroup_int64;
}

static int subgroup64_record(vkfx_graph *g, const void *job)
{
    const sat_job *j = job;
    return record_path(g, j->src, j->shift, j->probe, j->out, 2);
}

static bool subgroup_applies(const vkfx_caps *caps, const void *job)
{
    (void)job;
    return use_subgroups(caps);
}

static int subgroup_record(vkfx_graph *g, const void *job)
{
    const sat_job *j = job;
    return record_path(g, j->src, j->shift, j->probe, j->out, 1);
}

static int shared_record(vkfx_graph *g, const void *job)
{
    const sat_job *j = job;
    return record_path(g, j->src, j->shift, j->probe, j->out, 0);
}

/* 64-bit subgroup scans where the device has them, 32-bit pieces where it only has subgroup
 * arithmetic, shared memory otherwise. */
static const vkfx_variant sat_variant_list[] = {
    {"subgroup64", subgroup64_applies, subgroup64_record, NULL},
    {"subgroup", subgroup_applies, subgroup_record, NULL},
    {"shared", vkfx_variant_always, shared_record, NULL},
    {0},
};

const vkfx_variants vkfx_sat_variants = {"sat", sat_variant_list};

int vkfx_sat_record(vkfx_graph *g, vkfx_image *src, int shift, vkfx_buffer *probe, vkfx_sat *out)
{
    sat_job j = {src, shift, probe, out};
    out->lo = out->hi = NULL;
    return vkfx_variant_record(g, &vkfx_sat_variants, &j);
}

int vkfx_sat_record_export(vkfx_graph *g, const vkfx_sat *sat, uint32_t first, uint32_t rows,
                           vkfx_buffer *out)
{
    int ret = VKFX_OK;
    vkfx_kernel *k = NULL;
    uint32_t w = vkfx_graph_width(g);
    vkfx_spec spec = {.local = {16, 16, 1}};
    TRY(vkfx_graph_kernel(g, &export_kernel, &spec, &k));
    sat_export_push push = {
        {(int32_t)w, (int32_t)vkfx_graph_height(g)}, (int32_t)first, (int32_t)rows};
    vkfx_dispatch d = {
        .kernel = k,
        .label = "sat.export",
        .use = {{.image = sat->lo}, {.image = sat->hi}, {.buffer = out, .write = true}},
        .push = &push,
        .groups = {vkfx_groups(w, 16), vkfx_groups(rows, 16), 1},
    };
    TRY(vkfx_graph_dispatch(g, &d));
fail:
    return ret;
}
