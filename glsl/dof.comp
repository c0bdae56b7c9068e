#version 460
// Diffusion depth of field (FILTERS.md "Depth of field", dof): one implicit
// step of the heat equation along every row (VERTICAL false) or column,
// solving the tridiagonal system
//   -beta(i-1/2) y(i-1) + (1 + beta(i-1/2) + beta(i+1/2)) y(i) - beta(i+1/2) y(i+1) = x(i),
//   beta(i+1/2) = (strength * min(coc(i), coc(i+1)))^2, insulated ends,
// for the four channels at once. One work group of T invocations per line,
// the cyclic-reduction structure of the seed's AMD 2011 talk:
// - first reduction, 4-to-1 (T = a quarter of the line, up to 1024; longer
//   lines give each invocation up to L = 16 rows): invocation t owns rows
//   t L .. t L + L - 1, computes their coefficients on the fly from
//   the depth map (no a/b/c image), and eliminates its first L - 1 rows,
//   leaving one equation per invocation in its last row;
// - the reduced system of T equations is solved in shared memory by
//   parallel cyclic reduction (log2 T steps);
// - every diagonal is kept as its margin over the off-diagonals, so no step
//   subtracts nearly equal numbers at large strength or maxcoc (see main);
// - last substitution, 1-to-4 (1-to-L): each invocation recovers its eliminated rows
//   from the two reduced unknowns around them.
// Arithmetic is float32; what is stored between the row and the column
// pass is the internal image format (rgba16f by default).
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "coc.glsl"
#include "portable.glsl"
#include "dof.h"

layout(constant_id = DOF_SPEC_VERTICAL) const bool VERTICAL = false;

// Rows per invocation at most (lines up to 16 T pixels).
#define MAXL 16

layout(binding = 0) uniform sampler2D src;
layout(binding = 1) uniform writeonly image2D dst;
layout(binding = 2) readonly buffer Depth { float depth[]; };

// The reduced system, one equation per invocation (T <= 1024), and the reciprocal of each
// one's diagonal, which its two neighbours of the step read (32 KiB in all).
shared float sa[1024], sb[1024], sc[1024], sr[1024];
shared vec4 sd[1024];

int line_length()
{
    return VERTICAL ? pc.size.y : pc.size.x;
}

ivec2 at(int i)
{
    int line = int(gl_WorkGroupID.x);
    return VERTICAL ? ivec2(line, i) : ivec2(i, line);
}

float coc_at(int i)
{
    ivec2 p = at(i);
    float z = depth[uint(p.y) * uint(pc.size.x) + uint(p.x)];
    return coc_from_depth(z, pc.focus, pc.inv_range, pc.maxcoc, pc.disparity != 0u);
}

