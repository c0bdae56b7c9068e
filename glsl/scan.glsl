// Prefix sums of 64-bit integer RGBA (i64vec4) shared by the summed-area
// table kernels. With VKFX_SUBGROUP64 the device adds 64-bit values across
// a subgroup; with VKFX_SUBGROUP alone subgroup arithmetic runs on 32-bit
// pieces, each small enough not to overflow over one subgroup of at most
// 128 lanes, rebuilt into 64 bits (the same sums).
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

// Conversions between 64-bit and 32-bit integer vectors, one component at a
// time through packUint2x32/unpackUint2x32: with whole-vector i64vec4 <->
// uvec4 conversions an H100 (driver 580.159.04) returned tables whose
// channels held other channels' halves, on the subgroup and the shared-
// memory path alike; per-component conversions give exact tables there.
uvec4 low32(i64vec4 v)
{
    return uvec4(unpackUint2x32(uint64_t(v.x)).x, unpackUint2x32(uint64_t(v.y)).x,
                 unpackUint2x32(uint64_t(v.z)).x, unpackUint2x32(uint64_t(v.w)).x);
}

uvec4 high32(i64vec4 v)
{
    return uvec4(unpackUint2x32(uint64_t(v.x)).y, unpackUint2x32(uint64_t(v.y)).y,
                 unpackUint2x32(uint64_t(v.z)).y, unpackUint2x32(uint64_t(v.w)).y);
}

i64vec4 join32(uvec4 lo, uvec4 hi)
{
    return i64vec4(int64_t(packUint2x32(uvec2(lo.x, hi.x))), int64_t(packUint2x32(uvec2(lo.y, hi.y))),
                   int64_t(packUint2x32(uvec2(lo.z, hi.z))), int64_t(packUint2x32(uvec2(lo.w, hi.w))));
}

// Sign-extends (int) or zero-extends (uint) each component to 64 bits.
i64vec4 widen(ivec4 v)
{
    return join32(uvec4(v), uvec4(lessThan(v, ivec4(0))) * 0xffffffffu);
}

i64vec4 widen(uvec4 v)
{
    return join32(v, uvec4(0u));
}

#if defined(VKFX_SUBGROUP64)
#extension GL_EXT_shader_subgroup_extended_types_int64 : require
// The device adds 64-bit integers across a subgroup itself
// (shaderSubgroupExtendedTypes).
i64vec4 subgroup_scan_small(i64vec4 v)
{
    return subgroupInclusiveAdd(v);
}
#elif defined(VKFX_SUBGROUP)
// Inclusive scan over the subgroup of values with |v| < 2^48: the low 24
// bits (sum < 2^31) and the arithmetic high part (|sum| < 2^31) separately.
i64vec4 subgroup_scan_small(i64vec4 v)
{
    uvec4 lo = low32(v) & 0xffffffu;
    ivec4 hi = ivec4(low32(v >> 24));
    return (widen(subgroupInclusiveAdd(hi)) << 24) + widen(subgroupInclusiveAdd(lo));
}
#endif
