#version 460
// The table pass of the summed-area table with 64-bit subgroupInclusiveAdd,
// on devices with shaderSubgroupExtendedTypes; see sat_tile_body.glsl.
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#define VKFX_SUBGROUP 1
#define VKFX_SUBGROUP64 1
#define SAT_TABLE 1
#define BW 2
#include "sat_tile_body.glsl"
