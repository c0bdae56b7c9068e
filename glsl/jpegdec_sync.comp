#version 460
// Entropy decoding of baseline JPEG segments in parallel without restart markers, after
// Weissenberger and Schmidt, "Accelerating JPEG Decompression on GPUs" (arXiv 2111.09219):
// segments are cut into subsequences of a fixed number of bits, one invocation each. GUESS
// decodes each from its first bit as if a block started there and notes where it stops (the
// first symbol boundary at or past its end: bit, coefficient index, block of the MCU); each
// SYNC round decodes every subsequence again from where its left neighbour stopped. Huffman
// codes resynchronise within a few symbols, so the states settle; a last round that changes
// nothing proves them exact, by induction from each segment's first subsequence, whose start
// is known. The same rounds count the blocks each subsequence begins and sum their DC
// differences; PREFIX turns those into each subsequence's first block and DC predictions, and
// WRITE decodes the blocks each subsequence begins and stores their coefficients. 64x1 work
// groups, no shared memory.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "common.glsl"
#define JPEGDEC_SYNC
#include "jpegdec.h"

layout(binding = 0) readonly buffer Info { uint info[]; };
layout(binding = 1) readonly buffer Segs { uint segs[]; };
layout(binding = 2) readonly buffer Data { uint data[]; };
layout(binding = 3) writeonly buffer Coefs { int coefs[]; };
layout(binding = 4) buffer Status { uint status; };
layout(binding = 5) readonly buffer Subs { uint subs[]; };
layout(binding = 6) buffer StateA { uint state_a[]; };
layout(binding = 7) buffer StateB { uint state_b[]; };

#include "jpegdec_bits.glsl"

uint src_at(uint i)
{
    return pc.flip == 0u ? state_a[i] : state_b[i];
}

void dst_set(uint i, uint v)
{
    if (pc.flip == 0u)
        state_b[i] = v;
    else
        state_a[i] = v;
}

// Bit positions past this are a stream that cannot be this scan's: such a state is noted so.
const uint NOWHERE = 0xffffffffu;

// Decodes one subsequence's symbols from state (pos, z, b) until the first symbol boundary at
// or past stop (WRITE: the first block boundary), for the scan at sc. Counts the blocks it
// begins and sums their DC differences per slot in dc (WRITE: dc holds the predictions, and the
// blocks go to the coefficients from block number first of segment g). Returns false where the
// bits are no stream of this scan.
bool run(uint sc, uint scan, uint stop, bool write, uint g, uint first, inout uint pos,
         inout uint z, inout uint b, out uint blocks, inout int dc[3])
{
    uint bpm = info[sc + JD_S_BPM], ns = info[sc + JD_S_NCOMP], mcus_x = info[sc + JD_S_MCUS_X];
    uint m0 = segs[g * JD_SEG_WORDS + 2u], mcus = info[sc + JD_S_MCUS];
    uint restart = info[sc + JD_S_RESTART];
    uint want = (restart == 0u ? mcus - m0 : min(restart, mcus - m0)) * bpm;
    blocks = 0u;
    int blk[64];
    bool own = false;
    // At most a block of symbols past stop; each symbol takes a bit at least.
    uint limit = stop + 64u * 32u;
    while (pos <= limit) {
        spent++;
        uint k = info[sc + JD_S_BSLOT + b];
        uint table = JD_HUFF + (scan * 6u + 2u * k) * JD_HUFF_WORDS;
        if (z == 0u) {
            if (pos >= stop || (write && first + blocks == want))
                return true;
            int s = next_symbol(table, pos);
            // Where a guess has put the decoder out of step with the stream, it steps on a
            // bit and goes on, so that it may fall into step further on; only WRITE, which
            // starts from exact states, finds the stream at fault.
            if (s < 0 && !write) {
                pos++;
                continue;
            }
            if (s < 0)
                return false;
            dc[k] += receive(uint(s), pos);
            blocks++;
            own = write;
            if (own) {
                [[unroll]] for (uint i = 0u; i < 64u; i++)
                    blk[i] = 0;
                blk[0] = dc[k];
                if (abs(dc[k]) > 32767 || first + blocks > want)
                    return false;
            }
            z = 1u;
        } else {
            if (!write && pos >= stop)
                return true;
            int rs = next_symbol(table + JD_HUFF_WORDS, pos);
            if (rs < 0 && !write) {
                pos++;
                continue;
            }
            if (rs < 0)
                return false;
            uint r = uint(rs) >> 4u, size = uint(rs) & 15u;
            if (size != 0u) {
                z += r;
                if (z > 63u && write)
                    return false;
                int v = receive(size, pos);
                if (own)
                    blk[jd_natural[z]] = v;
                z = min(z + 1u, 64u);
            } else {
                z = r == 15u ? z + 16u : 64u;
            }
        }
        if (z >= 64u) {
            if (own) {
                uint n = first + blocks - 1u, m = m0 + n / bpm;
                uint ce = JD_COMP + info[sc + JD_S_SLOT + k] * JD_COMP_WORDS;
                uint h = ns == 1u ? 1u : info[ce + JD_C_H], v = ns == 1u ? 1u : info[ce + JD_C_V];
                uint idx = info[sc + JD_S_BINDEX + b];
                uint at = (info[ce + JD_C_BASE] + ((m / mcus_x) * v + idx / h) *
                           info[ce + JD_C_STRIDE] + (m % mcus_x) * h + idx % h) * 64u;
                if (n % bpm != b)
                    return false;
                [[unroll]] for (uint i = 0u; i < 64u; i++)
                    coefs[at + i] = blk[i];
            }
            own = false;
            z = 0u;
            b = b + 1u == bpm ? 0u : b + 1u;
        }
    }
    return false;
}

