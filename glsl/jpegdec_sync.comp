#version 460
// Entropy decoding of baseline JPEG segments in parallel without restart markers, after
// Weissenberger and Schmidt, "Accelerating JPEG Decompression on GPUs" (arXiv 2111.09219):
// segments are cut into subsequences of a fixed number of bits, and the subsequences into
// sequences of one work group, an invocation per subsequence. SETTLE decodes each subsequence
// from its first bit as if a block started there, noting where it stops (the first symbol
// boundary at or past its end: bit, coefficient index, block of the MCU); then, in shared
// memory, every subsequence whose start differs from where its left neighbour stopped decodes
// again from there, until none does: Huffman codes resynchronise within a few symbols, so this
// takes two or three turns, and at most one per subsequence. Each LINK round settles again the
// sequences whose left neighbour's end moved, starting from it, and notes whether their own end
// moved; a round that moves none proves every state exact, by induction from each segment's
// first subsequence, whose start is known, and the later rounds return at once. A work group's
// scan sums the blocks each subsequence begins and their DC differences, PREFIX scans the
// sequences' sums, and WRITE decodes the blocks each subsequence begins with their first block
// and DC predictions and stores their coefficients.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "common.glsl"
#define JPEGDEC_SYNC
#include "jpegdec.h"

layout(binding = 0) readonly buffer Info { uint info[]; };
layout(binding = 1) readonly buffer Segs { uint segs[]; };
layout(binding = 2) readonly buffer Data { uint data[]; };
layout(binding = 3) writeonly buffer Coefs { uint coefs[]; };
layout(binding = 4) buffer Status { uint status; };
layout(binding = 5) readonly buffer Subs { uint subs[]; };
layout(binding = 6) buffer States { uint st[]; };
// The sequences, then the rounds' words (glsl/jpegdec.h JD_R_*).
layout(binding = 7) buffer Seqs { uint sq[]; };
layout(constant_id = JD_SPEC_BUDGET) const uint BUDGET = 0xffffffffu;

#include "jpegdec_bits.glsl"

// The most invocations of a work group (core/jpeg_gpu.c picks fewer).
const uint MAX_LANES = 256u;
shared uint s_pos[MAX_LANES], s_zb[MAX_LANES];
shared uint s_any[2];
shared uint s_head[MAX_LANES];
shared int s_sum[4 * MAX_LANES];
shared uint s_decodes;

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
    while (pos <= limit && spent <= BUDGET) {
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
                [[unroll]] for (uint i = 0u; i < 32u; i++)
                    coefs[at / 2u + i] = jd_pack(blk[2u * i], blk[2u * i + 1u]);
            }
            own = false;
            z = 0u;
            b = b + 1u == bpm ? 0u : b + 1u;
        }
    }
    return false;
}

// Decodes subsequence j from the state (pos, zb) to where it stops: the state there, its
// blocks and DC sums.
void decode(uint j, uint pos, uint zb, out uint end, out uint end_zb, out uint blocks,
            out int dc[3])
{
    uint g = subs[j * JD_SUB_WORDS], stop = subs[j * JD_SUB_WORDS + 2u];
    uint scan = segs[g * JD_SEG_WORDS + 3u];
    uint z = zb & 0xffu, b = zb >> 8u;
    dc = int[3](0, 0, 0);
    blocks = 0u;
    bool ok = pos != NOWHERE &&
              run(JD_SCAN + scan * JD_SCAN_WORDS, scan, stop, false, g, 0u, pos, z, b, blocks, dc);
    end = ok ? pos : NOWHERE;
    end_zb = ok ? z | b << 8u : 0u;
}

// Inclusive sums over the work group of v restarted at every head: where a lane is no head, v
// takes the sums of the lanes left of it up to the nearest head, and head whether there is one.
void segmented_scan(uint i, inout bool head, inout int v[4])
{
    for (uint d = 1u; d < gl_WorkGroupSize.x; d <<= 1u) {
        s_head[i] = head ? 1u : 0u;
        for (uint k = 0u; k < 4u; k++)
            s_sum[k * MAX_LANES + i] = v[k];
        barrier();
        if (i >= d && !head) {
            for (uint k = 0u; k < 4u; k++)
                v[k] += s_sum[k * MAX_LANES + i - d];
            head = s_head[i - d] != 0u;
        }
        barrier();
    }
}

bool starts_segment(uint j)
{
    return subs[j * JD_SUB_WORDS + 3u] == j;
}

// The blocks a segment's restart interval (or the rest of its scan) holds.
uint wanted(uint g)
{
    uint sc = JD_SCAN + segs[g * JD_SEG_WORDS + 3u] * JD_SCAN_WORDS;
    uint m0 = segs[g * JD_SEG_WORDS + 2u], mcus = info[sc + JD_S_MCUS];
    uint restart = info[sc + JD_S_RESTART];
    return (restart == 0u ? mcus - m0 : min(restart, mcus - m0)) * info[sc + JD_S_BPM];
}

