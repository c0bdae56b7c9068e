#version 460
// The tile pass of the summed-area table through shared memory only, for
// devices without subgroup arithmetic (and --no-subgroup-ops); see
// sat_tile_body.glsl.
#extension GL_GOOGLE_include_directive : require
#include "sat_tile_body.glsl"
