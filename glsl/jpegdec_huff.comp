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
layout(binding = 3) writeonly buffer Coefs { uint coefs[]; };
layout(binding = 4) buffer Status { uint status; };
layout(constant_id = JD_SPEC_BUDGET) const uint BUDGET = 0xffffffffu;

#include "jpegdec_bits.glsl"

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
                [[unroll]] for (uint i = 0u; i < 32u; i++)
                    coefs[at / 2u + i] = jd_pack(blk[2u * i], blk[2u * i + 1u]);
            }
        }
    }
    // Whole bytes left over are data libjpeg-turbo would skip with a warning, or a stream this
    // decoder has read differently: libjpeg-turbo judges either.
    if (bad || end - pos >= 8u)
        atomicOr(status, JD_BAD_STREAM);
}
