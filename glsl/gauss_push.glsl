#include "gauss_taps.glsl"

// The weights of the Gaussian kernels with the radius unrolled (gauss_row,
// gauss_col, gauss_fused, gauss_mma) from their push constants (gauss.h).
// For radii below PUSH_TAPS the host sends the weights too (W_PUSH): the
// multiply-adds can then read them where the device keeps push constants
// instead of holding them in registers; larger radii compute them here.
layout(constant_id = GAUSS_SPEC_W_PUSH) const bool W_PUSH = false;
const int PUSH_TAPS = GAUSS_PUSH_TAPS;

// 0, which the compiler cannot know: see nearest_half in common.glsl.
uint opaque_zero()
{
    return opaque_zero_of(pc.size.x);
}

// The weight of the taps k pixels from the centre.
float gauss_tap(int k)
{
    return W_PUSH ? pc.w[min(k, PUSH_TAPS - 1)]
                  : GAUSS_WEIGHT(k);
}
