#version 460
// The table pass of the summed-area table with subgroupInclusiveAdd over
// 32-bit pieces, specialised for the subgroup size the pipeline pins; see
// sat_tile_body.glsl.
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#define VKFX_SUBGROUP 1
#define SAT_TABLE 1
#define BW 2
#include "sat_tile_body.glsl"
