#version 460
// Exclusive prefix sums of n words in place, their total into totals[slot], in three passes
// (phase): SUM, one work group per tile of JPEGENC_SCAN_RUN words an invocation, the tile's sum
// into tiles[]; TILES, one work group, the tiles' sums scanned in place (each invocation a run
// of consecutive sums, the runs' sums scanned in shared memory) and the total kept; ADD, one
// work group per tile again, the tile scanned the same way from its sum's prefix.
#extension GL_GOOGLE_include_directive : require
#include "jpegenc.h"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(binding = 0) buffer Data { uint data[]; };
layout(binding = 1) buffer Totals { uint totals[]; };
layout(binding = 2) buffer Tiles { uint tiles[]; };

shared uint sums[gl_WorkGroupSize.x];

const uint SIZE = gl_WorkGroupSize.x, TILE = SIZE * JPEGENC_SCAN_RUN;

// The words to scan: the 0xFF counts are as many as the worst case's chunks, and only those the
// coded bytes fill count.
uint words()
{
    if (pc.slot == JPEGENC_TOTAL_FF)
        return min(pc.n, (totals[JPEGENC_TOTAL_BYTES] + JPEGENC_CHUNK - 1u) / JPEGENC_CHUNK);
    return pc.n;
}

uint load(bool in_tiles, uint i) { return in_tiles ? tiles[i] : data[i]; }

void store(bool in_tiles, uint i, uint v)
{
    if (in_tiles)
        tiles[i] = v;
    else
        data[i] = v;
}

// The sum of words [begin, end) of data or tiles, each invocation taking run of them; with
// write, each word replaced by base plus the sum of those before it in the range.
uint scan_range(bool in_tiles, uint begin, uint end, uint run, uint base, bool write)
{
    uint lid = gl_LocalInvocationID.x;
    uint first = min(begin + lid * run, end), last = min(first + run, end);
    uint own = 0u;
    for (uint i = first; i < last; i++)
        own += load(in_tiles, i);
    sums[lid] = own;
    barrier();
    for (uint off = 1u; off < SIZE; off <<= 1) {
        uint add = lid >= off ? sums[lid - off] : 0u;
        barrier();
        sums[lid] += add;
        barrier();
    }
    uint total = sums[SIZE - 1u];
    if (write) {
        uint at = base + sums[lid] - own;
        for (uint i = first; i < last; i++) {
            uint v = load(in_tiles, i);
            store(in_tiles, i, at);
            at += v;
        }
    }
    return total;
}

void main()
{
    uint n = words(), w = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint begin = min(w * TILE, n), end = min(begin + TILE, n);
    // Tiles past the words (the 0xFF counts' beyond the coded bytes) leave at once, the whole
    // group alike.
    if (pc.phase != JPEGENC_SCAN_TILES && begin == end) {
        if (pc.phase == JPEGENC_SCAN_SUM && gl_LocalInvocationID.x == 0u)
            tiles[w] = 0u;
        return;
    }
    if (pc.phase == JPEGENC_SCAN_SUM) {
        uint total = scan_range(false, begin, end, JPEGENC_SCAN_RUN, 0u, false);
        if (gl_LocalInvocationID.x == 0u)
            tiles[w] = total;
    } else if (pc.phase == JPEGENC_SCAN_TILES) {
        uint ntiles = (n + TILE - 1u) / TILE;
        uint total = scan_range(true, 0u, ntiles, (ntiles + SIZE - 1u) / SIZE, 0u, true);
        if (gl_LocalInvocationID.x == 0u)
            totals[pc.slot] = total;
    } else {
        scan_range(false, begin, end, JPEGENC_SCAN_RUN, tiles[w], true);
    }
}