// PREFIX: one work group walks the sequences in turns of its size; each sequence's carry is
// the sums from the start of the segment it ends in to its end.
void prefix()
{
    uint i = gl_LocalInvocationID.x, n = gl_WorkGroupSize.x;
    int carry[4] = int[4](0, 0, 0, 0);
    for (uint base = 0u; base < pc.nseq; base += n) {
        uint k = base + i, at = k * JD_SQ_WORDS;
        bool head = k < pc.nseq && sq[at + JD_SQ_HEAD] != 0u;
        int v[4] = int[4](0, 0, 0, 0);
        if (k < pc.nseq)
            for (uint c = 0u; c < 4u; c++)
                v[c] = int(sq[at + JD_SQ_AGG + c]);
        if (i == 0u && !head)
            for (uint c = 0u; c < 4u; c++)
                v[c] += carry[c];
        segmented_scan(i, head, v);
        if (k < pc.nseq)
            for (uint c = 0u; c < 4u; c++)
                sq[at + JD_SQ_CARRY + c] = uint(v[c]);
        for (uint c = 0u; c < 4u; c++)
            s_sum[c * MAX_LANES + i] = v[c];
        barrier();
        for (uint c = 0u; c < 4u; c++)
            carry[c] = s_sum[c * MAX_LANES + n - 1u];
        barrier();
    }
}

// WRITE for sequence q: the settled states, their blocks and DC predictions from the scan of
// the sequence and the carry of the one before, decoded again, storing the coefficients.
void write_sequence(uint q)
{
    uint i = gl_LocalInvocationID.x, j = q * gl_WorkGroupSize.x + i, first_sub = q * gl_WorkGroupSize.x;
    bool valid = j < pc.count;
    uint at = j * JD_ST_WORDS;
    int v[4] = int[4](0, 0, 0, 0);
    bool head = valid && starts_segment(j);
    if (valid) {
        v[0] = int(st[at + JD_ST_BLOCKS]);
        for (uint k = 0u; k < 3u; k++)
            v[k + 1u] = int(st[at + JD_ST_DC + k]);
    }
    int own[4] = v;
    segmented_scan(i, head, v);
    if (!valid)
        return;
    // Sums before this subsequence within its segment: the scan less its own, plus the
    // sequence before where the segment began there.
    if (!head && !starts_segment(first_sub)) {
        uint c = (q - 1u) * JD_SQ_WORDS + JD_SQ_CARRY;
        for (uint k = 0u; k < 4u; k++)
            v[k] += int(sq[c + k]);
    }
    uint first = uint(v[0] - own[0]);
    int dc[3] = int[3](v[1] - own[1], v[2] - own[2], v[3] - own[3]);
    uint g = subs[j * JD_SUB_WORDS], stop = subs[j * JD_SUB_WORDS + 2u];
    uint scan = segs[g * JD_SEG_WORDS + 3u], want = wanted(g);
    bool last = j + 1u == pc.count || starts_segment(j + 1u);
    // The last subsequence may count a block or so more from the bits that pad the segment to a
    // byte: the decode stops at want and checks that only padding is left.
    if (last && first + own[0] < want)
        atomicOr(status, JD_BAD_STREAM);
    // Past the segment's last block: only the bits that pad it to a byte, which the settling
    // may have read as more.
    if (first >= want)
        return;
    uint pos = st[at + JD_ST_START], zb = st[at + JD_ST_START_ZB], z = zb & 0xffu, b = zb >> 8u;
    uint blocks;
    bool ok = pos != NOWHERE &&
              run(JD_SCAN + scan * JD_SCAN_WORDS, scan, stop, true, g, first, pos, z, b, blocks, dc);
    // The segment's last block ends where its data does, to the byte: whole bytes left over
    // are data libjpeg-turbo would skip with a warning.
    uint end = segs[g * JD_SEG_WORDS + 1u] * 8u;
    if (!ok || pos > end || (first + blocks == want && end - pos >= 8u))
        atomicOr(status, JD_BAD_STREAM);
    if (spent > BUDGET)
        atomicOr(status, JD_BAD_BUDGET);
}

