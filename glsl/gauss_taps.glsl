// The Gaussian's taps, written once for its kernels: the same bits on every device unless the
// filter runs --fast (README, "Determinism").
#ifndef VKFX_GAUSS_TAPS
#define VKFX_GAUSS_TAPS
#include "portable.glsl"

// How the taps are rounded (GAUSS_ROUNDED, GAUSS_EXACT or GAUSS_FAST, gauss.h), from the host.
// Exact: the kernel's inputs are halves (an rgba16f chain) and its weights have 13 significant
// bits (vkfx_exact_weight), so each product of a weight and an input is exact in float and a
// device fusing the multiply into the add rounds the sum as one that does not: the
// multiply-adds may fuse. Rounded: each product and each sum rounded on its own (NoContraction),
// a second instruction per tap on devices that fuse. Fast (--fast): the weights as they come,
// from the device's exp beyond the push constants', fused as the device likes.
layout(constant_id = GAUSS_SPEC_MODE) const int MODE = GAUSS_ROUNDED;

// w rounded to 13 significant bits, ties to even, as vkfx_exact_weight rounds on the host
// (w positive and normal).
float gauss_exact_weight(float w)
{
    const uint b = floatBitsToUint(w);
    return uintBitsToFloat((b + 0x3ffu + ((b >> 11) & 1u)) & ~0x7ffu);
}

// The weight of the taps k pixels from the centre: the host's (gauss.h's w) below radius
// GAUSS_PUSH_TAPS, so that every variant takes the same; else exp(-k^2/(2 sigma^2)) * norm,
// from the push constants, through portable_exp unless fast: the device's exp differs between
// devices. Weights below 2^-100 are 0, as on the host, so that none is subnormal.
float gauss_weight(int k)
{
    if (pc.radius < GAUSS_PUSH_TAPS)
        return pc.w[min(k, GAUSS_PUSH_TAPS - 1)];
    if (MODE == GAUSS_FAST)
        return exp(-float(k * k) * pc.inv_two_sigma2) * pc.norm;
    precise float x = float(k * k) * pc.inv_two_sigma2;
    if (x > 80.0)
        return 0.0;
    precise float w = portable_exp(-x) * pc.norm;
    if (w < uintBitsToFloat(0x0d800000u))
        return 0.0;
    return MODE == GAUSS_EXACT ? gauss_exact_weight(w) : w;
}
#define GAUSS_WEIGHT(k) gauss_weight(k)

// acc += w v, rounded as MODE says.
void gauss_mad(inout vec4 acc, float w, vec4 v)
{
    if (MODE != GAUSS_ROUNDED) {
        acc += w * v;
    } else {
        precise vec4 p = w * v;
        precise vec4 s = acc + p;
        acc = s;
    }
}

// The multiply-adds in the kernels that keep a run of outputs per invocation
// (gauss_row, gauss_col, gauss_fused, gauss_v): the n outputs acc[0..n-1] start at 0
// (GAUSS_TAPS_ZERO), and input i of the n + 2R that reach them (INPUT, an expression of i)
// feeds output j with the weight w[|i - R - j|] (GAUSS_TAPS_ADD), so that each input is read
// once (register blocking); each output adds its taps from left to right (top to bottom).
// ATTR: [[unroll]] where R and n are constants, GAUSS_TAPS_NO_ATTR where they are not
// (gauss_v: the radius is a push constant). GAUSS_TAPS: both, unrolled.
#define GAUSS_TAPS_ZERO(ATTR, acc, n) \
    ATTR for (int j = 0; j < n; j++) \
        acc[j] = vec4(0.0);
#define GAUSS_TAPS_ADD(ATTR, acc, n, w, INPUT) \
    ATTR for (int i = 0; i < n + 2 * R; i++) { \
        vec4 v = INPUT; \
        ATTR for (int j = 0; j < n; j++) { \
            int d = abs(i - R - j); \
            if (d <= R) \
                gauss_mad(acc[j], w[d], v); \
        } \
    }
#define GAUSS_TAPS_NO_ATTR
#define GAUSS_TAPS(acc, n, w, INPUT) \
    GAUSS_TAPS_ZERO([[unroll]], acc, n) GAUSS_TAPS_ADD([[unroll]], acc, n, w, INPUT)

// The kernels reading through the texture cache (gauss_h, gauss_v without a shared tile): the
// output acc is the 2R + 1 inputs k = -R..R from its own (INPUT, an expression of k) by their
// weights, computed as they are needed, added in the order of GAUSS_TAPS_ADD, so that an output
// has the same bits whether the device's shared memory holds its window or not.
#define GAUSS_TAPS_DIRECT(acc, INPUT) \
    vec4 acc = vec4(0.0); \
    for (int k = -R; k <= R; k++) \
        gauss_mad(acc, GAUSS_WEIGHT(abs(k)), INPUT);
#endif
