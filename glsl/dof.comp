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
// - last substitution, 1-to-4 (1-to-L): each invocation recovers its eliminated rows
//   from the two reduced unknowns around them.
// Arithmetic is float32; what is stored between the row and the column
// pass is the internal image format (rgba16f by default).
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "coc.glsl"
#include "dof.h"

layout(constant_id = DOF_SPEC_VERTICAL) const bool VERTICAL = false;

// Rows per invocation at most (lines up to 16 T pixels).
#define MAXL 16

layout(binding = 0) uniform sampler2D src;
layout(binding = 1) uniform writeonly image2D dst;
layout(binding = 2) readonly buffer Depth { float depth[]; };

// The reduced system, one equation per invocation (T <= 1024).
shared float sa[1024], sb[1024], sc[1024];
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
    return coc_from_depth(z, pc.focus, pc.range, pc.maxcoc, pc.disparity != 0u);
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
    float beta[MAXL + 1];
    float coc_prev = first - 1 >= 0 && first - 1 < n ? coc_at(first - 1) : 0.0;
    for (int j = 0; j <= L; j++) {
        int i = first + j;
        float coc_i = i < n ? coc_at(i) : 0.0;
        float m = pc.strength * min(coc_prev, coc_i);
        beta[j] = i - 1 >= 0 && i < n ? m * m : 0.0;
        coc_prev = coc_i;
    }

    // Eliminated rows j = 0 .. L-2: a Thomas sweep with three right-hand
    // sides, the data and the couplings to the reduced unknowns on either
    // side (X[t-1] before the chunk, X[t] its last row). Afterwards row j
    // is y = u[j] + v[j] X[t-1] + w[j] X[t].
    vec4 u[MAXL];
    float v[MAXL], w[MAXL], cp[MAXL];
    int m = L - 1;
    for (int j = 0; j < m; j++) {
        int i = first + j;
        vec4 x = i < n ? texelFetch(src, at(i), 0) : vec4(0.0);
        float a = -beta[j], c = -beta[j + 1], b = 1.0 + beta[j] + beta[j + 1];
        float den = b - (j > 0 ? a * cp[j - 1] : 0.0);
        cp[j] = j < m - 1 ? c / den : 0.0;
        u[j] = (x - (j > 0 ? a * u[j - 1] : vec4(0.0))) / den;
        v[j] = ((j == 0 ? -a : 0.0) - (j > 0 ? a * v[j - 1] : 0.0)) / den;
        w[j] = ((j == m - 1 ? -c : 0.0) - (j > 0 ? a * w[j - 1] : 0.0)) / den;
    }
    for (int j = m - 2; j >= 0; j--) {
        u[j] -= cp[j] * u[j + 1];
        v[j] -= cp[j] * v[j + 1];
        w[j] -= cp[j] * w[j + 1];
    }

    // The kept row k = first + L - 1 with its neighbours substituted:
    // y(k-1) from this chunk, y(k+1) from the next one's first row.
    if (m > 0) {
        sa[t] = v[0];
        sb[t] = w[0];
        sd[t] = u[0];
    }
    barrier();
    int k = first + L - 1;
    vec4 xk = k < n ? texelFetch(src, at(k), 0) : vec4(0.0);
    float ak = -beta[L - 1], ck = -beta[L], bk = 1.0 + beta[L - 1] + beta[L];
    float A, B, C;
    vec4 D;
    if (m > 0) {
        float v_next = t + 1 < T ? sa[t + 1] : 0.0;
        float w_next = t + 1 < T ? sb[t + 1] : 0.0;
        vec4 u_next = t + 1 < T ? sd[t + 1] : vec4(0.0);
        A = ak * v[m - 1];
        B = bk + ak * w[m - 1] + ck * v_next;
        C = ck * w_next;
        D = xk - ak * u[m - 1] - ck * u_next;
    } else {
        A = ak;
        B = bk;
        C = ck;
        D = xk;
    }
    barrier();

    // Parallel cyclic reduction of the T reduced equations.
    sa[t] = A;
    sb[t] = B;
    sc[t] = C;
    sd[t] = D;
    barrier();
    for (int s = 1; s < T; s <<= 1) {
        int lo = t - s, hi = t + s;
        float k1 = lo >= 0 ? A / sb[lo] : 0.0;
        float k2 = hi < T ? C / sb[hi] : 0.0;
        float na = lo >= 0 ? -k1 * sa[lo] : 0.0;
        float nc = hi < T ? -k2 * sc[hi] : 0.0;
        float nb = B - (lo >= 0 ? k1 * sc[lo] : 0.0) - (hi < T ? k2 * sa[hi] : 0.0);
        vec4 nd = D - (lo >= 0 ? k1 * sd[lo] : vec4(0.0)) - (hi < T ? k2 * sd[hi] : vec4(0.0));
        barrier();
        A = na;
        B = nb;
        C = nc;
        D = nd;
        sa[t] = A;
        sb[t] = B;
        sc[t] = C;
        sd[t] = D;
        barrier();
    }
    vec4 X = D / B;
    sd[t] = X;
    barrier();
    vec4 X_prev = t > 0 ? sd[t - 1] : vec4(0.0);

    // Last substitution: the eliminated rows from the reduced unknowns.
    for (int j = 0; j < m; j++) {
        int i = first + j;
        if (i < n)
            imageStore(dst, at(i), to_stored(u[j] + v[j] * X_prev + w[j] * X));
    }
    if (k < n)
        imageStore(dst, at(k), to_stored(X));
}
