#version 460
// The histogram filter with subgroup-aggregated bin counts; see
// histogram_body.glsl.
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#define VKFX_SUBGROUP 1
#include "histogram_body.glsl"
