/* The chain parser: splits the user's text into links and options, and turns
 * every option through its table row into a typed field of the params struct.
 * One parser serves every filter, so every filter's messages read the same. */
#include "chain.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "error.h"

/* Misspellings at most this far from a real name get a suggestion; farther
 * guesses would more often mislead than help. */
static size_t suggest_limit(const char *typed)
{
    size_t third = strlen(typed) / 3;
    return third > 2 ? third : 2;
}

size_t vkfx_edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    size_t stack[2][64];
    size_t *prev = stack[0], *cur = stack[1], *heap = NULL;
    if (lb + 1 > 64) {
        heap = malloc(2 * (lb + 1) * sizeof(*heap));
        /* Without memory answer the longer length: an upper bound, so the
         * worst outcome is a missing suggestion, never a wrong one. */
        if (!heap)
            return la > lb ? la : lb;
        prev = heap;
        cur = heap + lb + 1;
    }
    for (size_t j = 0; j <= lb; j++)
        prev[j] = j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = i;
        int ca = tolower((unsigned char)a[i - 1]);
        for (size_t j = 1; j <= lb; j++) {
            size_t sub = prev[j - 1] + (ca != tolower((unsigned char)b[j - 1]));
            size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
            size_t best = sub < del ? sub : del;
            cur[j] = best < ins ? best : ins;
        }
        size_t *t = prev;
        prev = cur;
        cur = t;
    }
    size_t d = prev[lb];
    free(heap);
    return d;
}

/* ---- writing fields: memcpy, because params are plain bytes to this file ---- */

static void *field(void *params, const vkfx_option *o)
{
    return (char *)params + o->offset;
}

static void put_int(void *params, const vkfx_option *o, int32_t v)
{
    memcpy(field(params, o), &v, sizeof(v));
}

static void put_double(void *params, const vkfx_option *o, double v)
{
    memcpy(field(params, o), &v, sizeof(v));
}

static void put_bool(void *params, const vkfx_option *o, bool v)
{
    memcpy(field(params, o), &v, sizeof(v));
}

static void put_choice(void *params, const vkfx_option *o, int v)
{
    memcpy(field(params, o), &v, sizeof(v));
}

static char *get_path(const void *params, const vkfx_option *o)
{
    char *s;
    memcpy(&s, (const char *)params + o->offset, sizeof(s));
    return s;
}

static void put_path(void *params, const vkfx_option *o, char *s)
{
    memcpy(field(params, o), &s, sizeof(s));
}

void vkfx_options_defaults(const vkfx_filter *f, void *params)
{
    for (const vkfx_option *o = f->options; o && o->name; o++) {
        switch (o->type) {
        case VKFX_OPT_INT:
            put_int(params, o, o->unset_default ? VKFX_UNSET : (int32_t)o->def);
            break;
        case VKFX_OPT_FLOAT:
            put_double(params, o, o->unset_default ? VKFX_UNSET : o->def);
            break;
        case VKFX_OPT_BOOL:
            put_bool(params, o, o->def != 0);
            break;
        case VKFX_OPT_CHOICE:
            put_choice(params, o, (int)o->def);
            break;
        case VKFX_OPT_PATH:
            put_path(params, o, NULL);
            break;
        }
    }
}

bool vkfx_option_in_pixels(const vkfx_filter *f, const vkfx_option *o)
{
    for (const char *const *n = f->pixel_options; n && *n; n++)
        if (strcmp(*n, o->name) == 0)
            return o->type == VKFX_OPT_INT || o->type == VKFX_OPT_FLOAT;
    return false;
}

void vkfx_params_scale_pixels(const vkfx_filter *f, void *params, double scale)
{
    for (const vkfx_option *o = f->options; o && o->name; o++) {
        if (!vkfx_option_in_pixels(f, o))
            continue;
        double v;
        if (o->type == VKFX_OPT_INT) {
            int32_t i;
            memcpy(&i, field(params, o), sizeof(i));
            v = i;
        } else {
            memcpy(&v, field(params, o), sizeof(v));
        }
        if (o->unset_default && v == VKFX_UNSET)
            continue;
        v *= scale;
        if (o->type == VKFX_OPT_INT)
            v = floor(v + 0.5);
        v = v < o->min ? o->min : v > o->max ? o->max : v;
        if (o->type == VKFX_OPT_INT)
            put_int(params, o, (int32_t)v);
        else
            put_double(params, o, v);
    }
}

