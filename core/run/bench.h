/* vkfx bench: GPU time of filter chains on one large image, next to a plain
 * copy kernel of the same image measured in the same run (declared in
 * vkfx.h). */
#ifndef VKFX_BENCH_H
#define VKFX_BENCH_H

#include "context.h"
#include "staging.h"

#endif
