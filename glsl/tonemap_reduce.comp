#version 460
// Tonemap's per-work-group log-luminance sums with a shared-memory tree,
// for devices without subgroup arithmetic; see tonemap_body.glsl.
#extension GL_GOOGLE_include_directive : require
#include "tonemap_body.glsl"
