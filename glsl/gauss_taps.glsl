// The Gaussian's taps, written once for its kernels. GAUSS_WEIGHT(k): the weight of the taps k
// pixels from the centre, from the push constants (gauss.h).
#ifndef VKFX_GAUSS_TAPS
#define VKFX_GAUSS_TAPS
#define GAUSS_WEIGHT(k) (exp(-float(k * k) * pc.inv_two_sigma2) * pc.norm)

// The multiply-adds in the kernels that keep a run of outputs per invocation
// (gauss_row, gauss_col, gauss_fused, gauss_v): the n outputs acc[0..n-1] start at 0
// (GAUSS_TAPS_ZERO), and input i of the n + 2R that reach them (INPUT, an expression of i)
// feeds output j with the weight w[|i - R - j|] (GAUSS_TAPS_ADD), so that each input is read
// once (register blocking). ATTR: [[unroll]] where R and n are constants, GAUSS_TAPS_NO_ATTR
// where they are not (gauss_v: the radius is a push constant). GAUSS_TAPS: both, unrolled.
#define GAUSS_TAPS_ZERO(ATTR, acc, n) \
    ATTR for (int j = 0; j < n; j++) \
        acc[j] = vec4(0.0);
#define GAUSS_TAPS_ADD(ATTR, acc, n, w, INPUT) \
    ATTR for (int i = 0; i < n + 2 * R; i++) { \
        vec4 v = INPUT; \
        ATTR for (int j = 0; j < n; j++) { \
            int d = abs(i - R - j); \
            if (d <= R) \
                acc[j] += w[d] * v; \
        } \
    }
#define GAUSS_TAPS_NO_ATTR
#define GAUSS_TAPS(acc, n, w, INPUT) \
    GAUSS_TAPS_ZERO([[unroll]], acc, n) GAUSS_TAPS_ADD([[unroll]], acc, n, w, INPUT)

// The kernels reading through the texture cache (gauss_h, gauss_v without a shared tile): the
// output acc is its input CENTRE and the R pairs of inputs k either side (BEFORE and AFTER,
// expressions of k) by their weights, computed as they are needed.
#define GAUSS_TAPS_DIRECT(acc, CENTRE, BEFORE, AFTER) \
    vec4 acc = CENTRE * pc.norm; \
    for (int k = 1; k <= R; k++) { \
        float w = GAUSS_WEIGHT(k); \
        acc += w * (BEFORE + AFTER); \
    }
#endif
