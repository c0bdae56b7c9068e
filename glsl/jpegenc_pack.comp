#version 460
// Writes each block's Huffman-coded bits where the prefix sums put them: its interval's first
// byte, plus the bits of the interval's blocks before it; the last block of an interval fills
// its last byte with 1-bits, as JPEG pads before a restart marker and the end of the scan. The
// packed words are big-endian bit strings (the stream's first bit is bit 31 of word 0); a word
// that two blocks share gets both through atomicOr into a zeroed buffer. One invocation per
// block, work groups of 64 over a 2D grid.
#extension GL_GOOGLE_include_directive : require

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(binding = 0) readonly buffer Coefs { uint coefs[]; };
layout(binding = 1) readonly buffer Tables { uint tables[]; };
layout(binding = 2) readonly buffer Starts { uint starts[]; };
layout(binding = 3) readonly buffer Offsets { uint offsets[]; };
layout(binding = 4) buffer Packed { uint packed[]; };

#include "jpegenc_code.glsl"

uint pos;              // the next bit's position in the stream
uint word = 0xFFFFFFFFu; // the word being filled, and its bits so far
uint acc = 0u;

void flush()
{
    if (word != 0xFFFFFFFFu && acc != 0u)
        atomicOr(packed[word], acc);
    acc = 0u;
}

void put(uint v, uint n)
{
    if (n == 0u)
        return;
    uint w = pos >> 5, off = pos & 31u;
    if (w != word) {
        flush();
        word = w;
    }
    if (off + n <= 32u) {
        acc |= v << (32u - off - n);
    } else {
        acc |= v >> (off + n - 32u);
        flush();
        word = w + 1u;
        acc = v << (64u - off - n);
    }
    pos += n;
}

void emit(uint table, uint symbol, uint value, uint nbits)
{
    uint code = tables[JPEGENC_HUFF + table * 256u + symbol];
    put(code & 0xFFFFu, code >> 16);
    put(value, nbits);
}

void main()
{
    uint t = gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x + gl_GlobalInvocationID.x;
    if (t >= pc.nblocks)
        return;
    uint i = t / pc.interval, first = i * pc.interval;
    pos = offsets[i] * 8u + starts[t] - starts[first];
    code_block(t);
    if (t + 1u == min(first + pc.interval, pc.nblocks)) {
        uint pad = (8u - (pos & 7u)) & 7u;
        put((1u << pad) - 1u, pad);
    }
    flush();
}
