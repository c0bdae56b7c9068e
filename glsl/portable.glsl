// Reciprocals, square roots, logarithms, exponentials and tiny values with the same bits on
// every device (README, "Usage"): Vulkan lets a device's division, sqrt, log and exp be a few
// units in the last place off, each its own way, and lets it flush subnormal results and
// operands to zero or keep them. These use only products, sums and bit operations, each rounded
// on its own (NoContraction), which every device rounds alike.
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

// sqrt(s) for s zero or a positive normal float, the same bits on every device (Vulkan lets a
// device's sqrt be a few units in the last place off, each its own way): 1/sqrt(s) guessed from
// the bits (within 3.5%), two Newton steps y *= 1.5 - (s/2) y y, then one step for the root
// itself, r += (y/2) (s - r r), each operation rounded on its own. The nearest float to sqrt(s)
// or one beside it (0.85 units in the last place at worst, over every significand on the host).
float portable_sqrt(float s)
{
    precise float h = 0.5 * s;
    precise float y = uintBitsToFloat(0x5f3759dfu - (floatBitsToUint(s) >> 1));
    for (int step = 0; step < 2; step++) {
        precise float t = h * y * y;
        y = y * (1.5 - t);
    }
    precise float r = s * y;
    precise float rest = s - r * r;
    r = r + (0.5 * y) * rest;
    return s > 0.0 ? r : 0.0;
}

vec3 portable_sqrt(vec3 s)
{
    return vec3(portable_sqrt(s.x), portable_sqrt(s.y), portable_sqrt(s.z));
}

// log(m) of a positive normal x = m 2^e, m in [sqrt(1/2), sqrt(2)), and e, the same bits on
// every device (Vulkan lets log be a few units off): log(m) = 2 atanh(s), s = (m - 1)/(m + 1),
// 1/(m + 1) from the line nearest it over that range (within 1.5%) and two Newton steps, the
// series to s^9; each operation rounded on its own. Within 8.4e-8 of log(m) (on the host).
float portable_log_mantissa(float x, out int e)
{
    const uint b = floatBitsToUint(x);
    e = int(b - 0x3f3504f3u) >> 23;
    const float m = uintBitsToFloat(b - (uint(e) << 23));
    precise float f = m - 1.0;
    precise float d = 2.0 + f;
    precise float r = 0.98506150 - 0.23901600 * d;
    for (int step = 0; step < 2; step++) {
        precise float rest = 1.0 - d * r;
        r = r + r * rest;
    }
    precise float s = f * r;
    precise float z = s * s;
    precise float p = ((0.22222222 * z + 0.28571429) * z + 0.4) * z + 0.66666669;
    precise float log_m = 2.0 * s + s * (p * z);
    return log_m;
}

// e ln 2 (ln 2 in two parts) added to log(m), or to a sum of them with e the sum of their
// exponents: log(x) from portable_log_mantissa's parts, within 3.44 units in the last place
// where |log x| > 0.001 (on the host).
float portable_log_join(float log_m, int e)
{
    precise float y = float(e) * 0.693145751953125 + (log_m + float(e) * 1.428606765330187e-06);
    return y;
}

// exp(x) for |x| below 80, the same bits on every device: x = n ln 2 + r (ln 2 in two parts),
// exp(r) by its series to r^9 (Horner), times 2^n from the bits; each operation rounded on its
// own. Within 1.15 units in the last place (on the host).
float portable_exp(float x)
{
    precise float n = roundEven(x * 1.44269502);
    precise float r = (x - n * 0.693145751953125) - n * 1.428606765330187e-06;
    precise float p = 2.7557319e-06;
    p = p * r + 2.4801587e-05;
    p = p * r + 1.9841270e-04;
    p = p * r + 1.3888889e-03;
    p = p * r + 8.3333338e-03;
    p = p * r + 4.1666668e-02;
    p = p * r + 1.6666667e-01;
    p = p * r + 0.5;
    p = p * r + 1.0;
    p = p * r + 1.0;
    precise float y = p * uintBitsToFloat(uint(int(n) + 127) << 23);
    return y;
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