/* ---- values ---- */

/* Appends to a fixed buffer, remembering whether anything was cut off, so a
 * long run of appends needs one overflow check at the end. */
typedef struct text {
    char *buf;
    size_t size, len;
    bool overflow;
} text;

static void text_addf(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void text_addf(text *t, const char *fmt, ...)
{
    size_t room = t->len < t->size ? t->size - t->len : 0;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(room ? t->buf + t->len : NULL, room, fmt, ap);
    va_end(ap);
    if (n < 0) {
        t->overflow = true;
        return;
    }
    if ((size_t)n >= room) {
        t->overflow = true;
        t->len = room ? t->size - 1 : t->len;
        return;
    }
    t->len += (size_t)n;
}

static void choices_list(const vkfx_option *o, const char *sep, text *t)
{
    for (size_t i = 0; o->choices && o->choices[i]; i++)
        text_addf(t, "%s%s", i ? sep : "", o->choices[i]);
}

/* What a value of this option looks like, for "needs a value (...)". */
static void expected_value(const vkfx_option *o, text *t)
{
    switch (o->type) {
    case VKFX_OPT_INT:
        text_addf(t, "integer %.0f..%.0f", o->min, o->max);
        break;
    case VKFX_OPT_FLOAT:
        text_addf(t, "number %g..%g", o->min, o->max);
        break;
    case VKFX_OPT_BOOL:
        text_addf(t, "0 or 1");
        break;
    case VKFX_OPT_CHOICE:
        text_addf(t, "one of ");
        choices_list(o, ", ", t);
        break;
    case VKFX_OPT_PATH:
        text_addf(t, "a file name");
        break;
    }
}

static int fail_needs_value(const vkfx_filter *f, const vkfx_option *o)
{
    char want[256];
    text t = {want, sizeof(want), 0, false};
    want[0] = 0;
    expected_value(o, &t);
    return vkfx_fail(VKFX_E_USAGE, "%s: option '%s' needs a value (%s)", f->name, o->name, want);
}

static int fail_range(const vkfx_filter *f, const vkfx_option *o, const char *value)
{
    /* Integers in full: 4194304, not 4.1943e+06. */
    if (o->type == VKFX_OPT_INT)
        return vkfx_fail(VKFX_E_USAGE, "%s: %s=%s is out of range %.0f..%.0f", f->name, o->name,
                         value, o->min, o->max);
    return vkfx_fail(VKFX_E_USAGE, "%s: %s=%s is out of range %g..%g", f->name, o->name, value,
                     o->min, o->max);
}

static int parse_int(const vkfx_filter *f, const vkfx_option *o, const char *value, void *params)
{
    char *end;
    errno = 0;
    long long v = strtoll(value, &end, 10);
    if (end == value || *end || isspace((unsigned char)value[0]))
        return vkfx_fail(VKFX_E_USAGE, "%s: %s='%s' is not an integer", f->name, o->name, value);
    /* The range test is on the long long so that a huge value reads as out of
     * range rather than wrapping into it; int32 bounds guard a table whose
     * range is wider than the field. */
    if (errno == ERANGE || (double)v < o->min || (double)v > o->max || v < INT32_MIN ||
        v > INT32_MAX)
        return fail_range(f, o, value);
    put_int(params, o, (int32_t)v);
    return VKFX_OK;
}

/* Whether s is a decimal number: [+-]digits[.digits][e[+-]digits], at least one digit before
 * the exponent. strtod also reads hexadecimal ("0x10" is 16), "inf" and "nan", which nobody
 * writes as a filter's parameter by intent. */
static bool decimal(const char *s)
{
    size_t digits = 0;
    if (*s == '+' || *s == '-')
        s++;
    for (; isdigit((unsigned char)*s); s++)
        digits++;
    if (*s == '.')
        for (s++; isdigit((unsigned char)*s); s++)
            digits++;
    if (!digits)
        return false;
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '+' || *s == '-')
            s++;
        if (!isdigit((unsigned char)*s))
            return false;
        while (isdigit((unsigned char)*s))
            s++;
    }
    return *s == 0;
}

