#version 460
// Long-line prefix sums of the summed-area table through shared memory
// only; see sat_lines_body.glsl.
#extension GL_GOOGLE_include_directive : require
#include "sat_lines_body.glsl"
