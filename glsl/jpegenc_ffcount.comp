#version 460
// The 0xFF bytes of each run of entropy-coded bytes: glsl/jpegenc_bytes.glsl.
#extension GL_GOOGLE_include_directive : require
#include "jpegenc_bytes.glsl"