static int parse_float(const vkfx_filter *f, const vkfx_option *o, const char *value, void *params)
{
    if (!decimal(value))
        return vkfx_fail(VKFX_E_USAGE, "%s: %s='%s' is not a number", f->name, o->name, value);
    errno = 0;
    double v = strtod(value, NULL);
    /* 1e999 overflows to infinity and is simply out of range; underflow (1e-999) is a tiny
     * number, judged by the range like any other. */
    if (!isfinite(v) || v < o->min || v > o->max)
        return fail_range(f, o, value);
    put_double(params, o, v);
    return VKFX_OK;
}

static int parse_bool(const vkfx_filter *f, const vkfx_option *o, const char *value, void *params)
{
    static const char *const yes[] = {"1", "true", "yes", "on"};
    static const char *const no[] = {"0", "false", "no", "off"};
    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
        if (!strcasecmp(value, yes[i])) {
            put_bool(params, o, true);
            return VKFX_OK;
        }
        if (!strcasecmp(value, no[i])) {
            put_bool(params, o, false);
            return VKFX_OK;
        }
    }
    return vkfx_fail(VKFX_E_USAGE, "%s: %s='%s' must be 0 or 1", f->name, o->name, value);
}

static int parse_choice(const vkfx_filter *f, const vkfx_option *o, const char *value, void *params)
{
    for (int i = 0; o->choices && o->choices[i]; i++) {
        if (!strcasecmp(value, o->choices[i])) {
            put_choice(params, o, i);
            return VKFX_OK;
        }
    }
    char list[256];
    text t = {list, sizeof(list), 0, false};
    list[0] = 0;
    choices_list(o, ", ", &t);
    return vkfx_fail(VKFX_E_USAGE, "%s: %s='%s' must be one of %s", f->name, o->name, value, list);
}

static int parse_path(const vkfx_filter *f, const vkfx_option *o, const char *value, void *params)
{
    char *s = strdup(value);
    if (!s)
        return vkfx_fail(VKFX_E_NOMEM, "%s: out of memory for option '%s'", f->name, o->name);
    /* The field owns its string; a second parse into the same params replaces
     * it instead of leaking it. */
    free(get_path(params, o));
    put_path(params, o, s);
    return VKFX_OK;
}

int vkfx_option_parse(const vkfx_filter *f, const vkfx_option *o, const char *value, void *params)
{
    if (!value || !*value)
        return fail_needs_value(f, o);
    switch (o->type) {
    case VKFX_OPT_INT:
        return parse_int(f, o, value, params);
    case VKFX_OPT_FLOAT:
        return parse_float(f, o, value, params);
    case VKFX_OPT_BOOL:
        return parse_bool(f, o, value, params);
    case VKFX_OPT_CHOICE:
        return parse_choice(f, o, value, params);
    case VKFX_OPT_PATH:
        return parse_path(f, o, value, params);
    }
    return vkfx_fail(VKFX_E_USAGE, "%s: option '%s' has an unknown type", f->name, o->name);
}

/* ---- the tokenizer ---- */

/* Reads one field from *p up to the first unescaped character of stops (or
 * the end), removing backslash escapes and the unescaped whitespace at both
 * ends. An escaped character is never trimmed, so "\ a" keeps its space.
 * Leaves *p on the stop character. */
static int read_field(const char **p, const char *stops, char **out)
{
    const char *s = *p;
    char *r = malloc(strlen(s) + 1);
    if (!r)
        return vkfx_fail(VKFX_E_NOMEM, "out of memory parsing the filter chain");
    size_t len = 0, keep = 0; /* keep: length up to the last character not to trim */
    for (; *s && !strchr(stops, *s); s++) {
        if (*s == '\\') {
            if (!s[1]) {
                free(r);
                return vkfx_fail(VKFX_E_USAGE,
                                 "filter chain ends in a lone '\\' (write '\\\\' for a "
                                 "backslash)");
            }
            r[len++] = *++s;
            keep = len;
        } else if (isspace((unsigned char)*s)) {
            if (len)
                r[len++] = *s;
        } else {
            r[len++] = *s;
            keep = len;
        }
    }
    r[keep] = 0;
    *p = s;
    *out = r;
    return VKFX_OK;
}

