// Where the JPEG encoder's kernels find a component's blocks: each component a plane of whole
// MCUs in the coefficient buffer, 32 words (64 16-bit coefficients in natural order) a block.
#include "jpegenc.h"

uint comp_h(uint c) { return c == 0u ? pc.hmax : 1u; }
uint comp_v(uint c) { return c == 0u ? pc.vmax : 1u; }

// The blocks of component c that hold image samples (libjpeg's width_in_blocks and
// height_in_blocks): the component's size rounded up to whole blocks.
uvec2 comp_blocks(uint c)
{
    uvec2 img = uvec2(pc.size);
    return uvec2((img.x * comp_h(c) + pc.hmax * 8u - 1u) / (pc.hmax * 8u),
                 (img.y * comp_v(c) + pc.vmax * 8u - 1u) / (pc.vmax * 8u));
}

// Component planes follow each other in the coefficient buffer, each whole MCUs wide and high.
uint plane_base(uint c)
{
    uint luma = pc.mcus_x * pc.mcus_y * pc.hmax * pc.vmax;
    return c == 0u ? 0u : luma + (c - 1u) * pc.mcus_x * pc.mcus_y;
}

uint block_index(uint c, uvec2 b)
{
    return plane_base(c) + b.y * pc.mcus_x * comp_h(c) + b.x;
}

