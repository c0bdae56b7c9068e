#version 460
// Long-line prefix sums of the summed-area table with 64-bit subgroupInclusiveAdd, on
// devices with shaderSubgroupExtendedTypes; see sat_lines_body.glsl.
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#define VKFX_SUBGROUP 1
#define VKFX_SUBGROUP64 1
#include "sat_lines_body.glsl"