static bool has_space(const char *s)
{
    for (; *s; s++)
        if (isspace((unsigned char)*s))
            return true;
    return false;
}

const char *vkfx_filter_suggest(const char *name)
{
    /* What ImageMagick, vips and GIMP users type for filters vkfx names otherwise. */
    static const char *const aliases[][2] = {
        {"blur", "gauss"},        {"gaussian", "gauss"},   {"gaussblur", "gauss"},
        {"sharpen", "unsharp"},   {"edge", "sobel"},       {"edges", "sobel"},
        {"gray", "grayscale"},    {"grey", "grayscale"},   {"greyscale", "grayscale"},
        {"thumbnail", "resize"},  {"scale", "resize"},     {"rot", "rotate"},
    };
    for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
        if (strcasecmp(name, aliases[i][0]) == 0)
            return aliases[i][1];
    const char *best = NULL;
    size_t best_d = SIZE_MAX;
    for (size_t i = 0; vkfx_filters[i]; i++) {
        size_t d = vkfx_edit_distance(name, vkfx_filters[i]->name);
        if (d < best_d) {
            best_d = d;
            best = vkfx_filters[i]->name;
        }
    }
    return best && best_d <= suggest_limit(name) ? best : NULL;
}

static int fail_unknown_filter(const char *name)
{
    const char *best = vkfx_filter_suggest(name);
    if (best)
        return vkfx_fail(VKFX_E_USAGE,
                         "unknown filter '%s'; did you mean '%s'? (vkfx --filters lists them)",
                         name, best);
    return vkfx_fail(VKFX_E_USAGE, "unknown filter '%s' (vkfx --filters lists them)", name);
}

static int fail_unknown_option(const vkfx_filter *f, const char *key)
{
    const vkfx_option *best = NULL;
    size_t best_d = SIZE_MAX;
    char names[512];
    text t = {names, sizeof(names), 0, false};
    names[0] = 0;
    for (const vkfx_option *o = f->options; o && o->name; o++) {
        size_t d = vkfx_edit_distance(key, o->name);
        if (d < best_d) {
            best_d = d;
            best = o;
        }
        text_addf(&t, "%s%s", o == f->options ? "" : ", ", o->name);
    }
    if (!best)
        return vkfx_fail(VKFX_E_USAGE, "%s: unknown option '%s'; %s takes no options", f->name, key,
                         f->name);
    if (best_d <= suggest_limit(key))
        return vkfx_fail(VKFX_E_USAGE, "%s: unknown option '%s'; did you mean '%s'? options: %s",
                         f->name, key, best->name, names);
    return vkfx_fail(VKFX_E_USAGE, "%s: unknown option '%s'; options: %s", f->name, key, names);
}

static size_t count_options(const vkfx_filter *f)
{
    size_t n = 0;
    while (f->options && f->options[n].name)
        n++;
    return n;
}

/* Appends a link with its defaults before any option is parsed, so that
 * vkfx_chain_free releases whatever a failing option leaves behind. */
static int add_link(vkfx_chain *c, size_t *cap, const vkfx_filter *f, vkfx_chain_link **link)
{
    if (c->count == *cap) {
        size_t n = *cap ? 2 * *cap : 4;
        vkfx_chain_link *l = realloc(c->links, n * sizeof(*l));
        if (!l)
            return vkfx_fail(VKFX_E_NOMEM, "out of memory parsing the filter chain");
        c->links = l;
        *cap = n;
    }
    void *params = calloc(1, f->params_size ? f->params_size : 1);
    if (!params)
        return vkfx_fail(VKFX_E_NOMEM, "%s: out of memory for its parameters", f->name);
    vkfx_options_defaults(f, params);
    *link = &c->links[c->count++];
    (*link)->filter = f;
    (*link)->params = params;
    return VKFX_OK;
}

