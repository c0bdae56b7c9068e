#version 460
// The entropy-coded bytes stuffed and the restart markers put in: glsl/jpegenc_bytes.glsl.
#extension GL_GOOGLE_include_directive : require
#define STUFF
#include "jpegenc_bytes.glsl"
