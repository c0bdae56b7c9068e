// Morton (Z-order) mapping: the index whose even bits are x and whose odd
// bits are y. Walking a work group's invocations along this curve keeps
// each run of 4, 16, 64 ... invocations on a square block of pixels, so a
// subgroup touches a compact patch instead of a long thin row.

// The even bits of v packed into the low half: bit 2k moves to bit k.
uint morton_compact(uint v)
{
    v &= 0x55555555u;
    v = (v | (v >> 1)) & 0x33333333u;
    v = (v | (v >> 2)) & 0x0f0f0f0fu;
    v = (v | (v >> 4)) & 0x00ff00ffu;
    v = (v | (v >> 8)) & 0x0000ffffu;
    return v;
}

// The (x, y) of Morton index i: x from the even bits, y from the odd bits.
uvec2 morton_decode(uint i)
{
    return uvec2(morton_compact(i), morton_compact(i >> 1));
}