/* Parses the options that follow a link's name, up to the ',' or the end. */
static int parse_options(const char **p, vkfx_chain_link *link)
{
    const vkfx_filter *f = link->filter;
    size_t n = count_options(f);
    bool *given = calloc(n ? n : 1, sizeof(*given));
    char *key = NULL, *value = NULL;
    int ret = VKFX_E_NOMEM;
    if (!given) {
        vkfx_fail(ret, "out of memory parsing the filter chain");
        goto fail;
    }
    while (**p == ':') {
        (*p)++;
        if ((ret = read_field(p, ",:=", &key)) < 0)
            goto fail;
        bool has_eq = **p == '=';
        if (has_eq) {
            (*p)++;
            if ((ret = read_field(p, ",:", &value)) < 0)
                goto fail;
        }
        if (!*key) {
            if (has_eq)
                ret =
                    vkfx_fail(VKFX_E_USAGE, "%s: option name missing before '=%s'", f->name, value);
            else
                ret = vkfx_fail(VKFX_E_USAGE, "%s: empty option (stray ':')", f->name);
            goto fail;
        }
        size_t i = 0;
        while (i < n && strcmp(f->options[i].name, key))
            i++;
        if (i == n) {
            ret = fail_unknown_option(f, key);
            goto fail;
        }
        const vkfx_option *o = &f->options[i];
        if (given[i]) {
            ret = vkfx_fail(VKFX_E_USAGE, "%s: option '%s' given twice", f->name, o->name);
            goto fail;
        }
        given[i] = true;
        if ((ret = vkfx_option_parse(f, o, value, link->params)) < 0)
            goto fail;
        free(key);
        free(value);
        key = value = NULL;
    }
    for (size_t i = 0; i < n; i++) {
        if (f->options[i].required && !given[i]) {
            ret =
                vkfx_fail(VKFX_E_USAGE, "%s: option '%s' is required", f->name, f->options[i].name);
            goto fail;
        }
    }
    ret = f->check ? f->check(link->params) : VKFX_OK;
fail:
    free(given);
    free(key);
    free(value);
    return ret;
}

/* A map a filter reads has the input's size and orientation; after a filter that reshapes the
 * image it would no longer match, and it is refused rather than resampled behind the user's
 * back. */
static int check_maps_after_reshape(const vkfx_chain *c)
{
    const vkfx_filter *reshaper = NULL;
    for (size_t i = 0; i < c->count; i++) {
        const vkfx_chain_link *l = &c->links[i];
        for (const vkfx_option *o = l->filter->options; reshaper && o && o->name; o++)
            if (o->type == VKFX_OPT_PATH && !o->writes && get_path(l->params, o))
                return vkfx_fail(VKFX_E_USAGE,
                                 "%s: %s= comes after %s, which changes the image's size or "
                                 "orientation, and maps are not resampled or turned: put %s "
                                 "before %s",
                                 l->filter->name, o->name, reshaper->name, l->filter->name,
                                 reshaper->name);
        if (l->filter->size)
            reshaper = l->filter;
    }
    return VKFX_OK;
}

int vkfx_chain_size(const vkfx_chain *chain, uint32_t w, uint32_t h, uint32_t *out_w,
                    uint32_t *out_h)
{
    for (size_t i = 0; i < chain->count; i++) {
        const vkfx_chain_link *l = &chain->links[i];
        if (l->filter->size) {
            int ret = l->filter->size(l->params, w, h, &w, &h);
            if (ret < 0)
                return ret;
        }
    }
    *out_w = w;
    *out_h = h;
    return VKFX_OK;
}

bool vkfx_chain_reshapes(const vkfx_chain *chain)
{
    for (size_t i = 0; i < chain->count; i++)
        if (chain->links[i].filter->size)
            return true;
    return false;
}

bool vkfx_chain_grid_bound(const vkfx_chain *chain)
{
    for (size_t i = 0; i < chain->count; i++)
        if (chain->links[i].filter->grid_bound)
            return true;
    return false;
}

