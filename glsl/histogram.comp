#version 460
// The histogram filter with shared-memory atomics only, for devices
// without subgroup arithmetic; see histogram_body.glsl.
#extension GL_GOOGLE_include_directive : require
#include "histogram_body.glsl"
