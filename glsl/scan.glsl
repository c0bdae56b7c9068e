// Prefix sums of 64-bit integer RGBA (i64vec4) shared by the summed-area
// table kernels. Subgroup arithmetic is used on 32-bit pieces only, so no
// 64-bit subgroup operations (shaderSubgroupExtendedTypes) are needed:
// a sum of pieces, each small enough not to overflow over one subgroup of
// at most 128 lanes, rebuilt into 64 bits, is the 64-bit sum.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

#ifdef VKFX_SUBGROUP
// Inclusive scan over the subgroup of values with |v| < 2^48: the low 24
// bits (sum < 2^31) and the arithmetic high part (|sum| < 2^31) separately.
i64vec4 subgroup_scan_small(i64vec4 v)
{
    uvec4 lo = uvec4(v & int64_t(0xffffff));
    ivec4 hi = ivec4(v >> 24);
    return (i64vec4(subgroupInclusiveAdd(hi)) << 24) + i64vec4(subgroupInclusiveAdd(lo));
}

// Inclusive scan of any values modulo 2^64 (summed-area tables wrap; box
// sums taken from them are still exact): three pieces of 24, 24 and 16
// bits, the top one allowed to wrap.
i64vec4 subgroup_scan_wrap(i64vec4 v)
{
    uvec4 a = uvec4(v & int64_t(0xffffff));
    uvec4 b = uvec4((v >> 24) & int64_t(0xffffff));
    uvec4 c = uvec4(v >> 48);
    return i64vec4(subgroupInclusiveAdd(a)) + (i64vec4(subgroupInclusiveAdd(b)) << 24) +
           (i64vec4(u64vec4(subgroupInclusiveAdd(c))) << 48);
}
#endif
