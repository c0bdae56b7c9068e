#version 460
// Entropy decoding of baseline JPEG scans: one invocation per restart segment (a whole scan
// where the file has no restart markers) decodes its MCUs in order with their DC predictions
// and stores every block's 64 coefficients in natural order. 64x1 work groups, no shared
// memory. Seed technique: restart intervals as free synchronisation points (the entry point
// the self-synchronising decoder of Weissenberger and Schmidt, arXiv 2111.09219, builds on).
// The host took out stuffed bytes and markers (core/codecs/jpeg_parse.c), so the segment is a
// plain bit string here.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "common.glsl"
#define JPEGDEC
#include "jpegdec.h"

layout(binding = 0) readonly buffer Info { uint info[]; };
layout(binding = 1) readonly buffer Segs { uint segs[]; };
layout(binding = 2) readonly buffer Data { uint data[]; };
layout(binding = 3) writeonly buffer Coefs { int coefs[]; };
layout(binding = 4) buffer Status { uint status; };
layout(constant_id = JD_SPEC_BUDGET) const uint BUDGET = 0xffffffffu;

// Loop iterations taken, counted against BUDGET.
uint spent = 0u;

// The natural (row-major) position of each zigzag position of an 8x8 block.
const uint jd_natural[64] = uint[64](
    0u, 1u, 8u, 16u, 9u, 2u, 3u, 10u, 17u, 24u, 32u, 25u, 18u, 11u, 4u, 5u,
    12u, 19u, 26u, 33u, 40u, 48u, 41u, 34u, 27u, 20u, 13u, 6u, 7u, 14u, 21u, 28u,
    35u, 42u, 49u, 56u, 57u, 50u, 43u, 36u, 29u, 22u, 15u, 23u, 30u, 37u, 44u, 51u,
    58u, 59u, 52u, 45u, 38u, 31u, 39u, 46u, 53u, 60u, 61u, 54u, 47u, 55u, 62u, 63u);

uint word_at(uint i)
{
    return i < info[JD_WORDS] ? data[i] : 0u;
}

// The 32 bits from bit pos on, the first in the top bit; zeros past the data.
uint peek(uint pos)
{
    uint w = pos >> 5u, s = pos & 31u;
    uint a = word_at(w);
    return s == 0u ? a : (a << s) | (word_at(w + 1u) >> (32u - s));
}

// The value of the next code of the table at t, or -1 for a bit string no code starts.
int next_symbol(uint t, inout uint pos)
{
    uint bits = peek(pos);
    uint e = info[t + JD_H_LUT + (bits >> (32u - JD_H_LUT_BITS))];
    if (e != 0u) {
        pos += e >> 8u;
        return int(e & 255u);
    }
    for (uint len = JD_H_LUT_BITS + 1u; len <= 16u; len++) {
        spent++;
        int code = int(bits >> (32u - len));
        if (code <= int(info[t + JD_H_MAXCODE + len])) {
            pos += len;
            uint k = uint(int(info[t + JD_H_VALOFF + len]) + code);
            return int(info[t + JD_H_VALS + min(k, 255u)]);
        }
    }
    return -1;
}

// The next s bits as JPEG's signed magnitude.
int receive(uint s, inout uint pos)
{
    if (s == 0u)
        return 0;
    int v = int(peek(pos) >> (32u - s));
    pos += s;
    return v < (1 << (s - 1u)) ? v - (1 << s) + 1 : v;
}

void main()
{
    uint g = jd_index();
    if (g >= pc.count)
        return;
    uint first = segs[g * JD_SEG_WORDS + 2u], scan = segs[g * JD_SEG_WORDS + 3u];
    uint pos = segs[g * JD_SEG_WORDS] * 8u, end = segs[g * JD_SEG_WORDS + 1u] * 8u;
    uint sc = JD_SCAN + scan * JD_SCAN_WORDS;
    uint ns = info[sc + JD_S_NCOMP], mcus_x = info[sc + JD_S_MCUS_X];
    uint mcus = info[sc + JD_S_MCUS], restart = info[sc + JD_S_RESTART];
    uint last = restart == 0u ? mcus : min(mcus, first + restart);
    int dc[3] = int[3](0, 0, 0);
    bool bad = false;
    for (uint m = first; m < last && !bad; m++) {
        for (uint k = 0u; k < ns && !bad; k++) {
            spent += 2u;
            uint ce = JD_COMP + info[sc + JD_S_SLOT + k] * JD_COMP_WORDS;
            // A scan of one component codes its blocks one by one, in the rows it has.
            uint h = ns == 1u ? 1u : info[ce + JD_C_H], v = ns == 1u ? 1u : info[ce + JD_C_V];
            uint bx0 = (m % mcus_x) * h, by0 = (m / mcus_x) * v;
            uint dct = JD_HUFF + (scan * 6u + 2u * k) * JD_HUFF_WORDS, act = dct + JD_HUFF_WORDS;
            for (uint b = 0u; b < h * v && !bad; b++) {
                spent++;
                int blk[64];
                [[unroll]] for (uint i = 0u; i < 64u; i++)
                    blk[i] = 0;
                int s = next_symbol(dct, pos);
                bad = s < 0;
                dc[k] += receive(uint(max(s, 0)), pos);
                // libjpeg-turbo keeps coefficients in 16 bits.
                bad = bad || abs(dc[k]) > 32767;
                blk[0] = dc[k];
                for (uint i = 1u; i < 64u && !bad; i++) {
                    spent++;
                    int rs = next_symbol(act, pos);
                    uint r = uint(rs) >> 4u, z = uint(rs) & 15u;
                    bad = rs < 0;
                    if (bad)
                        break;
                    if (z != 0u) {
                        i += r;
                        // libjpeg-turbo would put it at 63 without a word: its to judge.
                        bad = i > 63u;
                        if (!bad)
                            blk[jd_natural[i]] = receive(z, pos);
                    } else if (r == 15u) {
                        i += 15u;
                    } else {
                        break;
                    }
                }
                // Past the segment's end libjpeg-turbo reads zeros and warns.
                bad = bad || pos > end || spent > BUDGET;
                uint at = (info[ce + JD_C_BASE] + (by0 + b / h) * info[ce + JD_C_STRIDE] + bx0 +
                           b % h) * 64u;
                [[unroll]] for (uint i = 0u; i < 64u; i++)
                    coefs[at + i] = blk[i];
            }
        }
    }
    // Whole bytes left over are data libjpeg-turbo would skip with a warning, or a stream this
    // decoder has read differently: libjpeg-turbo judges either.
    if (bad || end - pos >= 8u)
        atomicOr(status, JD_BAD_STREAM);
}
