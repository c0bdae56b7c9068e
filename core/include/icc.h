/* The tone curves of an embedded ICC profile, read through lcms2: what turns
 * a file's 8/16-bit codes into linear light and back when the file carries a
 * profile (an RGB profile's rTRC/gTRC/bTRC, a gray profile's kTRC:
 * parametric or sampled, as ICC defines them). The primaries are never
 * used: vkfx filters in the profile's own linear light and writes the same
 * profile back. */
#ifndef VKFX_ICC_H
#define VKFX_ICC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "meta.h"
#include "pixels.h"

typedef struct vkfx_tone vkfx_tone;

/* Reads the curves of profile bytes (name for messages). A profile vkfx
 * cannot linearise with is VKFX_E_FORMAT saying why: not an RGB or gray
 * profile (CMYK, Lab, ...), no tone curve tags (a LUT-based profile), or a
 * curve that is not increasing. */
int vkfx_tone_from_icc(const void *icc, size_t size, const char *name, vkfx_tone **out);
void vkfx_tone_free(vkfx_tone *t);

/* 1 for a gray profile, 3 for RGB. */
uint32_t vkfx_tone_channels(const vkfx_tone *t);

/* Linear light of encoded value v in [0,1] through channel c's curve (a gray
 * profile's one curve serves every c). */
float vkfx_tone_decode(const vkfx_tone *t, uint32_t c, float v);

/* The codes (0..levels-1, levels 256 or 65536) that linear v rounds to:
 * the code whose encoded value k/(levels-1) is nearest to the curve's inverse
 * of v, found from the decoded midpoints between codes (exact for any
 * increasing curve, no inverse curve needed). thresholds holds levels-1
 * values made by vkfx_tone_thresholds. */
void vkfx_tone_thresholds(const vkfx_tone *t, uint32_t c, uint32_t levels, float *thresholds);
uint32_t vkfx_tone_encode(const float *thresholds, uint32_t levels, float v);

/* The largest distance of t's curves from the sRGB curve, over [0,1]. */
double vkfx_tone_srgb_error(const vkfx_tone *t);

/* FILTERS.md's sRGB curves in double: code value c in [0, 1] to linear light, and back. */
double vkfx_srgb_decode(double c);
double vkfx_srgb_encode(double v);

/* What vkfx_run does around the GPU for a file with a profile. The table its
 * decode kernel reads 8/16-bit codes through, for an image of channels
 * channels of sample (U8 or U16): colour c's linear value of code k at
 * (*table)[c * levels + k], levels 256 or 65536, one colour for gray (1 or 2
 * channels, the green curve under an RGB profile), else three; free with
 * free(). And linear straight F32 samples back to codes of sample (U8 or
 * U16), clamped to [0,1], colour by the thresholds above, alpha rounded to
 * nearest. */
int vkfx_tone_table(const vkfx_tone *t, uint32_t channels, vkfx_sample sample, float **table);
int vkfx_tone_encode_pixels(const vkfx_tone *t, const vkfx_pixels *in, vkfx_sample sample,
                            vkfx_pixels *out);

/* CMYK to sRGB through a CMYK profile (relative colorimetric, lcms2), for
 * a CMYK JPEG: 8-bit inks, inverted where the file says so (Adobe's: 255
 * no ink), to 8-bit sRGB. NULL where icc is no CMYK profile lcms2 can use. */
typedef struct vkfx_cmyk vkfx_cmyk;
vkfx_cmyk *vkfx_cmyk_open(const void *icc, size_t size, bool inverted);
void vkfx_cmyk_to_srgb(vkfx_cmyk *x, const uint8_t *cmyk, uint8_t *rgb, uint32_t width);
void vkfx_cmyk_close(vkfx_cmyk *x);
/* CMYK inks to RGB by the plain formula Pillow uses where there is no profile:
 * R = (1 - C)(1 - K), each channel rounded to nearest; inverted inks (Adobe's) store 255 for
 * no ink. */
void vkfx_cmyk_plain(const uint8_t *cmyk, uint8_t *rgb, uint32_t width, bool inverted);
/* n CIE L*a*b* colours (D50; L 0..100, a and b as they are, floats) into 8-bit sRGB through
 * lcms2 (relative colorimetric), the first three channels of rgb's pixels of channels each. */
int vkfx_lab_to_srgb(const float *lab, uint8_t *rgb, uint32_t channels, size_t n, const char *name);

/* An RGB matrix profile's primaries and white as CIE xy (red, green, blue,
 * white: x then y), the colorants adapted back from D50 to the white its
 * chromatic adaptation tag (or, without one, its white point) gives; false
 * for any other profile. */
bool vkfx_icc_primaries(const void *icc, size_t size, double xy[8]);
/* A profile of those primaries and white with sRGB's curve into icc, or
 * nothing where they are Rec. 709's (sRGB's own: no profile says it) or
 * make no profile. */
int vkfx_icc_from_primaries(const double xy[8], const char *name, vkfx_blob *icc);
/* The description a profile gives itself (its English desc text) into out, of size bytes; ""
 * where icc holds none or none lcms2 can read (vkfx info). */
void vkfx_icc_description(const vkfx_blob *icc, char *out, size_t size);

/* A decoded file's colour as vkfx_run takes it: no profile, float or
 * linear samples, or linear (--no-linearize, the profile kept): *tone NULL.
 * to_srgb (--to-srgb): px converted to sRGB through lcms2 (relative
 * colorimetric), the profile dropped from meta. Otherwise *tone holds the
 * profile's curves (NULL where they are sRGB's curve: the exact curve is
 * used), or the profile is refused (vkfx_tone_from_icc). Pixels the decoder
 * converted from CMYK through the profile (meta->cmyk) need to_srgb: they
 * are sRGB then, and the profile goes; without it they are refused. *how
 * says which, for the report. */
int vkfx_icc_prepare(vkfx_meta *meta, vkfx_pixels *px, bool linear, bool to_srgb, const char *name,
                     vkfx_tone **tone, const char **how);

#endif