void main()
{
    const int T = int(gl_WorkGroupSize.x);
    const int L = pc.rows_per_invocation;
    const int n = line_length();
    int t = int(gl_LocalInvocationID.x);
    int first = t * L;

    // beta[j] links rows first + j - 1 and first + j (j = 0..L); 0 at the
    // line's ends and beyond (the padding rows are then the identity).
    precise float beta[MAXL + 1];
    float coc_prev = first - 1 >= 0 && first - 1 < n ? coc_at(first - 1) : 0.0;
    for (int j = 0; j <= L; j++) {
        int i = first + j;
        float coc_i = i < n ? coc_at(i) : 0.0;
        precise float m = pc.strength * min(coc_prev, coc_i);
        beta[j] = i - 1 >= 0 && i < n ? m * m : 0.0;
        coc_prev = coc_i;
    }

    // Eliminated rows j = 0 .. L-2: a Thomas sweep with three right-hand
    // sides, the data and the couplings to the reduced unknowns on either
    // side (X[t-1] before the chunk, X[t] its last row). Afterwards row j
    // is y = u[j] + v[j] X[t-1] + w[j] X[t].
    //
    // No quantity is a difference: beta reaches (strength maxcoc)^2, where
    // 1 + beta(i-1/2) + beta(i+1/2) in float32 loses the 1 that makes the
    // system regular, and b - a cp, or B - k C in the reduction, cancel to
    // rounding noise (alpha then drifts from the exact solution). Each row
    // keeps its margin instead, what the diagonal exceeds the sum of the
    // off-diagonal magnitudes by (1 at the start, positive throughout), and
    // the diagonal is rebuilt as margin + off-diagonal magnitudes: sums and
    // products of positive numbers, each with a small relative error, however
    // large beta is. e is the margin of row j with its left coupling
    // eliminated: den = e + beta[j + 1], e(j) = 1 + beta[j] e(j-1) / den(j-1).
    // s(j), the row's solution for data 1 with X = 0 on both sides, is
    // 1 - v[j] - w[j] without that subtraction; the kept rows' margins below
    // need it at the chunk's ends only: s_last is the sweep's last value,
    // and s_first its back substitution, summed on the way as
    // s'(0) + (-cp(0)) s'(1) + (-cp(0))(-cp(1)) s'(2) + ... (positive terms).
    //
    // The same bits on every device: every operation is rounded on its own (precise), in the
    // order written, and each division is a product with portable_recip's reciprocal
    // (glsl/portable.glsl: a device's own division may be a few units off). A subnormal, which
    // one device flushes to zero and another keeps, then changes a value by less than 2^-100:
    // data meet only coefficients of magnitude at most 1 (every diagonal is at least 1), or a
    // beta whose product is divided by a diagonal beyond it, so that the difference never
    // reaches a value above 2^-70, where rounding absorbs it; the kernel writes values below
    // 2^-60 in a float image as 0 (flush_tiny), so that it cannot show there either (a half
    // holds nothing below 2^-25).
    precise vec4 u[MAXL];
    precise float v[MAXL], w[MAXL], cp[MAXL];
    int m = L - 1;
    precise float e = 1.0, rden_prev = 1.0;
    precise float s_last = 0.0, s_first = 0.0, chain = 1.0;
    for (int j = 0; j < m; j++) {
        int i = first + j;
        vec4 x = i < n ? texelFetch(src, at(i), 0) : vec4(0.0);
        e = 1.0 + beta[j] * (j > 0 ? e * rden_prev : 1.0);
        precise float den = e + beta[j + 1];
        precise float rden = portable_recip(den);
        rden_prev = rden;
        float left = j > 0 ? beta[j] : 0.0;
        cp[j] = j < m - 1 ? -beta[j + 1] * rden : 0.0;
        u[j] = (x + left * (j > 0 ? u[j - 1] : vec4(0.0))) * rden;
        s_last = (1.0 + left * s_last) * rden;
        chain *= j > 0 ? -cp[j - 1] : 1.0;
        s_first += chain * s_last;
        v[j] = ((j == 0 ? beta[j] : 0.0) + left * (j > 0 ? v[j - 1] : 0.0)) * rden;
        w[j] = ((j == m - 1 ? beta[j + 1] : 0.0) + left * (j > 0 ? w[j - 1] : 0.0)) * rden;
    }
    for (int j = m - 2; j >= 0; j--) {
        u[j] -= cp[j] * u[j + 1];
        v[j] -= cp[j] * v[j + 1];
        w[j] -= cp[j] * w[j + 1];
    }

    // The kept row k = first + L - 1 with its neighbours substituted:
    // y(k-1) from this chunk, y(k+1) from the next one's first row. Its
    // margin E is 1 + beta(k-1/2) s(k-1) + beta(k+1/2) s(k+1).
    if (m > 0) {
        sa[t] = v[0];
        sb[t] = w[0];
        sc[t] = s_first;
        sd[t] = u[0];
    }
    barrier();
    int k = first + L - 1;
    vec4 xk = k < n ? texelFetch(src, at(k), 0) : vec4(0.0);
    float ak = -beta[L - 1], ck = -beta[L];
    precise float A, C, E;
    precise vec4 D;
    if (m > 0) {
        float v_next = t + 1 < T ? sa[t + 1] : 0.0;
        float w_next = t + 1 < T ? sb[t + 1] : 0.0;
        float s_next = t + 1 < T ? sc[t + 1] : 0.0;
        vec4 u_next = t + 1 < T ? sd[t + 1] : vec4(0.0);
        A = ak * v[m - 1];
        C = ck * w_next;
        E = 1.0 + beta[L - 1] * s_last + beta[L] * s_next;
        D = xk - ak * u[m - 1] - ck * u_next;
    } else {
        A = ak;
        C = ck;
        E = 1.0;
        D = xk;
    }
    barrier();

    // Parallel cyclic reduction of the T reduced equations, each kept as
    // A, C (not positive), its margin E (positive) and D; its diagonal is
    // E - A - C. Eliminating a neighbour adds a positive multiple of the
    // neighbour's margin to the row's: E' = E + |k1| E(lo) + |k2| E(hi).
    precise float rdiag = portable_recip(E - A - C);
    sa[t] = A;
    sb[t] = E;
    sc[t] = C;
    sd[t] = D;
    sr[t] = rdiag;
    barrier();
    for (int st = 1; st < T; st <<= 1) {
        int lo = t - st, hi = t + st;
        precise float k1 = lo >= 0 ? A * sr[lo] : 0.0;
        precise float k2 = hi < T ? C * sr[hi] : 0.0;
        precise float na = lo >= 0 ? -k1 * sa[lo] : 0.0;
        precise float nc = hi < T ? -k2 * sc[hi] : 0.0;
        precise float ne = E - (lo >= 0 ? k1 * sb[lo] : 0.0) - (hi < T ? k2 * sb[hi] : 0.0);
        precise vec4 nd =
            D - (lo >= 0 ? k1 * sd[lo] : vec4(0.0)) - (hi < T ? k2 * sd[hi] : vec4(0.0));
        barrier();
        A = na;
        C = nc;
        E = ne;
        D = nd;
        rdiag = portable_recip(E - A - C);
        sa[t] = A;
        sb[t] = E;
        sc[t] = C;
        sd[t] = D;
        sr[t] = rdiag;
        barrier();
    }
    precise vec4 X = D * rdiag;
    sd[t] = X;
    barrier();
    vec4 X_prev = t > 0 ? sd[t - 1] : vec4(0.0);

    // Last substitution: the eliminated rows from the reduced unknowns.
    for (int j = 0; j < m; j++) {
        int i = first + j;
        precise vec4 y = u[j] + v[j] * X_prev + w[j] * X;
        if (i < n)
            imageStore(dst, at(i), to_stored(HALF_OUT ? y : flush_tiny(y)));
    }
    if (k < n)
        imageStore(dst, at(k), to_stored(HALF_OUT ? X : flush_tiny(X)));
}
