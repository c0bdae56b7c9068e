/* Running a parsed chain on one image: upload through staging, decode to
 * the internal format, every filter's passes in one command buffer, encode
 * and read back. */
#ifndef VKFX_RUN_H
#define VKFX_RUN_H

#include <stdbool.h>

#include "chain.h"
#include "context.h"
#include "graph.h"
#include "pixels.h"
#include "staging.h"

VkFormat vkfx_internal_format(int precision);

/* The pieces vkfx_run and vkfx bench share: record the decode of a device
 * buffer holding in's samples into img (8/16-bit colour through curves where
 * not NULL, vkfx_tone_table's), and the encode of img into a buffer laid
 * out as out. */
int vkfx_record_decode(vkfx_graph *g, vkfx_buffer *raw, const vkfx_pixels *in, bool linear,
                       const float *curves, vkfx_image *img);
int vkfx_record_encode(vkfx_graph *g, vkfx_image *img, const vkfx_pixels *out, bool linear,
                       vkfx_buffer *raw);
/* The same, an output without alpha flattened over background (the output's encoded RGB in
 * [0,1], decoded as its samples are; NULL: the colour written as it is). */
int vkfx_record_encode_over(vkfx_graph *g, vkfx_image *img, const vkfx_pixels *out, bool linear,
                            const float *background, vkfx_buffer *raw);
/* Records every link of chain from src; *result is src or one of the
 * graph's images. */
int vkfx_record_chain(vkfx_graph *g, const vkfx_chain *chain, vkfx_image *src, vkfx_image **result,
                      void ***states);
void vkfx_destroy_chain_states(vkfx_graph *g, const vkfx_chain *chain, void **states);

/* Checks a list "family:variant[,family:variant]..." (VKFX_VARIANT) against the families
 * the registered filters use; VKFX_E_USAGE with a message naming the wrong part. */
int vkfx_variants_check(const char *list);

#endif
