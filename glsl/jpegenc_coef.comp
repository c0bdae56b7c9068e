#version 460
// The quantised DCT coefficients of one 8x8 block of one component: the 8-bit codes of the
// chain's output to YCbCr with libjpeg's integer weights, chroma downsampled as libjpeg-turbo
// does (the rounding bias alternating along the row, the image's last column and row repeated
// to whole blocks), the accurate integer forward DCT (libjpeg's JDCT_ISLOW) and libjpeg-turbo's
// quantiser (a multiply by the divisor's reciprocal and a shift, which its SIMD and C code
// agree on). Integers only: every device gives the same coefficients. One invocation per block
// of every component plane (dummy blocks past the image are left alone: the coder makes them),
// work groups of 64 over a 2D grid.
#extension GL_GOOGLE_include_directive : require
#include "jpegenc.glsl"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(binding = 0) readonly buffer Codes { uint codes[]; };
layout(binding = 1) readonly buffer Tables { uint tables[]; };
layout(binding = 2) writeonly buffer Coefs { uint coefs[]; };

int code_at(uvec2 p, uint ch)
{
    uint e = (p.y * uint(pc.size.x) + p.x) * pc.channels + ch;
    return int((codes[e >> 2] >> (8u * (e & 3u))) & 0xFFu);
}

// Component c of the pixel at p (inside the image), libjpeg's RGB to YCbCr in 16-bit fixed point:
// Y rounds to nearest, Cb and Cr carry 128 and a bias just under a half.
int colour(uint c, uvec2 p)
{
    if (pc.channels == 1u)
        return code_at(p, 0u);
    int r = code_at(p, 0u), g = code_at(p, 1u), b = code_at(p, 2u);
    if (c == 0u)
        return (19595 * r + 38470 * g + 7471 * b + 32768) >> 16;
    if (c == 1u)
        return (-11059 * r - 21709 * g + 32768 * b + (128 << 16) + 32767) >> 16;
    return (32768 * r - 27439 * g - 5329 * b + (128 << 16) + 32767) >> 16;
}

// The component's sample at q: columns past the image repeat its last one before any
// averaging; rows past it repeat the last row of the component as downsampled.
int sample_at(uint c, uvec2 q)
{
    uvec2 last = uvec2(pc.size) - 1u;
    if (c == 0u || pc.hmax == 1u)
        return colour(c, min(q, last));
    uint x0 = min(2u * q.x, last.x), x1 = min(2u * q.x + 1u, last.x);
    if (pc.vmax == 1u) {
        uint y = min(q.y, last.y);
        return (colour(c, uvec2(x0, y)) + colour(c, uvec2(x1, y)) + int(q.x & 1u)) >> 1;
    }
    uint yc = min(q.y, last.y / 2u);
    uint y0 = 2u * yc, y1 = min(2u * yc + 1u, last.y);
    int sum = colour(c, uvec2(x0, y0)) + colour(c, uvec2(x1, y0)) + colour(c, uvec2(x0, y1)) +
              colour(c, uvec2(x1, y1));
    return (sum + 1 + int(q.x & 1u)) >> 2;
}

// libjpeg's fixed-point constants (13 fractional bits) of the LL&M DCT's rotations.
const int F0_298 = 2446, F0_390 = 3196, F0_541 = 4433, F0_765 = 6270, F0_899 = 7373,
          F1_175 = 9633, F1_501 = 12299, F1_847 = 15137, F1_961 = 16069, F2_053 = 16819,
          F2_562 = 20995, F3_072 = 25172;

int data[64];

int descale(int x, int n) { return (x + (1 << (n - 1))) >> n; }

// One 8-point pass over data[at], data[at + step], ...: the even part scaled up by even_shift
// (a left shift; negative: a rounding right shift), the odd part rounded off by odd_shift.
void dct8(uint at, uint step, int even_shift, int odd_shift)
{
    int d[8];
    for (uint i = 0u; i < 8u; i++)
        d[i] = data[at + i * step];
    int tmp0 = d[0] + d[7], tmp7 = d[0] - d[7];
    int tmp1 = d[1] + d[6], tmp6 = d[1] - d[6];
    int tmp2 = d[2] + d[5], tmp5 = d[2] - d[5];
    int tmp3 = d[3] + d[4], tmp4 = d[3] - d[4];
    int tmp10 = tmp0 + tmp3, tmp13 = tmp0 - tmp3;
    int tmp11 = tmp1 + tmp2, tmp12 = tmp1 - tmp2;
    if (even_shift >= 0) {
        data[at] = (tmp10 + tmp11) << even_shift;
        data[at + 4u * step] = (tmp10 - tmp11) << even_shift;
    } else {
        data[at] = descale(tmp10 + tmp11, -even_shift);
        data[at + 4u * step] = descale(tmp10 - tmp11, -even_shift);
    }
    int z1 = (tmp12 + tmp13) * F0_541;
    data[at + 2u * step] = descale(z1 + tmp13 * F0_765, odd_shift);
    data[at + 6u * step] = descale(z1 - tmp12 * F1_847, odd_shift);
    z1 = tmp4 + tmp7;
    int z2 = tmp5 + tmp6, z3 = tmp4 + tmp6, z4 = tmp5 + tmp7;
    int z5 = (z3 + z4) * F1_175;
    tmp4 *= F0_298;
    tmp5 *= F2_053;
    tmp6 *= F3_072;
    tmp7 *= F1_501;
    z1 *= -F0_899;
    z2 *= -F2_562;
    z3 = z3 * -F1_961 + z5;
    z4 = z4 * -F0_390 + z5;
    data[at + 7u * step] = descale(tmp4 + z1 + z3, odd_shift);
    data[at + 5u * step] = descale(tmp5 + z2 + z4, odd_shift);
    data[at + 3u * step] = descale(tmp6 + z2 + z3, odd_shift);
    data[at + 1u * step] = descale(tmp7 + z1 + z4, odd_shift);
}

void main()
{
    uint g = gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x + gl_GlobalInvocationID.x;
    if (g >= pc.nblocks)
        return;
    uint c = pc.channels == 1u ? 0u : g < plane_base(1u) ? 0u : g < plane_base(2u) ? 1u : 2u;
    uint in_plane = g - plane_base(c), row = pc.mcus_x * comp_h(c);
    uvec2 b = uvec2(in_plane % row, in_plane / row);
    uvec2 real = comp_blocks(c);
    if (b.x >= real.x || b.y >= real.y)
        return;
    for (uint i = 0u; i < 64u; i++)
        data[i] = sample_at(c, b * 8u + uvec2(i % 8u, i / 8u)) - 128;
    // Rows keep two extra bits (libjpeg's PASS1_BITS); columns take them off and leave the
    // coefficients 8 times the true DCT's, which the divisors account for.
    for (uint y = 0u; y < 8u; y++)
        dct8(y * 8u, 1u, 2, 13 - 2);
    for (uint x = 0u; x < 8u; x++)
        dct8(x, 8u, -2, 13 + 2);
    uint t = c == 0u ? 0u : 1u;
    for (uint k = 0u; k < 64u; k += 2u) {
        uint w = 0u;
        for (uint j = 0u; j < 2u; j++) {
            int x = data[k + j];
            uint q = (t * 64u + k + j) * 3u;
            uint a = uint(abs(x)) + tables[q + 1u];
            int v = int((a * tables[q]) >> tables[q + 2u]);
            w |= (uint(x < 0 ? -v : v) & 0xFFFFu) << (16u * j);
        }
        coefs[g * 32u + k / 2u] = w;
    }
}
