/* How the device rounds floats to halves (glsl/half_probe.comp). */
#ifndef VKFX_HALFPROBE_H
#define VKFX_HALFPROBE_H

#include "context.h"

/* Sets ctx->pack_rne: whether packHalf2x16 gives the nearest half, ties to
 * even, for every float tried (each finite half, each midpoint between two
 * neighbouring halves and the floats on either side of it, both signs, the
 * overflow edge). VKFX_HALF_PACK=0 leaves it false without asking the
 * device. Device memory and submission counts are as before the call. */
int vkfx_half_probe(vkfx_context *ctx);

#endif
