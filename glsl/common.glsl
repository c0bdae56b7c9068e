// Shared by every kernel: the binding convention (binding 0 the input,
// binding 1 the output), the work-group and subgroup size as
// specialization constants 0-3, clamp-to-edge loads and the colour maths
// of FILTERS.md "Pixels".

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const uint SUBGROUP_SIZE = 32;
// Set when the image a kernel writes is rgba16f.
layout(constant_id = 15) const bool HALF_OUT = false;

// The nearest IEEE half of each component (ties to even), as a float.
vec4 round_half(vec4 v)
{
    uvec4 b = floatBitsToUint(v);
    vec4 normal = uintBitsToFloat((b + 0x0fffu + ((b >> 13) & 1u)) & ~0x1fffu);
    // Below 2^-14: steps of 2^-24, scaled back by a product with 2^-24 (exact, where a division
    // may not be).
    vec4 subnormal = roundEven(v * 16777216.0) * 5.9604644775390625e-08;
    return mix(normal, subnormal, lessThan(abs(v), vec4(6.103515625e-05)));
}

// Devices may round float-to-half image stores either way (lavapipe
// truncates); rounding to the nearest half here first makes the stored
// value exact, so rgba16f results are the same on every device.
vec4 to_stored(vec4 v)
{
    return HALF_OUT ? round_half(v) : v;
}

// Set for kernels that ask for it where packHalf2x16 gives the nearest half,
// ties to even (checked on the device before the first such kernel:
// core/gpu/halfprobe.c): the conversion then does round_half's work in one
// instruction.
layout(constant_id = 14) const bool PACK_RNE = false;

// 0, from an image side in a push constant, which the compiler cannot know
// (image sides stay far below 2^30): the zero nearest_half needs.
uint opaque_zero_of(int side)
{
    return uint(side) >> 30;
}

// round_half(v), through packHalf2x16 where PACK_RNE. zero must be 0 and
// come from something the compiler cannot see through, such as a push
// constant (opaque_zero_of): the NVIDIA driver folds unpackHalf2x16(packHalf2x16(v)) to v,
// leaving the rounding to the image store, and the outputs of the H100 then
// differed from round_half's.
vec4 nearest_half(vec4 v, uint zero)
{
    if (!PACK_RNE)
        return round_half(v);
    uvec2 p = uvec2(packHalf2x16(v.xy), packHalf2x16(v.zw)) ^ uvec2(zero);
    return vec4(unpackHalf2x16(p.x), unpackHalf2x16(p.y));
}

// to_stored(v), through packHalf2x16 where PACK_RNE (zero as for nearest_half).
vec4 to_stored_by(vec4 v, uint zero)
{
    return HALF_OUT ? nearest_half(v, zero) : v;
}

// The nearest pixel repeats beyond the edges.
vec4 load_clamped(sampler2D s, ivec2 p, ivec2 size)
{
    return texelFetch(s, clamp(p, ivec2(0), size - 1), 0);
}

// acc + w v with the same bits on every device for kernels whose inputs are stored like their
// output, with weights of 13 significant bits (vkfx_exact_weight): at rgba16f (HALF_OUT) the
// product of a half and such a weight is exact, so a device fusing it into the sum rounds as
// one that does not; at rgba32f the product and the sum are each rounded on their own
// (NoContraction).
vec4 mad_rounded(vec4 acc, float w, vec4 v)
{
    if (HALF_OUT)
        return acc + w * v;
    precise vec4 p = w * v;
    precise vec4 s = acc + p;
    return s;
}

// FILTERS.md's luminance, each product rounded on its own and the sums taken R, G, then B
// (NoContraction; dot leaves the order and the fusing open): the same bits on every device.
float luminance(vec3 rgb)
{
    precise float y = (0.2126 * rgb.r + 0.7152 * rgb.g) + 0.0722 * rgb.b;
    return y;
}

// luminance with the coefficients rounded to 13 significant bits (they still sum to 1), the
// sums in this order (dot leaves the order open): the same bits everywhere. Each product with
// a half is exact in float, so at rgba16f a device may fuse it into its sum; at rgba32f each
// product and sum is rounded on its own (mad_rounded).
float luminance_exact(vec3 rgb)
{
    const vec4 y = mad_rounded(mad_rounded(vec4(0.21258544921875 * rgb.r), 0.7152099609375,
                                           vec4(rgb.g)),
                               0.07220458984375, vec4(rgb.b));
    return y.x;
}

float srgb_encode(float v)
{
    return v <= 0.0031308 ? 12.92 * v : 1.055 * pow(v, 1.0 / 2.4) - 0.055;
}
