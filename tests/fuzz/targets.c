#include "targets.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chain.h"
#include "error.h"
#include "fileio.h"

static volatile unsigned sink;

/* A result that breaks the library's own contract: stop loudly. */
static void broken(const char *what)
{
    fprintf(stderr, "fuzz target contract broken: %s\n", what);
    abort();
}

static void check_refusal(int ret)
{
    if (ret >= 0)
        broken("a failure returned a non-negative status");
    const char *msg = vkfx_error_message();
    if (!msg || !*msg)
        broken("a failure left no message");
}

int vkfx_fuzz_chain(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = 0;
    vkfx_chain *chain = NULL;
    vkfx_error_clear();
    int ret = vkfx_chain_parse(text, &chain);
    if (ret < 0) {
        check_refusal(ret);
        if (chain)
            broken("a refused chain was returned");
    } else {
        if (!chain || chain->count == 0)
            broken("an accepted chain has no filter");
        for (size_t i = 0; i < chain->count; i++)
            if (!chain->links[i].filter)
                broken("an accepted link has no filter");
        vkfx_chain_free(chain);
    }
    free(text);
    return 0;
}

/* A decode's result against the library's contract. */
static int check_decoded(int ret, vkfx_pixels *px)
{
    if (ret < 0) {
        check_refusal(ret);
        if (px->data)
            broken("a refused image left pixels allocated");
        return 0;
    }
    if (!px->data || px->width == 0 || px->height == 0 || px->channels < 1 || px->channels > 4)
        broken("an accepted image has no pixels or an impossible layout");
    if ((uint64_t)px->width * px->height > vkfx_file_max_pixels())
        broken("an image beyond --max-pixels was decoded");
    /* Read every byte, so a short allocation shows under ASan. */
    const uint8_t *p = px->data;
    unsigned sum = 0;
    for (size_t i = 0; i < vkfx_pixels_bytes(px); i++)
        sum += p[i];
    sink = sum;
    vkfx_pixels_free(px);
    return 0;
}

int vkfx_fuzz_decode(const uint8_t *data, size_t size)
{
    vkfx_file_set_max_pixels(4u << 20);
    vkfx_pixels px = {0};
    vkfx_error_clear();
    return check_decoded(vkfx_file_load_memory(data, size, "fuzz input", &px), &px);
}

static int fuzz_codec(const vkfx_codec *codec, const uint8_t *data, size_t size)
{
    vkfx_file_set_max_pixels(4u << 20);
    vkfx_pixels px = {0};
    vkfx_decode_note note = {{0}};
    vkfx_error_clear();
    int ret = check_decoded(codec->decode(data, size, "fuzz input", &px, &note), &px);
    if (memchr(note.text, 0, sizeof(note.text)) == NULL)
        broken("a note without its terminating NUL");
    return ret;
}

int vkfx_fuzz_jpeg(const uint8_t *data, size_t size)
{
    return fuzz_codec(VKFX_FILE_JPEG, data, size);
}

int vkfx_fuzz_tiff(const uint8_t *data, size_t size)
{
    return fuzz_codec(VKFX_FILE_TIFF, data, size);
}

int vkfx_fuzz_webp(const uint8_t *data, size_t size)
{
    return fuzz_codec(VKFX_FILE_WEBP, data, size);
}
