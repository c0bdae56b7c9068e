#version 460
// The entropy-coded bytes as the file holds them. Without STUFF: the 0xFF bytes in each run of
// JPEGENC_CHUNK bytes, counted. With STUFF: each byte moved forward by the 0xFF bytes before it
// (each followed by a zero byte in the file) and the restart markers before it (two bytes
// each), and a marker RSTn written after each interval but the last; the output is bytes in
// little-endian words, written through atomicOr into a zeroed buffer. One invocation per run,
// work groups of 64 over a 2D grid. Its two kernels are this file without STUFF
// (jpegenc_ffcount) and with it (jpegenc_stuff): rows of variant_sources in spirv/meson.build.
#extension GL_GOOGLE_include_directive : require
#include "jpegenc.h"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(binding = 0) readonly buffer Packed { uint packed[]; };
layout(binding = 1) readonly buffer Totals { uint totals[]; };
#ifdef STUFF
layout(binding = 2) readonly buffer Before { uint before[]; };
layout(binding = 3) readonly buffer Offsets { uint offsets[]; };
layout(binding = 4) buffer Out { uint bytes[]; };
#else
layout(binding = 2) writeonly buffer Counts { uint counts[]; };
#endif

uint byte_at(uint p) { return (packed[p >> 2] >> (24u - 8u * (p & 3u))) & 0xFFu; }

#ifdef STUFF
void put(uint q, uint b) { atomicOr(bytes[q >> 2], b << (8u * (q & 3u))); }

// The interval holding byte p: the last whose first byte is at or before it.
uint interval_of(uint p)
{
    uint lo = 0u, hi = pc.nintervals - 1u;
    while (lo < hi) {
        uint mid = (lo + hi + 1u) / 2u;
        if (offsets[mid] <= p)
            lo = mid;
        else
            hi = mid - 1u;
    }
    return lo;
}
#endif

void main()
{
    uint c = gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x + gl_GlobalInvocationID.x;
    if (c >= pc.n)
        return;
    uint total = totals[JPEGENC_TOTAL_BYTES];
    uint begin = min(c * JPEGENC_CHUNK, total), end = min(begin + JPEGENC_CHUNK, total);
#ifdef STUFF
    if (begin == end)
        return;
    uint ff = before[c];
    uint i = interval_of(begin);
    uint next = i + 1u < pc.nintervals ? offsets[i + 1u] : total;
    for (uint p = begin; p < end; p++) {
        while (p >= next) {
            i++;
            next = i + 1u < pc.nintervals ? offsets[i + 1u] : total;
        }
        uint q = p + ff + 2u * i, b = byte_at(p);
        put(q, b);
        if (b == 0xFFu) {
            ff++;
            q++;
        }
        if (p + 1u == next && i + 1u < pc.nintervals) {
            put(q + 1u, 0xFFu);
            put(q + 2u, 0xD0u + (i & 7u));
        }
    }
#else
    uint n = 0u;
    for (uint p = begin; p < end; p++)
        n += byte_at(p) == 0xFFu ? 1u : 0u;
    counts[c] = n;
#endif
}