int vkfx_chain_parse(const char *text_in, vkfx_chain **out)
{
    *out = NULL;
    vkfx_chain *c = calloc(1, sizeof(*c));
    char *name = NULL;
    size_t cap = 0;
    int ret = VKFX_E_NOMEM;
    if (!c) {
        vkfx_fail(ret, "out of memory parsing the filter chain");
        goto fail;
    }
    if (!text_in) {
        *out = c;
        return VKFX_OK;
    }
    const char *p = text_in;
    for (;;) {
        if ((ret = read_field(&p, ",:", &name)) < 0)
            goto fail;
        if (!*name) {
            if (*p == ':')
                ret = vkfx_fail(VKFX_E_USAGE, "filter name missing before '%s'", p);
            else if (!*p && !c->count)
                ret = vkfx_fail(VKFX_E_USAGE, "empty filter chain (vkfx --filters lists the "
                                              "filters)");
            else
                ret = vkfx_fail(VKFX_E_USAGE, "filter %zu of the chain is empty (stray ',')",
                                c->count + 1);
            goto fail;
        }
        if (has_space(name)) {
            ret = vkfx_fail(VKFX_E_USAGE, "filter name '%s' must not contain spaces", name);
            goto fail;
        }
        const vkfx_filter *f = vkfx_filter_find(name);
        if (!f) {
            ret = fail_unknown_filter(name);
            goto fail;
        }
        free(name);
        name = NULL;
        vkfx_chain_link *link = NULL;
        if ((ret = add_link(c, &cap, f, &link)) < 0)
            goto fail;
        if ((ret = parse_options(&p, link)) < 0)
            goto fail;
        if (!*p)
            break;
        p++; /* the ',' */
    }
    if ((ret = check_maps_after_reshape(c)) < 0)
        goto fail;
    *out = c;
    return VKFX_OK;
fail:
    free(name);
    vkfx_chain_free(c);
    return ret;
}

void vkfx_chain_free(vkfx_chain *chain)
{
    if (!chain)
        return;
    for (size_t i = 0; i < chain->count; i++) {
        vkfx_chain_link *l = &chain->links[i];
        if (!l->params)
            continue;
        for (const vkfx_option *o = l->filter->options; o && o->name; o++)
            if (o->type == VKFX_OPT_PATH)
                free(get_path(l->params, o));
        free(l->params);
    }
    free(chain->links);
    free(chain);
}

int vkfx_chain_paths(const vkfx_chain *chain, vkfx_chain_path_fn fn, void *user)
{
    for (size_t i = 0; chain && i < chain->count; i++) {
        const vkfx_chain_link *l = &chain->links[i];
        for (const vkfx_option *o = l->filter->options; l->params && o && o->name; o++) {
            const char *value = o->type == VKFX_OPT_PATH ? get_path(l->params, o) : NULL;
            int ret = value ? fn(user, l->filter, o, value) : VKFX_OK;
            if (ret < 0)
                return ret;
        }
    }
    return VKFX_OK;
}

/* ---- --help-filter ---- */

enum { COL_NAME, COL_TYPE, COL_DEFAULT, COL_RANGE, COL_HELP, COLS };

/* Cells wider than this spill over instead of widening their column for
 * every row: one long derived default should not push every range right. */
#define CELL_CAP 24
/* Room for one cell: an option's help may run to a few lines. */
#define CELL_SIZE 1024

