// The JPEG decoder's bit reader and Huffman decoding (glsl/jpegdec_huff.comp,
// glsl/jpegdec_sync.comp): the including kernel declares info[] (glsl/jpegdec.h's layout) and
// data[] (the de-stuffed entropy-coded bytes in big-endian words).

// Loop iterations taken: llvmpipe ends an invocation's loops past 65535 of them together
// (core/jpeg_gpu.c).
uint spent = 0u;

// The natural (row-major) position of each zigzag position of an 8x8 block.
const uint jd_natural[64] = uint[64](
    0u, 1u, 8u, 16u, 9u, 2u, 3u, 10u, 17u, 24u, 32u, 25u, 18u, 11u, 4u, 5u,
    12u, 19u, 26u, 33u, 40u, 48u, 41u, 34u, 27u, 20u, 13u, 6u, 7u, 14u, 21u, 28u,
    35u, 42u, 49u, 56u, 57u, 50u, 43u, 36u, 29u, 22u, 15u, 23u, 30u, 37u, 44u, 51u,
    58u, 59u, 52u, 45u, 38u, 31u, 39u, 46u, 53u, 60u, 61u, 54u, 47u, 55u, 62u, 63u);

uint word_at(uint i)
{
    return i < info[JD_WORDS] ? data[i] : 0u;
}

// The two words peek last read, from word jd_at on: decoding moves on by a code or a few bits at
// a time, so most peeks need no load, and a symbol's wait is its table's load alone. The start
// is no word's, nor one before a word.
uint jd_at = 0xfffffffeu, jd_w0 = 0u, jd_w1 = 0u;

// The 32 bits from bit pos on, the first in the top bit; zeros past the data.
uint peek(uint pos)
{
    uint w = pos >> 5u, s = pos & 31u;
    if (w != jd_at) {
        jd_w0 = w == jd_at + 1u ? jd_w1 : word_at(w);
        jd_w1 = word_at(w + 1u);
        jd_at = w;
    }
    return s == 0u ? jd_w0 : (jd_w0 << s) | (jd_w1 >> (32u - s));
}

// The value of the next code of the table at t, or -1 for a bit string no code starts.
int next_symbol(uint t, inout uint pos)
{
    uint bits = peek(pos);
    uint e = info[t + JD_H_LUT + (bits >> (32u - JD_H_LUT_BITS))];
    if (e != 0u) {
        pos += e >> 8u;
        return int(e & 255u);
    }
    for (uint len = JD_H_LUT_BITS + 1u; len <= 16u; len++) {
        spent++;
        int code = int(bits >> (32u - len));
        if (code <= int(info[t + JD_H_MAXCODE + len])) {
            pos += len;
            uint k = uint(int(info[t + JD_H_VALOFF + len]) + code);
            return int(info[t + JD_H_VALS + min(k, 255u)]);
        }
    }
    return -1;
}

// The next s bits as JPEG's signed magnitude.
int receive(uint s, inout uint pos)
{
    if (s == 0u)
        return 0;
    int v = int(peek(pos) >> (32u - s));
    pos += s;
    return v < (1 << (s - 1u)) ? v - (1 << s) + 1 : v;
}


// Two coefficients in a word, the first in the low half: libjpeg-turbo keeps them in 16 bits
// too, and the decoders refuse DC values past that; AC values take 15 bits at most.
uint jd_pack(int a, int b)
{
    return (uint(a) & 0xffffu) | uint(b) << 16u;
}
