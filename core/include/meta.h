/* What a photo carries besides its pixels, as it passes from an input file
 * to its output: the ICC profile, EXIF, XMP, PNG text chunks, resolution,
 * and the orientation vkfx found and applied. Codecs read it from a file's
 * bytes (every declared length checked against the file, each piece at
 * most VKFX_META_MAX_BYTES) and write what their format can hold; the file
 * layer turns the pixels upright. */
#ifndef VKFX_META_H
#define VKFX_META_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The kinds of metadata, as a mask of what a file has or a format holds. */
enum {
    VKFX_META_ICC = 1,
    VKFX_META_EXIF = 2,
    VKFX_META_XMP = 4,
    VKFX_META_TEXT = 8,
    VKFX_META_RES = 16,
};

typedef struct vkfx_blob {
    uint8_t *data; /* malloc'd, NUL after the last byte; NULL when absent */
    size_t size;
} vkfx_blob;

/* A PNG text chunk: keyword (1-79 Latin-1 bytes) and UTF-8 text. */
typedef struct vkfx_text {
    char *key;
    char *text;
} vkfx_text;

/* No file keeps more text chunks than this, nor more than
 * VKFX_META_MAX_BYTES of text in all; the rest are dropped. */
#define VKFX_META_MAX_TEXTS 64
/* The most bytes one piece of metadata may take (a profile, EXIF, XMP, a
 * text); a larger one is an error, never an allocation. */
#define VKFX_META_MAX_BYTES (16u << 20)

typedef enum vkfx_res_unit {
    VKFX_RES_NONE,     /* an aspect ratio only */
    VKFX_RES_PER_INCH, /* dots per inch */
    VKFX_RES_PER_CM,
} vkfx_res_unit;

typedef struct vkfx_meta {
    vkfx_blob icc;
    vkfx_blob exif; /* the TIFF structure ("II*\0"/"MM\0*"), no "Exif\0\0" */
    vkfx_blob xmp;
    vkfx_text texts[VKFX_META_MAX_TEXTS];
    uint32_t ntexts;
    size_t text_bytes; /* keys and texts kept, in all */
    bool has_res;
    double res_x, res_y; /* samples per unit */
    vkfx_res_unit res_unit;
    /* The orientation the file stored (1..8; 0 none: EXIF's, or a TIFF's
     * own tag) and the one applied to the pixels (0 or 1: none). */
    int stored_orientation, applied_orientation;
    /* The decoder turned CMYK into sRGB through the ICC profile (a CMYK JPEG or TIFF
     * whose profile is a CMYK one lcms2 can use). */
    bool cmyk;
    /* What was read despite damage or converted on reading (a corrupt profile read as sRGB,
     * a profile without curves converted to sRGB), one line naming the file; "" none. */
    char note[200];
} vkfx_meta;

void vkfx_meta_free(vkfx_meta *m);
/* The orientation a file declares (1..8; 0 none): its EXIF's, else what the codec stored
 * (a TIFF's own tag, a PNG's XMP). */
int vkfx_meta_orientation(const vkfx_meta *m);
/* XMP's tiff:Orientation (1..8), or 0. */
int vkfx_meta_xmp_orientation(const vkfx_meta *m);
/* Every tiff:Orientation of m's XMP set to 1, once the pixels were turned upright (the
 * digit is replaced in place). */
void vkfx_meta_xmp_upright(vkfx_meta *m);
/* The orientation an output declares: 1 once the pixels were turned, else
 * what the input stored, else what its EXIF says (1 for NULL or none). */
int vkfx_meta_out_orientation(const vkfx_meta *m);
/* The kinds m holds (VKFX_META_*). */
unsigned vkfx_meta_kinds(const vkfx_meta *m);
/* "the ICC profile, EXIF" for the kinds in mask. */
void vkfx_meta_kind_names(unsigned mask, char *buf, size_t size);

/* Copies size bytes into b (VKFX_E_FORMAT naming the file and what when
 * size is over VKFX_META_MAX_BYTES). */
int vkfx_blob_set(vkfx_blob *b, const void *data, size_t size, const char *name, const char *what);
/* Appends size bytes to b, within the same limit. */
int vkfx_blob_append(vkfx_blob *b, const void *data, size_t size, const char *name,
                     const char *what);
/* Adds a text chunk (copies both; past VKFX_META_MAX_TEXTS texts or
 * VKFX_META_MAX_BYTES of text it is dropped). */
int vkfx_meta_add_text(vkfx_meta *m, const char *key, size_t key_len, const char *text,
                       size_t text_len);

/* The text key vkfx uses for a date (PNG's "Creation Time"), and dates
 * between EXIF's form ("YYYY:MM:DD HH:MM:SS", also TIFF's and OpenEXR's)
 * and ISO 8601's ("YYYY-MM-DDTHH:MM:SS"), which the text holds. to_exif
 * takes either form (a space for the T too, anything after the seconds
 * ignored); false where the text is no such date. */
#define VKFX_META_DATE_KEY "Creation Time"
bool vkfx_meta_date_to_exif(const char *text, size_t len, char out[20]);
bool vkfx_meta_date_from_exif(const char *exif, size_t len, char out[20]);

/* Text as a format's own fields hold it (TIFF tags, OpenEXR attributes),
 * keys[i] naming field i. field_of: the field t goes to, its value in
 * *value (the date in EXIF's form, in date), or -1 where no field holds it.
 * hold: whether fields hold every text of m. add_field: a field's value (n
 * bytes) as text under key, a date turned into ISO 8601 (nothing where it
 * is no date). */
int vkfx_meta_field_of(const vkfx_text *t, const char *const *keys, size_t nkeys,
                       const char **value, char date[20]);
bool vkfx_meta_fields_hold(const vkfx_meta *m, const char *const *keys, size_t nkeys);
int vkfx_meta_add_field(vkfx_meta *m, const char *key, const char *v, size_t n);

/* A profile that cannot be read is no reason to refuse the pixels: m's profile is dropped
 * (they are read as sRGB, as viewers read them) and why (a message naming the file) becomes
 * m's note. Returns true. */
bool vkfx_meta_icc_damaged(vkfx_meta *m, const char *why);

/* zlib-compressed data (PNG iCCP, zTXt, compressed iTXt) inflated into b,
 * at most VKFX_META_MAX_BYTES. */
int vkfx_meta_inflate(const uint8_t *data, size_t size, vkfx_blob *b, const char *name,
                      const char *what);
/* A compressed text of m (its key key_len bytes) inflated into b, within
 * what is left of m's text budget; b stays empty when the text would not
 * be kept (vkfx_meta_add_text), which then costs no inflating. */
int vkfx_meta_inflate_text(const vkfx_meta *m, size_t key_len, const uint8_t *data, size_t size,
                           vkfx_blob *b, const char *name, const char *what);

#endif