static void describe_cells(const vkfx_option *o, char cell[COLS][CELL_SIZE])
{
    text t[COLS];
    for (int c = 0; c < COLS; c++) {
        cell[c][0] = 0;
        t[c] = (text){cell[c], sizeof(cell[c]), 0, false};
    }
    text_addf(&t[COL_NAME], "%s", o->name);
    switch (o->type) {
    case VKFX_OPT_INT:
        text_addf(&t[COL_TYPE], "int");
        break;
    case VKFX_OPT_FLOAT:
        text_addf(&t[COL_TYPE], "float");
        break;
    case VKFX_OPT_BOOL:
        text_addf(&t[COL_TYPE], "0|1");
        break;
    case VKFX_OPT_CHOICE:
        choices_list(o, "|", &t[COL_TYPE]);
        break;
    case VKFX_OPT_PATH:
        text_addf(&t[COL_TYPE], "file");
        break;
    }
    if (o->required) {
        text_addf(&t[COL_DEFAULT], "required");
    } else if (o->def_text) {
        text_addf(&t[COL_DEFAULT], "default %s", o->def_text);
    } else {
        switch (o->type) {
        case VKFX_OPT_INT:
        case VKFX_OPT_FLOAT:
            if (o->unset_default)
                text_addf(&t[COL_DEFAULT], "default unset");
            else if (o->type == VKFX_OPT_INT)
                text_addf(&t[COL_DEFAULT], "default %.0f", o->def);
            else
                text_addf(&t[COL_DEFAULT], "default %g", o->def);
            break;
        case VKFX_OPT_BOOL:
            text_addf(&t[COL_DEFAULT], "default %d", o->def != 0);
            break;
        case VKFX_OPT_CHOICE: {
            size_t n = 0;
            while (o->choices && o->choices[n])
                n++;
            /* Range-checked as a double: a negative double converted to
             * size_t is undefined, and a bad table should still print. */
            bool ok = o->def >= 0 && o->def < (double)n;
            text_addf(&t[COL_DEFAULT], "default %s", ok ? o->choices[(size_t)o->def] : "?");
            break;
        }
        case VKFX_OPT_PATH:
            text_addf(&t[COL_DEFAULT], "optional");
            break;
        }
    }
    if (o->type == VKFX_OPT_INT)
        text_addf(&t[COL_RANGE], "range %.0f..%.0f", o->min, o->max);
    else if (o->type == VKFX_OPT_FLOAT)
        text_addf(&t[COL_RANGE], "range %g..%g", o->min, o->max);
    if (o->help)
        text_addf(&t[COL_HELP], "%s", o->help);
}

int vkfx_filter_describe(const vkfx_filter *f, char *buf, size_t size)
{
    text t = {buf, size, 0, false};
    if (size)
        buf[0] = 0;
    text_addf(&t, "%s: %s\n", f->name, f->help ? f->help : "");

    size_t width[COLS] = {0};
    char cell[COLS][CELL_SIZE];
    for (const vkfx_option *o = f->options; o && o->name; o++) {
        describe_cells(o, cell);
        for (int c = 0; c < COLS; c++) {
            size_t w = strlen(cell[c]);
            if (w <= CELL_CAP && w > width[c])
                width[c] = w;
        }
    }
    if (!f->options || !f->options[0].name)
        text_addf(&t, "  (no options)\n");
    for (const vkfx_option *o = f->options; o && o->name; o++) {
        describe_cells(o, cell);
        int last = COLS - 1;
        while (last > 0 && !cell[last][0])
            last--;
        text_addf(&t, " ");
        for (int c = 0; c <= last; c++) {
            /* Pad every cell but the last so later columns line up, and keep
             * two spaces after an overlong one so cells never run together. */
            size_t w = strlen(cell[c]);
            if (!w && !width[c])
                continue;
            int pad = c == last ? 0 : (int)(w < width[c] ? width[c] - w : 0) + 1;
            text_addf(&t, " %s%*s", cell[c], pad, "");
        }
        text_addf(&t, "\n");
    }
    if (f->details)
        text_addf(&t, "\n%s\n", f->details);
    if (f->fast)
        text_addf(&t, "\n--fast: %s\n", f->fast);
    else
        text_addf(&t, "\n--fast: no faster path; the same bytes on every device either way.\n");
    if (t.overflow)
        return vkfx_fail(VKFX_E_USAGE, "%s: the help text does not fit in %zu bytes", f->name,
                         size);
    return VKFX_OK;
}

const vkfx_filter *vkfx_chain_tiling(const vkfx_chain *chain, uint64_t *reach, vkfx_align *align)
{
    *reach = 0;
    *align = (vkfx_align){1, 1};
    for (size_t i = 0; i < chain->count; i++) {
        const vkfx_filter *f = chain->links[i].filter;
        uint32_t r = f->reach ? f->reach(chain->links[i].params) : VKFX_REACH_ALL;
        if (r == VKFX_REACH_ALL)
            return f;
        *reach += r;
        if (f->align)
            *align = vkfx_align_join(*align, f->align(chain->links[i].params));
    }
    return NULL;
}
