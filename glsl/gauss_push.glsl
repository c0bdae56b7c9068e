// The push constants of the Gaussian kernels with the radius unrolled
// (gauss_row, gauss_col, gauss_fused, gauss_mma), 128 bytes (core/filters/gauss.c).
// For radii below PUSH_TAPS the host sends the weights too (W_PUSH): the
// multiply-adds can then read them where the device keeps push constants
// instead of holding them in registers; larger radii compute them here.
layout(constant_id = 8) const bool W_PUSH = false;
const int PUSH_TAPS = 27;

layout(push_constant) uniform Push {
    ivec2 size;
    int radius; // equals R
    float inv_two_sigma2;
    float norm;
    float w[PUSH_TAPS]; // the weights w_0..w_R when W_PUSH
} pc;

// 0, which the compiler cannot know: see nearest_half in common.glsl.
uint opaque_zero()
{
    return opaque_zero_of(pc.size.x);
}

// The weight of the taps k pixels from the centre.
float gauss_tap(int k)
{
    return W_PUSH ? pc.w[min(k, PUSH_TAPS - 1)]
                  : exp(-float(k * k) * pc.inv_two_sigma2) * pc.norm;
}
