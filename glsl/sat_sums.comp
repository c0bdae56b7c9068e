#version 460
// The sums pass of the summed-area table through shared memory only, for
// devices without subgroup arithmetic (and --no-subgroup-ops); see
// sat_tile_body.glsl.
#extension GL_GOOGLE_include_directive : require
#define SAT_TABLE 0
#define BW 4
#include "sat_tile_body.glsl"
