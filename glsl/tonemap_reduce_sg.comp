#version 460
// Tonemap's per-work-group log-luminance sums with subgroupAdd; see
// tonemap_body.glsl.
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#define VKFX_SUBGROUP 1
#include "tonemap_body.glsl"
