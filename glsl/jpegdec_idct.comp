#version 460
// Dequantisation and inverse DCT of every block of every component into its 8-bit sample
// plane: libjpeg-turbo's accurate integer IDCT (JDCT_ISLOW: the Loeffler-Ligtenberg-Moschytz
// factorisation in 13-bit fixed point, two extra bits between the column and the row pass),
// the same products, sums and roundings. One invocation per block, 64x1 work groups, no
// shared memory. libjpeg-turbo's SIMD builds keep the dequantised inputs, some of their sums
// and the column pass's outputs in 16 bits and saturate where the C code wraps its range
// limit; a block that leaves the ranges where all builds agree is flagged for libjpeg-turbo
// to decode instead, so that the bytes match whichever build the host has.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#define JPEGDEC
#include "jpegdec.h"

layout(binding = 0) readonly buffer Info { uint info[]; };
// Two coefficients a word, the first in the low half (glsl/jpegdec_bits.glsl jd_pack).
layout(binding = 1) readonly buffer Coefs { uint coefs[]; };

int coef_at(uint n)
{
    uint w = coefs[n >> 1u];
    return (n & 1u) == 0u ? int(w << 16u) >> 16 : int(w) >> 16;
}
layout(binding = 2) writeonly buffer Planes { uint planes[]; };
layout(binding = 3) buffer Status { uint status; };

const int CONST_BITS = 13;
const int PASS1_BITS = 2;
// The factorisation's constants, each round(c * 2^13).
const int F0_298631336 = 2446;
const int F0_390180644 = 3196;
const int F0_541196100 = 4433;
const int F0_765366865 = 6270;
const int F0_899976223 = 7373;
const int F1_175875602 = 9633;
const int F1_501321110 = 12299;
const int F1_847759065 = 15137;
const int F1_961570560 = 16069;
const int F2_053119869 = 16819;
const int F2_562915447 = 20995;
const int F3_072711026 = 25172;
// Where the C and SIMD builds agree: inputs and intermediates that 16 bits hold with their
// pairwise sums, and outputs the C range limit does not wrap.
const int SAFE = 16383;

bool safe = true;

// One 8-point inverse DCT of in[0..7] (stride 1) into out[0..7], descaled by shift.
void idct8(int i0, int i1, int i2, int i3, int i4, int i5, int i6, int i7, int shift,
           out int o[8])
{
    int z2 = i2, z3 = i6;
    int z1 = (z2 + z3) * F0_541196100;
    int tmp2 = z1 + z3 * -F1_847759065;
    int tmp3 = z1 + z2 * F0_765366865;
    int tmp0 = (i0 + i4) << CONST_BITS;
    int tmp1 = (i0 - i4) << CONST_BITS;
    int tmp10 = tmp0 + tmp3, tmp13 = tmp0 - tmp3;
    int tmp11 = tmp1 + tmp2, tmp12 = tmp1 - tmp2;
    tmp0 = i7;
    tmp1 = i5;
    tmp2 = i3;
    tmp3 = i1;
    z1 = tmp0 + tmp3;
    z2 = tmp1 + tmp2;
    z3 = tmp0 + tmp2;
    int z4 = tmp1 + tmp3;
    int z5 = (z3 + z4) * F1_175875602;
    tmp0 *= F0_298631336;
    tmp1 *= F2_053119869;
    tmp2 *= F3_072711026;
    tmp3 *= F1_501321110;
    z1 *= -F0_899976223;
    z2 *= -F2_562915447;
    z3 *= -F1_961570560;
    z4 *= -F0_390180644;
    z3 += z5;
    z4 += z5;
    tmp0 += z1 + z3;
    tmp1 += z2 + z4;
    tmp2 += z2 + z3;
    tmp3 += z1 + z4;
    int round = 1 << (shift - 1);
    o[0] = (tmp10 + tmp3 + round) >> shift;
    o[7] = (tmp10 - tmp3 + round) >> shift;
    o[1] = (tmp11 + tmp2 + round) >> shift;
    o[6] = (tmp11 - tmp2 + round) >> shift;
    o[2] = (tmp12 + tmp1 + round) >> shift;
    o[5] = (tmp12 - tmp1 + round) >> shift;
    o[3] = (tmp13 + tmp0 + round) >> shift;
    o[4] = (tmp13 - tmp0 + round) >> shift;
}

void main()
{
    uint b = jd_index();
    if (b >= pc.count)
        return;
    uint c = 0u;
    while (c + 1u < info[JD_NCOMP] && b >= info[JD_COMP + (c + 1u) * JD_COMP_WORDS + JD_C_BASE])
        c++;
    uint ce = JD_COMP + c * JD_COMP_WORDS;
    uint local = b - info[ce + JD_C_BASE], stride = info[ce + JD_C_STRIDE];
    // Blocks past the component's samples pad MCUs: no scan need code them, no output reads
    // them, and libjpeg-turbo does not transform them either.
    if (local % stride >= (info[ce + JD_C_DW] + 7u) / 8u ||
        local / stride >= (info[ce + JD_C_DH] + 7u) / 8u)
        return;
    int ws[64];
    for (int col = 0; col < 8; col++) {
        int d[8];
        for (int r = 0; r < 8; r++) {
            d[r] = coef_at(b * 64u + uint(r * 8 + col)) *
                   int(info[JD_QUANT + c * 64u + uint(r * 8 + col)]);
            safe = safe && abs(d[r]) <= SAFE;
        }
        int o[8];
        idct8(d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7], CONST_BITS - PASS1_BITS, o);
        for (int r = 0; r < 8; r++) {
            ws[r * 8 + col] = o[r];
            safe = safe && abs(o[r]) <= SAFE;
        }
    }
    uint row0 = info[ce + JD_C_PLANE] + (local / stride) * 8u * stride * 2u + (local % stride) * 2u;
    for (int r = 0; r < 8; r++) {
        int o[8];
        idct8(ws[r * 8], ws[r * 8 + 1], ws[r * 8 + 2], ws[r * 8 + 3], ws[r * 8 + 4], ws[r * 8 + 5],
              ws[r * 8 + 6], ws[r * 8 + 7], CONST_BITS + PASS1_BITS + 3, o);
        uint w[2] = uint[2](0u, 0u);
        for (int x = 0; x < 8; x++) {
            safe = safe && o[x] >= -512 && o[x] <= 511;
            w[x >> 2] |= uint(clamp(o[x] + 128, 0, 255)) << (uint(x & 3) * 8u);
        }
        planes[row0 + uint(r) * stride * 2u] = w[0];
        planes[row0 + uint(r) * stride * 2u + 1u] = w[1];
    }
    if (!safe)
        atomicOr(status, JD_BAD_RANGE);
}
