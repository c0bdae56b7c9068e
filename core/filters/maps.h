/* Auxiliary maps (depth, radius) that filters read from files: read for one run, or decoded
 * once and kept on the device at each size runs ask for, for runs that repeat on one input
 * (the preview), so that a map file is read once, not at every run. */
#ifndef VKFX_MAPS_H
#define VKFX_MAPS_H

#include <stdint.h>

#include "graph.h"

/* An auxiliary map of the image's size (a depth or radius map) read from
 * path into a device buffer of W x H floats: the first channel, integer
 * samples divided by 255 or 65535, float samples as they are. A size that
 * differs from the image's is VKFX_E_USAGE; messages name filter and option. */
int vkfx_aux_load(vkfx_graph *g, const char *filter, const char *option, const char *path,
                  vkfx_buffer **out);
/* The same map in host memory (*out: w x h floats, free()); input is the
 * file depth=self reads, or NULL. What vkfx_aux_load uploads, unless the
 * graph has a vkfx_maps that holds it already. */
int vkfx_aux_read(const char *filter, const char *option, const char *path, const char *input,
                  uint32_t w, uint32_t h, float **out);

/* Maps for an input of width x height read from input_path (what depth=self
 * names; may be NULL); uploads go through staging. */
int vkfx_maps_create(vkfx_context *ctx, vkfx_staging *staging, const char *input_path,
                     uint32_t width, uint32_t height, vkfx_maps **out);
void vkfx_maps_destroy(vkfx_maps *m);

/* The map path names (as a filter option gives it) at the graph's size, on
 * the device: read and checked the first time (messages as vkfx_aux_load's),
 * area-averaged to a smaller size the first time that size is asked for.
 * The buffer belongs to m. Not thread-safe: one run at a time. */
int vkfx_maps_get(vkfx_maps *m, vkfx_graph *g, const char *filter, const char *option,
                  const char *path, vkfx_buffer **out);
/* The map at the input's full size, width x height floats (on the host;
 * they belong to m). */
int vkfx_maps_full(vkfx_maps *m, const char *filter, const char *option, const char *path,
                   const float **full);
/* The value the map holds at pixel (x, y) of the full-size input: the float
 * a filter reads there at full size. */
int vkfx_maps_value(vkfx_maps *m, const char *filter, const char *option, const char *path,
                    uint32_t x, uint32_t y, float *z);

#endif