void main()
{
    if (pc.mode == JD_MODE_PREFIX) {
        prefix();
        return;
    }
    uint q = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    if (q >= pc.nseq)
        return;
    if (pc.mode == JD_MODE_WRITE) {
        // Rounds that never stopped moving the sequences' ends leave states that prove nothing.
        if (pc.round != 0u && sq[pc.nseq * JD_SQ_WORDS + JD_R_FLAGS + pc.round] != 0u) {
            if (gl_LocalInvocationID.x == 0u)
                atomicOr(status, JD_BAD_SYNC);
            return;
        }
        write_sequence(q);
        return;
    }
    uint lanes = gl_WorkGroupSize.x, i = gl_LocalInvocationID.x;
    uint j = q * lanes + i, first_sub = q * lanes, at = j * JD_ST_WORDS;
    bool valid = j < pc.count;
    uint dst = JD_SQ_BND + (pc.round & 1u) * 2u;
    uint start = 0u, start_zb = 0u, end = 0u, end_zb = 0u, blocks = 0u;
    int dc[3] = int[3](0, 0, 0);
    bool again = false;
    if (pc.mode == JD_MODE_LINK) {
        if (pc.round > 1u && sq[pc.nseq * JD_SQ_WORDS + JD_R_FLAGS + pc.round - 1u] == 0u)
            return;
        uint src = JD_SQ_BND + ((pc.round - 1u) & 1u) * 2u, here = q * JD_SQ_WORDS;
        uint from = 0u, from_zb = 0u;
        bool moved = false;
        if (!starts_segment(first_sub)) {
            from = sq[here - JD_SQ_WORDS + src];
            from_zb = sq[here - JD_SQ_WORDS + src + 1u];
            moved = from != st[first_sub * JD_ST_WORDS + JD_ST_START] ||
                    from_zb != st[first_sub * JD_ST_WORDS + JD_ST_START_ZB];
        }
        if (!moved) {
            if (i == 0u) {
                sq[here + dst] = sq[here + src];
                sq[here + dst + 1u] = sq[here + src + 1u];
            }
            return;
        }
        if (valid) {
            start = st[at + JD_ST_START];
            start_zb = st[at + JD_ST_START_ZB];
            end = st[at + JD_ST_POS];
            end_zb = st[at + JD_ST_ZB];
            blocks = st[at + JD_ST_BLOCKS];
            for (uint k = 0u; k < 3u; k++)
                dc[k] = int(st[at + JD_ST_DC + k]);
        }
        if (i == 0u) {
            start = from;
            start_zb = from_zb;
            again = true;
        }
    } else {
        // A guess: a block starts at the subsequence's first bit (exact for a segment's first).
        start = valid ? subs[j * JD_SUB_WORDS + 1u] : 0u;
        again = valid;
    }
    uint old_end = end, old_end_zb = end_zb, decodes = 0u;
    if (again) {
        decode(j, start, start_zb, end, end_zb, blocks, dc);
        decodes++;
    }
    s_pos[i] = end;
    s_zb[i] = end_zb;
    if (i == 0u) {
        s_any[0] = 0u;
        s_any[1] = 0u;
        s_decodes = 0u;
    }
    barrier();
    // Each turn makes one more subsequence exact from the sequence's first at least, so the
    // turns end within one per subsequence.
    bool follow = valid && i > 0u && !starts_segment(j);
    uint turn = 0u;
    for (;; turn++) {
        uint p = turn & 1u;
        bool moved = false;
        uint from = 0u, from_zb = 0u;
        if (follow) {
            from = s_pos[i - 1u];
            from_zb = s_zb[i - 1u];
            moved = from != start || from_zb != start_zb;
        }
        barrier();
        if (moved) {
            start = from;
            start_zb = from_zb;
            decode(j, start, start_zb, end, end_zb, blocks, dc);
            decodes++;
            s_pos[i] = end;
            s_zb[i] = end_zb;
            s_any[p] = 1u;
        }
        barrier();
        bool go = s_any[p] != 0u;
        if (i == 0u)
            s_any[p ^ 1u] = 0u;
        if (!go || turn > lanes)
            break;
    }
    if (valid) {
        st[at + JD_ST_START] = start;
        st[at + JD_ST_START_ZB] = start_zb;
        st[at + JD_ST_POS] = end;
        st[at + JD_ST_ZB] = end_zb;
        st[at + JD_ST_BLOCKS] = blocks;
        for (uint k = 0u; k < 3u; k++)
            st[at + JD_ST_DC + k] = uint(dc[k]);
    }
    if (spent > BUDGET)
        atomicOr(status, JD_BAD_BUDGET);
    atomicAdd(s_decodes, decodes);
    // The sums of the part of the sequence in the segment it ends in, for PREFIX.
    bool head = valid && starts_segment(j);
    int v[4] = int[4](int(blocks), dc[0], dc[1], dc[2]);
    if (!valid)
        v = int[4](0, 0, 0, 0);
    segmented_scan(i, head, v);
    if (i == lanes - 1u) {
        uint here = q * JD_SQ_WORDS;
        sq[here + dst] = end;
        sq[here + dst + 1u] = end_zb;
        for (uint k = 0u; k < 4u; k++)
            sq[here + JD_SQ_AGG + k] = uint(v[k]);
        sq[here + JD_SQ_HEAD] = head ? 1u : 0u;
        // Only an end the next sequence starts from needs another round.
        bool feeds = q + 1u < pc.nseq && !starts_segment(first_sub + lanes);
        if (pc.mode == JD_MODE_LINK && feeds && (end != old_end || end_zb != old_end_zb)) {
            sq[pc.nseq * JD_SQ_WORDS + JD_R_FLAGS + pc.round] = 1u;
            atomicMax(sq[pc.nseq * JD_SQ_WORDS + JD_R_LAST], pc.round);
        }
    }
    barrier();
    if (i == 0u) {
        atomicMax(sq[pc.nseq * JD_SQ_WORDS + JD_R_ITERS], turn + 1u);
        atomicAdd(sq[pc.nseq * JD_SQ_WORDS + JD_R_DECODES], s_decodes);
    }
}
