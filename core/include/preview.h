/* A preview session (vkfx preview): one input decoded once and kept on the
 * device with its maps, rendered through any chain at any width up to its
 * own, as often as asked. No Vulkan types here, for cli/. */
#ifndef VKFX_PREVIEW_H
#define VKFX_PREVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vkfx.h"

typedef struct vkfx_preview vkfx_preview;

/* Reads input_path (as vkfx_file_load does) and keeps it for renders. */
int vkfx_preview_open(vkfx_context *ctx, const char *input_path, vkfx_preview **out);
void vkfx_preview_close(vkfx_preview *p);
void vkfx_preview_size(const vkfx_preview *p, uint32_t *width, uint32_t *height);
/* The height of a render width pixels wide (aspect kept; width is capped at
 * the input's). */
uint32_t vkfx_preview_height(const vkfx_preview *p, uint32_t width);

/* chain on the input shown width pixels wide (0 or more than the input's
 * width: the full size): out is 8-bit sRGB as a JPEG stores it. At full
 * size the input runs as a file run does; smaller, the input and its maps
 * are area-averaged to that size first (each size is made once and kept), and
 * every length in pixels of the chain (maxcoc, radii, sigmas: the filters'
 * pixel_options) is scaled with them, so that the draft looks as the full
 * size does, scaled; a chain that cannot look so (a grid_bound filter:
 * ripple) is rendered as vkfx_preview_view renders it. Filters' finish
 * hooks (files a filter writes) do not run. *gpu_ms is the device time of
 * the passes, or -1 where the device has no timestamps. cancel (NULL:
 * none) is asked between passes (VKFX_E_STOPPED). The map files the chain
 * names must be regular files, as for every call below: a FIFO would block
 * the caller and a device never ends. */
int vkfx_preview_render(vkfx_preview *p, const vkfx_chain *chain, uint32_t width, vkfx_pixels *out,
                        double *gpu_ms, const vkfx_cancel *cancel);

/* What Save would write, shown width pixels wide: chain run on the full-size
 * input at Save's precision, then box-scaled to width (0 or at least the
 * result's width: not scaled), as `vkfx SAVED -f
 * resize:width=W:height=H:kernel=box` scales the saved file. Every size in
 * the chain (maxcoc, radii) is the saved file's; vkfx_preview_render is the
 * faster draft, near it. Arguments as for
 * vkfx_preview_render. */
int vkfx_preview_view(vkfx_preview *p, const vkfx_chain *chain, uint32_t width, vkfx_pixels *out,
                      double *gpu_ms, const vkfx_cancel *cancel);
/* The settings of the page's pictures: quality 90, 4:2:0. */
extern const vkfx_save_opts vkfx_preview_jpeg;
/* vkfx_preview_render as a JPEG of vkfx_preview_jpeg's settings: encoded on the device in the
 * same submission where codec sends it there (*jpeg, *size bytes, malloc'd; out's data NULL),
 * else the pixels in out as vkfx_preview_render gives them (*jpeg NULL) for the caller to
 * encode. */
int vkfx_preview_render_jpeg(vkfx_preview *p, const vkfx_chain *chain, uint32_t width,
                             vkfx_jpeg_codec codec, unsigned char **jpeg, size_t *size,
                             vkfx_pixels *out, double *gpu_ms, const vkfx_cancel *cancel);
/* vkfx_preview_view as vkfx_preview_render_jpeg gives vkfx_preview_render. */
int vkfx_preview_view_jpeg(vkfx_preview *p, const vkfx_chain *chain, uint32_t width,
                           vkfx_jpeg_codec codec, unsigned char **jpeg, size_t *size,
                           vkfx_pixels *out, double *gpu_ms, const vkfx_cancel *cancel);
/* Where Save encodes a JPEG (--jpeg-codec; default auto). */
void vkfx_preview_set_jpeg_codec(vkfx_preview *p, vkfx_jpeg_codec codec);
/* Renders and Save from now on with --fast (the filters' fast paths) or without it. */
void vkfx_preview_set_fast(vkfx_preview *p, bool fast);

/* For link i of chain: *has is whether the filter has a depth map and a
 * focus (dof, satdof, bokeh); then *focus is the depth the filter compares
 * with focus at pixel (x, y) of the full-size input (its map's value there,
 * the filled value on a hole of hole=V, flipped for kind=disparity), so
 * that focus set to it makes that pixel sharp. */
int vkfx_preview_focus(vkfx_preview *p, const vkfx_chain *chain, size_t i, uint32_t x, uint32_t y,
                       bool *has, double *focus);

/* The smallest and largest value of the depth map of link i of chain (the
 * filter reads it; a hole of hole=V left out), for controls that span it,
 * and whether its samples are floats (*is_float: an OpenEXR, a float TIFF,
 * depth=self; in scene units) or 8/16-bit codes read as 0..1; *has false
 * where the link has no depth map. */
int vkfx_preview_depth_range(vkfx_preview *p, const vkfx_chain *chain, size_t i, bool *has,
                             double *lo, double *hi, bool *is_float);

/* The in-focus band of the first link of chain with a depth map (dof,
 * satdof, bokeh; none: a usage error), width pixels wide (as
 * vkfx_preview_height): 8-bit RGBA, tint where
 * the pixel's circle of confusion, from the (filled) depth at the centre of
 * its footprint in the full-size map, is under half a pixel (radius 0 after
 * rounding), transparent elsewhere. */
int vkfx_preview_band(vkfx_preview *p, const vkfx_chain *chain, uint32_t width,
                      vkfx_pixels *out);

/* The full-size result written to path as `vkfx INPUT -f CHAIN -o path`
 * writes it (same run, same checks, same atomic write), the maps taken from
 * the session instead of their files. */
int vkfx_preview_save(vkfx_preview *p, const vkfx_chain *chain, const char *path,
                      const vkfx_save_opts *save, const vkfx_cancel *cancel);

#endif
