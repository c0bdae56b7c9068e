// Shared by every kernel: the binding convention (binding 0 the input,
// binding 1 the output), the work-group and subgroup size as
// specialization constants 0-3, clamp-to-edge loads and the colour maths
// of FILTERS.md "Pixels".

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const uint SUBGROUP_SIZE = 32;

// The nearest pixel repeats beyond the edges.
vec4 load_clamped(sampler2D s, ivec2 p, ivec2 size)
{
    return texelFetch(s, clamp(p, ivec2(0), size - 1), 0);
}

float luminance(vec3 rgb)
{
    return dot(rgb, vec3(0.2126, 0.7152, 0.0722));
}

float srgb_decode(float c)
{
    return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

float srgb_encode(float v)
{
    return v <= 0.0031308 ? 12.92 * v : 1.055 * pow(v, 1.0 / 2.4) - 0.055;
}
