// The Huffman coding of one block of the scan, for the kernels that measure, count and pack
// it: where a block of the scan lies, its coefficients (dummy blocks included: libjpeg fills an
// MCU past the image's edge with blocks whose AC are 0 and whose DC repeats a neighbour's), and
// the symbols, each given to emit(), which the including kernel defines after declaring the
// coefs and tables buffers.
#include "jpegenc.glsl"

uint blocks_per_mcu() { return pc.channels == 1u ? 1u : pc.hmax * pc.vmax + 2u; }

struct scan_block {
    uint c;       // component
    uvec2 b;      // block in the component's plane
    uint mcu;
    bool first;   // the component's first block in its MCU
    uint prev;    // the scan index of the component's block before it
};

scan_block scan_at(uint t)
{
    scan_block s;
    uint bpm = blocks_per_mcu(), hv = pc.hmax * pc.vmax;
    s.mcu = t / bpm;
    uint j = t % bpm;
    uvec2 m = uvec2(s.mcu % pc.mcus_x, s.mcu / pc.mcus_x);
    if (j < hv) {
        s.c = 0u;
        s.b = m * uvec2(pc.hmax, pc.vmax) + uvec2(j % pc.hmax, j / pc.hmax);
        s.first = j == 0u;
        s.prev = j == 0u ? t - bpm + hv - 1u : t - 1u;
    } else {
        s.c = j - hv + 1u;
        s.b = m;
        s.first = true;
        s.prev = t - bpm;
    }
    return s;
}

bool resets_dc(scan_block s)
{
    uint mcus_per_interval = pc.interval / blocks_per_mcu();
    return s.first && s.mcu % mcus_per_interval == 0u;
}

int coef_at(uint block, uint k)
{
    uint w = coefs[block * 32u + k / 2u];
    return (k & 1u) == 0u ? int(w << 16) >> 16 : int(w) >> 16;
}

bool is_dummy(uint c, uvec2 b)
{
    uvec2 real = comp_blocks(c);
    return b.x >= real.x || b.y >= real.y;
}

// A dummy block repeats the DC of the block before it in its MCU row; a row of them under the
// image, the DC of the MCU's last block above.
int dc_of(uint c, uvec2 b)
{
    uvec2 real = comp_blocks(c);
    if (b.y >= real.y)
        b = uvec2(min(b.x / comp_h(c) * comp_h(c) + comp_h(c) - 1u, real.x - 1u), real.y - 1u);
    else if (b.x >= real.x)
        b.x = real.x - 1u;
    return coef_at(block_index(c, b), 0u);
}

void emit(uint table, uint symbol, uint value, uint nbits);

uint magnitude_bits(int v)
{
    uint a = uint(abs(v));
    return a == 0u ? 0u : uint(findMSB(a)) + 1u;
}

// The value bits after a symbol: negative values as their ones' complement, JPEG's way.
uint value_bits(int v, uint nbits)
{
    return uint(v < 0 ? v - 1 : v) & ((1u << nbits) - 1u);
}

void code_block(uint t)
{
    scan_block s = scan_at(t);
    int pred = 0;
    if (!(t == 0u || resets_dc(s))) {
        scan_block p = scan_at(s.prev);
        pred = dc_of(p.c, p.b);
    }
    uint dc_table = s.c == 0u ? 0u : 2u;
    int diff = dc_of(s.c, s.b) - pred;
    uint nb = magnitude_bits(diff);
    emit(dc_table, nb, value_bits(diff, nb), nb);
    if (is_dummy(s.c, s.b)) {
        emit(dc_table + 1u, 0u, 0u, 0u);
        return;
    }
    uint block = block_index(s.c, s.b);
    uint run = 0u;
    for (uint k = 1u; k < 64u; k++) {
        int v = coef_at(block, tables[JPEGENC_ZIGZAG + k]);
        if (v == 0) {
            run++;
            continue;
        }
        for (; run > 15u; run -= 16u)
            emit(dc_table + 1u, 0xF0u, 0u, 0u);
        nb = magnitude_bits(v);
        emit(dc_table + 1u, (run << 4) | nb, value_bits(v, nb), nb);
        run = 0u;
    }
    if (run > 0u)
        emit(dc_table + 1u, 0u, 0u, 0u);
}
