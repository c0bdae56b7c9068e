// Reciprocals and tiny values with the same bits on every device (README, "Usage"): Vulkan lets
// a device's division be a few units in the last place off, and lets it flush subnormal results
// and operands to zero or keep them.
#ifndef VKFX_PORTABLE_GLSL
#define VKFX_PORTABLE_GLSL

// 1/x for a positive normal x whose reciprocal is normal, the same bits on every device
// (Vulkan lets a device's division be a few units in the last place off, each its own way):
// a first guess from x's bits, within 12%, then three Newton steps r += r (1 - x r), each
// operation rounded on its own (NoContraction). The result is the nearest float to 1/x or one
// beside it (1.13 units in the last place at worst, over every significand on the host);
// tests/test_filters.c repeats the steps on the host.
float portable_recip(float x)
{
    precise float r = uintBitsToFloat(0x7ef311c3u - floatBitsToUint(x));
    for (int step = 0; step < 3; step++) {
        precise float e = 1.0 - x * r;
        r = r + r * e;
    }
    return r;
}

// v with magnitudes below 2^-60 written as 0: for a kernel whose subnormals, which one device
// flushes to zero and another keeps, can only move values by far less than that (dof).
float flush_tiny(float v)
{
    return abs(v) < uintBitsToFloat(0x21800000u) ? 0.0 : v;
}

vec4 flush_tiny(vec4 v)
{
    return mix(v, vec4(0.0), lessThan(abs(v), vec4(uintBitsToFloat(0x21800000u))));
}
#endif
