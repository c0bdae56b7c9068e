#version 460
// The decoded image's bytes from the components' sample planes: each chroma plane upsampled
// as libjpeg-turbo's decompressor does with fancy upsampling (triangle filters for 2:1
// horizontally, vertically or both, the nearest sample for other whole factors and for planes
// of 2 samples or fewer across), then YCbCr to RGB with its 16-bit fixed-point factors; gray
// passes through. One invocation per 4 pixels (3 words of RGB, 1 of gray), 64x1 work groups,
// no shared memory. Seed technique: libjpeg's separable upsampling, evaluated per output.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#define JPEGDEC
#include "jpegdec.h"

layout(binding = 0) readonly buffer Info { uint info[]; };
layout(binding = 1) readonly buffer Planes { uint planes[]; };
layout(binding = 2) writeonly buffer Dst { uint dst[]; };

int plane_at(uint ce, uint x, uint y)
{
    uint o = y * info[ce + JD_C_STRIDE] * 8u + x;
    return int((planes[info[ce + JD_C_PLANE] + (o >> 2u)] >> ((o & 3u) * 8u)) & 255u);
}

// Component c's sample at output pixel (x, y).
int upsampled(uint c, uint x, uint y)
{
    uint ce = JD_COMP + c * JD_COMP_WORDS;
    uint rh = info[JD_MAX_H] / info[ce + JD_C_H], rv = info[JD_MAX_V] / info[ce + JD_C_V];
    uint dw = info[ce + JD_C_DW], dh = info[ce + JD_C_DH];
    uint i = x >> 1u, j = y >> 1u;
    if (rh == 2u && rv == 1u && dw > 2u) {
        int here = 3 * plane_at(ce, i, y);
        if ((x & 1u) == 0u)
            return i == 0u ? here / 3 : (here + plane_at(ce, i - 1u, y) + 1) >> 2;
        return i == dw - 1u ? here / 3 : (here + plane_at(ce, i + 1u, y) + 2) >> 2;
    }
    // The row nearest after the sample's own: above for the upper output row, below for the
    // lower, the edge rows standing in for those outside.
    uint near = (y & 1u) == 0u ? max(j, 1u) - 1u : min(j + 1u, dh - 1u);
    if (rh == 1u && rv == 2u)
        return (3 * plane_at(ce, x, j) + plane_at(ce, x, near) + ((y & 1u) == 0u ? 1 : 2)) >> 2;
    if (rh == 2u && rv == 2u && dw > 2u) {
        int here = 3 * plane_at(ce, i, j) + plane_at(ce, i, near);
        if ((x & 1u) == 0u) {
            if (i == 0u)
                return (here * 4 + 8) >> 4;
            return (here * 3 + 3 * plane_at(ce, i - 1u, j) + plane_at(ce, i - 1u, near) + 8) >> 4;
        }
        if (i == dw - 1u)
            return (here * 4 + 7) >> 4;
        return (here * 3 + 3 * plane_at(ce, i + 1u, j) + plane_at(ce, i + 1u, near) + 7) >> 4;
    }
    return plane_at(ce, x / rh, y / rv);
}

// The RGB of one pixel, libjpeg's factors: 1.402, 0.34414, 0.71414 and 1.772 in 16 bits.
uvec3 rgb(uint x, uint y)
{
    int l = upsampled(0u, x, y), cb = upsampled(1u, x, y) - 128, cr = upsampled(2u, x, y) - 128;
    int r = l + ((91881 * cr + 32768) >> 16);
    int g = l + ((-22554 * cb - 46802 * cr + 32768) >> 16);
    int b = l + ((116130 * cb + 32768) >> 16);
    return uvec3(clamp(ivec3(r, g, b), 0, 255));
}

void main()
{
    uint q = jd_index();
    if (q >= pc.count)
        return;
    uint width = info[JD_WIDTH], pixels = width * info[JD_HEIGHT];
    if (info[JD_NCOMP] == 1u) {
        uint w = 0u;
        for (uint k = 0u; k < 4u; k++) {
            uint p = 4u * q + k;
            if (p < pixels)
                w |= uint(plane_at(JD_COMP, p % width, p / width)) << (8u * k);
        }
        dst[q] = w;
        return;
    }
    uint w[3] = uint[3](0u, 0u, 0u);
    for (uint k = 0u; k < 4u; k++) {
        uint p = 4u * q + k;
        if (p >= pixels)
            break;
        uvec3 v = rgb(p % width, p / width);
        for (uint ch = 0u; ch < 3u; ch++) {
            uint byte = 3u * k + ch;
            w[byte >> 2u] |= v[ch] << (8u * (byte & 3u));
        }
    }
    for (uint i = 0u; i < 3u; i++)
        dst[3u * q + i] = w[i];
}