void main()
{
    uint j = jd_index();
    if (j >= pc.count)
        return;
    if (pc.mode == JD_MODE_PREFIX) {
        // j is a segment here: its subsequences in order.
        uint s0 = segs[j * JD_SEG_WORDS + 4u], ns = segs[j * JD_SEG_WORDS + 5u];
        uint sc = JD_SCAN + segs[j * JD_SEG_WORDS + 3u] * JD_SCAN_WORDS;
        uint mcus = info[sc + JD_S_MCUS], restart = info[sc + JD_S_RESTART];
        uint m0 = segs[j * JD_SEG_WORDS + 2u];
        uint want = (restart == 0u ? mcus - m0 : min(restart, mcus - m0)) * info[sc + JD_S_BPM];
        uint blocks = 0u;
        int dc[3] = int[3](0, 0, 0);
        for (uint i = s0; i < s0 + ns; i++) {
            uint at = i * JD_ST_WORDS;
            state_a[at + JD_ST_FIRST] = blocks;
            for (uint k = 0u; k < 3u; k++) {
                state_a[at + JD_ST_PRED + k] = uint(dc[k]);
                dc[k] += int(state_a[at + JD_ST_DC + k]);
            }
            blocks += state_a[at + JD_ST_BLOCKS];
        }
        // The last subsequence may count a block or so more from the bits that pad the
        // segment to a byte: WRITE stops at want and checks that only padding is left.
        if (blocks < want)
            atomicOr(status, JD_BAD_STREAM);
        return;
    }
    uint g = subs[j * JD_SUB_WORDS], start = subs[j * JD_SUB_WORDS + 1u];
    uint stop = subs[j * JD_SUB_WORDS + 2u];
    bool leftmost = subs[j * JD_SUB_WORDS + 3u] == j;
    uint scan = segs[g * JD_SEG_WORDS + 3u], sc = JD_SCAN + scan * JD_SCAN_WORDS;
    // Where to start: a segment's first subsequence at its first bit, at a block's start; the
    // others at a guess (GUESS) or where their left neighbour stopped.
    uint pos = start, z = 0u, b = 0u;
    if (!leftmost && pc.mode != JD_MODE_GUESS) {
        uint at = (j - 1u) * JD_ST_WORDS;
        pos = pc.mode == JD_MODE_WRITE ? state_a[at + JD_ST_POS] : src_at(at + JD_ST_POS);
        uint zb = pc.mode == JD_MODE_WRITE ? state_a[at + JD_ST_ZB] : src_at(at + JD_ST_ZB);
        z = zb & 0xffu;
        b = zb >> 8u;
    }
    uint blocks;
    if (pc.mode == JD_MODE_WRITE) {
        uint at = j * JD_ST_WORDS, first = state_a[at + JD_ST_FIRST];
        uint m0 = segs[g * JD_SEG_WORDS + 2u], mcus = info[sc + JD_S_MCUS];
        uint restart = info[sc + JD_S_RESTART];
        uint want = (restart == 0u ? mcus - m0 : min(restart, mcus - m0)) * info[sc + JD_S_BPM];
        // Past the segment's last block: only the bits that pad it to a byte, which the rounds
        // may have read as more.
        if (first >= want)
            return;
        int dc[3] = int[3](int(state_a[at + JD_ST_PRED]), int(state_a[at + JD_ST_PRED + 1u]),
                           int(state_a[at + JD_ST_PRED + 2u]));
        bool ok = pos != NOWHERE && run(sc, scan, stop, true, g, first, pos, z, b, blocks, dc);
        // The segment's last block ends where its data does, to the byte: whole bytes left
        // over are data libjpeg-turbo would skip with a warning.
        uint end = segs[g * JD_SEG_WORDS + 1u] * 8u;
        if (!ok || pos > end || (first + blocks == want && end - pos >= 8u))
            atomicOr(status, JD_BAD_STREAM);
        return;
    }
    int dc[3] = int[3](0, 0, 0);
    bool ok = pos != NOWHERE && run(sc, scan, stop, false, g, 0u, pos, z, b, blocks, dc);
    uint at = j * JD_ST_WORDS;
    uint zb = ok ? z | b << 8u : 0u;
    pos = ok ? pos : NOWHERE;
    if (pc.last != 0u && (pos != src_at(at + JD_ST_POS) || zb != src_at(at + JD_ST_ZB)))
        atomicOr(status, JD_BAD_SYNC);
    dst_set(at + JD_ST_POS, pos);
    dst_set(at + JD_ST_ZB, zb);
    dst_set(at + JD_ST_BLOCKS, blocks);
    for (uint k = 0u; k < 3u; k++)
        dst_set(at + JD_ST_DC + k, uint(dc[k]));
}
