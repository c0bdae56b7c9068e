#version 460
// The bits each block of the scan takes with the tables given (its Huffman codes and value
// bits), or with gather set the symbols it codes, counted per table into the totals (what
// --jpeg-optimize builds its tables from, as libjpeg's gathering pass counts them). One
// invocation per block, in scan order, work groups of 64 over a 2D grid.
#extension GL_GOOGLE_include_directive : require

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(binding = 0) readonly buffer Coefs { uint coefs[]; };
layout(binding = 1) readonly buffer Tables { uint tables[]; };
layout(binding = 2) writeonly buffer Lengths { uint lengths[]; };
layout(binding = 3) buffer Totals { uint totals[]; };

#include "jpegenc_code.glsl"

uint bits = 0u;

void emit(uint table, uint symbol, uint value, uint nbits)
{
    if (pc.gather != 0u)
        atomicAdd(totals[JPEGENC_HIST + table * 256u + symbol], 1u);
    else
        bits += (tables[JPEGENC_HUFF + table * 256u + symbol] >> 16) + nbits;
}

void main()
{
    uint t = gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x + gl_GlobalInvocationID.x;
    if (t >= pc.nblocks)
        return;
    code_block(t);
    if (pc.gather == 0u)
        lengths[t] = bits;
}
