/* The chain parser against the registry's gauss, box, sobel and cartoon:
 * values land in the right fields, and every mistake a user can make gets a
 * usage error whose one line names the filter, option, value and what is
 * allowed. Fields are read through the option rows, so these tests know the
 * filters only by their documented options (FILTERS.md). */
#include <criterion/criterion.h>

#include "leak.h"
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chain.h"
#include "error.h"
#include "filter.h"

static const vkfx_option *row(const vkfx_filter *f, const char *name)
{
    for (const vkfx_option *o = f->options; o && o->name; o++)
        if (!strcmp(o->name, name))
            return o;
    cr_assert_fail("%s has no option '%s'", f->name, name);
    return NULL;
}

static const void *at(const vkfx_chain_link *l, const char *name, vkfx_opt_type type)
{
    const vkfx_option *o = row(l->filter, name);
    cr_assert_eq(o->type, type, "%s:%s has type %d, expected %d", l->filter->name, name, o->type,
                 type);
    return (const char *)l->params + o->offset;
}

static double get_float(const vkfx_chain_link *l, const char *name)
{
    double v;
    memcpy(&v, at(l, name, VKFX_OPT_FLOAT), sizeof(v));
    return v;
}

static int32_t get_int(const vkfx_chain_link *l, const char *name)
{
    int32_t v;
    memcpy(&v, at(l, name, VKFX_OPT_INT), sizeof(v));
    return v;
}

static bool get_bool(const vkfx_chain_link *l, const char *name)
{
    bool v;
    memcpy(&v, at(l, name, VKFX_OPT_BOOL), sizeof(v));
    return v;
}

static const vkfx_filter *find(const char *name)
{
    const vkfx_filter *f = vkfx_filter_find(name);
    cr_assert_not_null(f, "registry has no '%s'", name);
    return f;
}

static vkfx_chain *parse_ok(const char *text)
{
    vkfx_chain *c = (vkfx_chain *)1;
    vkfx_error_clear();
    int rc = vkfx_chain_parse(text, &c);
    cr_assert_eq(rc, VKFX_OK, "'%s' failed: %s", text, vkfx_error_message());
    cr_assert_not_null(c);
    return c;
}

/* Parses text, expects a usage error and checks that its message is one line
 * holding every one of the NULL-terminated words. */
static void expect_error(const char *text, ...)
{
    vkfx_chain *c = (vkfx_chain *)1;
    vkfx_error_clear();
    int rc = vkfx_chain_parse(text, &c);
    const char *msg = vkfx_error_message();
    cr_assert_eq(rc, VKFX_E_USAGE, "'%s' gave %d (%s), expected a usage error", text, rc, msg);
    cr_assert_null(c, "'%s' failed but left a chain", text);
    cr_assert_null(strchr(msg, '\n'), "message for '%s' is not one line: %s", text, msg);
    va_list ap;
    va_start(ap, text);
    for (const char *w; (w = va_arg(ap, const char *));)
        cr_expect_not_null(strstr(msg, w), "message for '%s' lacks \"%s\": %s", text, w, msg);
    va_end(ap);
}

static void expect_no(const char *text, const char *word)
{
    vkfx_chain *c = NULL;
    cr_assert_eq(vkfx_chain_parse(text, &c), VKFX_E_USAGE);
    cr_expect_null(strstr(vkfx_error_message(), word), "message for '%s' has \"%s\": %s", text,
                   word, vkfx_error_message());
}

/* "0.1..1000" as the table states it, so the tests follow the table. */
static const char *range(const char *filter, const char *option)
{
    static char buf[4][64];
    static int next;
    const vkfx_option *o = row(find(filter), option);
    char *b = buf[next++ % 4];
    snprintf(b, sizeof(buf[0]), "%g..%g", o->min, o->max);
    return b;
}

/* ---- successful parses ---- */

TEST(chain, defaults_follow_filters_md)
{
    vkfx_chain *c = parse_ok("gauss,box,sobel,cartoon");
    cr_assert_eq(c->count, 4);
    cr_expect_float_eq(get_float(&c->links[0], "sigma"), 1.0, 1e-12);
    cr_expect_eq(get_int(&c->links[0], "radius"), VKFX_UNSET, "gauss radius is derived");
    cr_expect_eq(get_int(&c->links[1], "radius"), 1);
    cr_expect_eq(get_bool(&c->links[2], "invert"), false);
    cr_expect_float_eq(get_float(&c->links[2], "gain"), 1.0, 1e-12);
    cr_expect_float_eq(get_float(&c->links[3], "sigma"), 2.0, 1e-12);
    cr_expect_float_eq(get_float(&c->links[3], "gain"), 4.0, 1e-12);
    vkfx_chain_free(c);
}

TEST(chain, values_land_in_their_fields)
{
    vkfx_chain *c = parse_ok("gauss:radius=7:sigma=3,box:radius=15,sobel:gain=2.5:invert=1,"
                             "cartoon:gain=0:sigma=0.5");
    cr_assert_eq(c->count, 4);
    cr_expect_float_eq(get_float(&c->links[0], "sigma"), 3.0, 1e-12);
    cr_expect_eq(get_int(&c->links[0], "radius"), 7);
    cr_expect_eq(get_int(&c->links[1], "radius"), 15);
    cr_expect_eq(get_bool(&c->links[2], "invert"), true);
    cr_expect_float_eq(get_float(&c->links[2], "gain"), 2.5, 1e-12);
    cr_expect_float_eq(get_float(&c->links[3], "sigma"), 0.5, 1e-12);
    cr_expect_float_eq(get_float(&c->links[3], "gain"), 0.0, 1e-12);
    vkfx_chain_free(c);
}

TEST(chain, links_keep_their_order)
{
    vkfx_chain *c = parse_ok("sobel:invert=1,gauss:sigma=3,box,gauss:sigma=4,cartoon");
    const char *want[] = {"sobel", "gauss", "box", "gauss", "cartoon"};
    cr_assert_eq(c->count, 5);
    for (size_t i = 0; i < 5; i++) {
        cr_expect_eq(c->links[i].filter, find(want[i]), "link %zu", i);
        cr_expect_not_null(c->links[i].params);
    }
    /* The same filter twice has two separate params blocks. */
    cr_expect_neq(c->links[1].params, c->links[3].params);
    cr_expect_float_eq(get_float(&c->links[1], "sigma"), 3.0, 1e-12);
    cr_expect_float_eq(get_float(&c->links[3], "sigma"), 4.0, 1e-12);
    vkfx_chain_free(c);
}

TEST(chain, whitespace_is_trimmed)
{
    vkfx_chain *c = parse_ok("  gauss : sigma = 2.5 ,\tsobel:invert = yes : gain=\t3 ");
    cr_assert_eq(c->count, 2);
    cr_expect_eq(c->links[0].filter, find("gauss"));
    cr_expect_float_eq(get_float(&c->links[0], "sigma"), 2.5, 1e-12);
    cr_expect_eq(c->links[1].filter, find("sobel"));
    cr_expect_eq(get_bool(&c->links[1], "invert"), true);
    cr_expect_float_eq(get_float(&c->links[1], "gain"), 3.0, 1e-12);
    vkfx_chain_free(c);
}

TEST(chain, bool_spellings)
{
    static const struct {
        const char *text;
        bool want;
    } cases[] = {
        {"1", true},  {"true", true},   {"yes", true}, {"on", true},   {"TRUE", true},
        {"0", false}, {"false", false}, {"no", false}, {"off", false}, {"Off", false},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char text[64];
        snprintf(text, sizeof(text), "sobel:invert=%s", cases[i].text);
        vkfx_chain *c = parse_ok(text);
        cr_expect_eq(get_bool(&c->links[0], "invert"), cases[i].want, "%s", text);
        vkfx_chain_free(c);
    }
}

TEST(chain, number_spellings)
{
    static const struct {
        const char *text;
        double want;
    } cases[] = {{"1e1", 10}, {".5", 0.5}, {"+2", 2}, {"2.", 2}, {"1000", 1000}, {"0.1", 0.1}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char text[64];
        snprintf(text, sizeof(text), "gauss:sigma=%s", cases[i].text);
        vkfx_chain *c = parse_ok(text);
        cr_expect_float_eq(get_float(&c->links[0], "sigma"), cases[i].want, 1e-12, "%s", text);
        vkfx_chain_free(c);
    }
    vkfx_chain *c = parse_ok("box:radius=007,box:radius=+3,box:radius=0,box:radius=4096");
    cr_expect_eq(get_int(&c->links[0], "radius"), 7);
    cr_expect_eq(get_int(&c->links[1], "radius"), 3);
    cr_expect_eq(get_int(&c->links[2], "radius"), 0, "box radius 0 is the identity");
    cr_expect_eq(get_int(&c->links[3], "radius"), 4096);
    vkfx_chain_free(c);
}

TEST(chain, escapes_are_removed)
{
    vkfx_chain *c = parse_ok("ga\\uss:sig\\ma=\\2,\\sobel");
    cr_assert_eq(c->count, 2);
    cr_expect_eq(c->links[0].filter, find("gauss"));
    cr_expect_float_eq(get_float(&c->links[0], "sigma"), 2.0, 1e-12);
    cr_expect_eq(c->links[1].filter, find("sobel"));
    vkfx_chain_free(c);
}

TEST(chain, escaped_separators_do_not_split)
{
    /* Each escaped separator stays in the value, which then is no number:
     * proof that it neither ended the link nor the option. */
    expect_error("gauss:sigma=1\\,5", "gauss", "sigma", "'1,5'", "not a number", NULL);
    expect_error("gauss:sigma=2\\:radius=3", "'2:radius=3'", "not a number", NULL);
    expect_error("gauss:sigma=2\\=3", "'2=3'", "not a number", NULL);
    expect_error("gauss:sigma=2\\\\", "'2\\'", "not a number", NULL);
    /* An escaped space is kept, not trimmed. */
    expect_error("gauss:sigma=2\\ ", "'2 '", "not a number", NULL);
    /* Only the first '=' splits key from value. */
    expect_error("gauss:sigma=2=3", "'2=3'", "not a number", NULL);
    expect_error("gauss:sigma\\=2", "unknown option 'sigma=2'", NULL);
}

/* ---- chain-level errors ---- */

TEST(chain, lone_backslash)
{
    expect_error("gauss:sigma=3\\", "lone", "'\\'", NULL);
    expect_error("gauss\\", "lone", NULL);
    expect_error("\\", "lone", NULL);
}

TEST(chain, empty_chain)
{
    expect_error("", "empty filter chain", NULL);
    expect_error("   ", "empty filter chain", NULL);
}

/* No text at all (no -f) is the chain of no filters: a conversion. */
TEST(chain, no_text_is_no_filters)
{
    vkfx_chain *c = NULL;
    cr_assert_eq(vkfx_chain_parse(NULL, &c), VKFX_OK, "%s", vkfx_error_message());
    cr_assert(c && c->count == 0, "NULL gave a chain of %zu filters", c ? c->count : 0);
    vkfx_chain_free(c);
}

TEST(chain, empty_link)
{
    expect_error("gauss,,sobel", "filter 2", "empty", NULL);
    expect_error("gauss, ,sobel", "filter 2", "empty", NULL);
    expect_error(",gauss", "filter 1", "empty", NULL);
    expect_error("gauss,", "filter 2", "empty", NULL);
    expect_error("gauss:sigma=2,", "filter 2", "empty", NULL);
}

TEST(chain, missing_filter_name)
{
    expect_error(":sigma=3", "filter name missing", ":sigma=3", NULL);
    expect_error("gauss,:sigma=3", "filter name missing", NULL);
}

TEST(chain, space_inside_name)
{
    expect_error("gau ss", "'gau ss'", "spaces", NULL);
    expect_error("gauss:sigma=1,sob el", "'sob el'", "spaces", NULL);
}

TEST(chain, unknown_filter_suggests_closest)
{
    expect_error("gaus", "unknown filter 'gaus'", "did you mean 'gauss'?", "vkfx --filters", NULL);
    expect_error("sobl:invert=1", "unknown filter 'sobl'", "did you mean 'sobel'?", NULL);
    expect_error("gauss,carton", "unknown filter 'carton'", "did you mean 'cartoon'?", NULL);
    expect_error("GAUSS", "unknown filter 'GAUSS'", "did you mean 'gauss'?", NULL);
}

TEST(chain, unknown_filter_far_from_all)
{
    expect_error("qqqqqqqq", "unknown filter 'qqqqqqqq'", "vkfx --filters lists them", NULL);
    expect_no("qqqqqqqq", "did you mean");
}

/* ---- option errors ---- */

TEST(chain, unknown_option_suggests_closest)
{
    expect_error("gauss:sigam=3", "gauss: unknown option 'sigam'", "did you mean 'sigma'?",
                 "options: sigma, radius", NULL);
    expect_error("box:raduis=3", "box: unknown option 'raduis'", "did you mean 'radius'?",
                 "options: radius", NULL);
    expect_error("sobel:inverted=1", "sobel: unknown option 'inverted'", "'invert'", NULL);
    /* Option names match exactly; the suggestion shows the right case. */
    expect_error("cartoon:Gain=2", "cartoon: unknown option 'Gain'", "did you mean 'gain'?", NULL);
}

TEST(chain, unknown_option_far_from_all)
{
    expect_error("gauss:qqqqqqq=3", "gauss: unknown option 'qqqqqqq'", "options: sigma, radius",
                 NULL);
    expect_no("gauss:qqqqqqq=3", "did you mean");
}

TEST(chain, option_given_twice)
{
    expect_error("gauss:sigma=1:sigma=2", "gauss", "'sigma'", "twice", NULL);
    expect_error("gauss:sigma=1:radius=2:sigma=1", "gauss", "'sigma'", "twice", NULL);
}

TEST(chain, option_needs_value)
{
    char want[96];
    snprintf(want, sizeof(want), "gauss: option 'sigma' needs a value (number %s)",
             range("gauss", "sigma"));
    expect_error("gauss:sigma", want, NULL);
    expect_error("gauss:sigma=", want, NULL);
    expect_error("gauss:sigma=  ", want, NULL);
    expect_error("gauss:sigma,box", want, NULL);
    snprintf(want, sizeof(want), "box: option 'radius' needs a value (integer %s)",
             range("box", "radius"));
    expect_error("box:radius=", want, NULL);
    expect_error("sobel:invert", "sobel: option 'invert' needs a value (0 or 1)", NULL);
}

TEST(chain, empty_option)
{
    expect_error("gauss:", "gauss", "empty option", NULL);
    expect_error("gauss::sigma=1", "gauss", "empty option", NULL);
    expect_error("gauss:=3", "gauss", "option name missing", "'=3'", NULL);
}

TEST(chain, not_a_number)
{
    /* Decimal only: strtod's hexadecimal forms (0x10 is 16) are no number here either. */
    static const char *const bad[] = {"abc",      "3x",     "nan",    "inf",      "-inf",
                                      "infinity", "1.5.2",  "--1",    "1 2",      "0x10",
                                      "-0x10",    "0X1p4",  "0x1.8p1", "nan(1)",  ".",
                                      "1e+",      "e5",     "+"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char text[64], want[64];
        snprintf(text, sizeof(text), "gauss:sigma=%s", bad[i]);
        snprintf(want, sizeof(want), "gauss: sigma='%s' is not a number", bad[i]);
        expect_error(text, want, NULL);
    }
    expect_error("sobel:gain=1e", "sobel: gain='1e' is not a number", NULL);
    expect_error("cartoon:sigma=x2", "cartoon: sigma='x2' is not a number", NULL);
}

TEST(chain, not_an_integer)
{
    expect_error("box:radius=1.5", "box: radius='1.5' is not an integer", NULL);
    expect_error("box:radius=abc", "box: radius='abc' is not an integer", NULL);
    expect_error("box:radius=3x", "box: radius='3x' is not an integer", NULL);
    expect_error("gauss:radius=2.0", "gauss: radius='2.0' is not an integer", NULL);
    expect_error("box:radius=0x10", "box: radius='0x10' is not an integer", NULL);
}

TEST(chain, decimal_forms)
{
    vkfx_chain *c = parse_ok("gauss:sigma=.5,gauss:sigma=5.,gauss:sigma=+1e1,gauss:sigma=25E-1");
    cr_expect_float_eq(get_float(&c->links[0], "sigma"), 0.5, 1e-12);
    cr_expect_float_eq(get_float(&c->links[1], "sigma"), 5.0, 1e-12);
    cr_expect_float_eq(get_float(&c->links[2], "sigma"), 10.0, 1e-12);
    cr_expect_float_eq(get_float(&c->links[3], "sigma"), 2.5, 1e-12);
    vkfx_chain_free(c);
}

TEST(chain, out_of_range)
{
    char want[96];
    const char *r = range("gauss", "sigma");
    snprintf(want, sizeof(want), "gauss: sigma=0 is out of range %s", r);
    expect_error("gauss:sigma=0", want, NULL);
    snprintf(want, sizeof(want), "gauss: sigma=-2 is out of range %s", r);
    expect_error("gauss:sigma=-2", want, NULL);
    snprintf(want, sizeof(want), "gauss: sigma=1e6 is out of range %s", r);
    expect_error("gauss:sigma=1e6", want, NULL);
    snprintf(want, sizeof(want), "gauss: sigma=1e999 is out of range %s", r);
    expect_error("gauss:sigma=1e999", want, NULL);

    r = range("box", "radius");
    snprintf(want, sizeof(want), "box: radius=-1 is out of range %s", r);
    expect_error("box:radius=-1", want, NULL);
    snprintf(want, sizeof(want), "box: radius=%g is out of range %s",
             row(find("box"), "radius")->max + 1, r);
    char text[64];
    snprintf(text, sizeof(text), "box:radius=%g", row(find("box"), "radius")->max + 1);
    expect_error(text, want, NULL);
    /* Too big for any integer type: out of range, not wrapped into range. */
    expect_error("box:radius=99999999999999999999", "box: radius=99999999999999999999",
                 "out of range", NULL);
    expect_error("box:radius=4294967297", "box: radius=4294967297", "out of range", NULL);
    expect_error("gauss:radius=0", "gauss: radius=0 is out of range", range("gauss", "radius"),
                 NULL);
    expect_error("sobel:gain=-0.5", "sobel: gain=-0.5 is out of range", range("sobel", "gain"),
                 NULL);
}

TEST(chain, bad_bool)
{
    expect_error("sobel:invert=2", "sobel: invert='2' must be 0 or 1", NULL);
    expect_error("sobel:invert=maybe", "sobel: invert='maybe' must be 0 or 1", NULL);
    expect_error("sobel:invert=01", "sobel: invert='01' must be 0 or 1", NULL);
}

TEST(chain, error_in_a_later_link_frees_earlier_ones)
{
    /* ASan's leak check fails this test if the first links are leaked. */
    expect_error("gauss:sigma=2,box:radius=3,sobel:invert=x", "sobel", "'x'", NULL);
    expect_error("gauss:sigma=2,gaus", "unknown filter 'gaus'", NULL);
    expect_error("gauss:sigma=2,box,", "filter 3", "empty", NULL);
}

TEST(chain, free_accepts_null)
{
    vkfx_chain_free(NULL);
}

/* ---- the single-option API ---- */

TEST(options, defaults_and_parse)
{
    const vkfx_filter *f = find("gauss");
    void *params = calloc(1, f->params_size);
    cr_assert_not_null(params);
    memset(params, 0x5a, f->params_size);
    vkfx_options_defaults(f, params);
    vkfx_chain_link l = {f, params};
    cr_expect_float_eq(get_float(&l, "sigma"), 1.0, 1e-12);
    cr_expect_eq(get_int(&l, "radius"), VKFX_UNSET);

    cr_expect_eq(vkfx_option_parse(f, row(f, "sigma"), "7.25", params), VKFX_OK);
    cr_expect_float_eq(get_float(&l, "sigma"), 7.25, 1e-12);
    cr_expect_eq(vkfx_option_parse(f, row(f, "radius"), "12", params), VKFX_OK);
    cr_expect_eq(get_int(&l, "radius"), 12);

    /* A failed parse leaves the field as it was. */
    cr_expect_eq(vkfx_option_parse(f, row(f, "sigma"), "0", params), VKFX_E_USAGE);
    cr_expect_float_eq(get_float(&l, "sigma"), 7.25, 1e-12);
    cr_expect_eq(vkfx_option_parse(f, row(f, "sigma"), NULL, params), VKFX_E_USAGE);
    cr_expect_not_null(strstr(vkfx_error_message(), "needs a value"));
    cr_expect_eq(vkfx_option_parse(f, row(f, "sigma"), "", params), VKFX_E_USAGE);
    free(params);
}

/* ---- edit distance ---- */

TEST(edit_distance, levenshtein)
{
    cr_expect_eq(vkfx_edit_distance("", ""), 0);
    cr_expect_eq(vkfx_edit_distance("", "abc"), 3);
    cr_expect_eq(vkfx_edit_distance("abc", ""), 3);
    cr_expect_eq(vkfx_edit_distance("kitten", "sitting"), 3);
    cr_expect_eq(vkfx_edit_distance("sitting", "kitten"), 3);
    cr_expect_eq(vkfx_edit_distance("gaus", "gauss"), 1);
    cr_expect_eq(vkfx_edit_distance("sigam", "sigma"), 2);
    cr_expect_eq(vkfx_edit_distance("flaw", "lawn"), 2);
    cr_expect_eq(vkfx_edit_distance("box", "box"), 0);
}

TEST(edit_distance, ignores_case)
{
    cr_expect_eq(vkfx_edit_distance("GAUSS", "gauss"), 0);
    cr_expect_eq(vkfx_edit_distance("SoBeL", "sobel"), 0);
    cr_expect_eq(vkfx_edit_distance("Gaus", "gauss"), 1);
    cr_expect_eq(vkfx_edit_distance("gauss", "GAUSS"), 0);
    cr_expect_eq(vkfx_edit_distance("gaus", "GAUSS"), 1);
}

TEST(edit_distance, long_strings)
{
    /* Longer than any stack buffer an implementation might keep. */
    char a[301], b[301];
    memset(a, 'a', 300);
    memset(b, 'a', 300);
    a[300] = b[300] = 0;
    b[150] = 'b';
    cr_expect_eq(vkfx_edit_distance(a, b), 1);
    cr_expect_eq(vkfx_edit_distance(a, "a"), 299);
}

/* ---- --help-filter ---- */

/* Column of the first occurrence of word in the line that starts with
 * "  name" in text, or -1. */
static int column_of(const char *text, const char *name, const char *word)
{
    char head[64];
    snprintf(head, sizeof(head), "\n  %s ", name);
    const char *line = strstr(text, head);
    if (!line)
        return -1;
    line++;
    const char *end = strchr(line, '\n');
    const char *w = strstr(line, word);
    if (!w || (end && w > end))
        return -1;
    return (int)(w - line);
}

TEST(describe, gauss_rows)
{
    const vkfx_filter *f = find("gauss");
    char buf[4096];
    cr_assert_eq(vkfx_filter_describe(f, buf, sizeof(buf)), VKFX_OK, "%s", vkfx_error_message());
    char first[256];
    snprintf(first, sizeof(first), "gauss: %s\n", f->help);
    cr_expect_eq(strncmp(buf, first, strlen(first)), 0, "starts with the help line: %s", buf);

    char want[128];
    snprintf(want, sizeof(want), "range %s", range("gauss", "sigma"));
    cr_expect_not_null(strstr(buf, want), "%s", buf);
    snprintf(want, sizeof(want), "range %s", range("gauss", "radius"));
    cr_expect_not_null(strstr(buf, want), "%s", buf);
    cr_expect_not_null(strstr(buf, "default 1 "), "%s", buf);
    const vkfx_option *radius = row(f, "radius");
    if (radius->def_text) {
        snprintf(want, sizeof(want), "default %s", radius->def_text);
        cr_expect_not_null(strstr(buf, want), "%s", buf);
    }
    cr_expect_not_null(strstr(buf, row(f, "sigma")->help), "%s", buf);

    /* Types line up in one column. */
    int ts = column_of(buf, "sigma", "float"), tr = column_of(buf, "radius", "int");
    cr_expect_gt(ts, 0, "%s", buf);
    cr_expect_eq(ts, tr, "type columns differ:\n%s", buf);
    int ds = column_of(buf, "sigma", "default"), dr = column_of(buf, "radius", "default");
    cr_expect_gt(ds, ts);
    cr_expect_eq(ds, dr, "default columns differ:\n%s", buf);
    cr_expect_null(strstr(buf, " \n"), "no trailing spaces:\n%s", buf);
}

TEST(describe, bool_and_details)
{
    char buf[4096];
    cr_assert_eq(vkfx_filter_describe(find("sobel"), buf, sizeof(buf)), VKFX_OK);
    cr_expect_gt(column_of(buf, "invert", "0|1"), 0, "%s", buf);
    cr_expect_gt(column_of(buf, "gain", "float"), 0, "%s", buf);
    cr_expect_eq(column_of(buf, "invert", "0|1"), column_of(buf, "gain", "float"), "%s", buf);
    cr_expect_eq(column_of(buf, "invert", "default"), column_of(buf, "gain", "default"), "%s", buf);

    const vkfx_filter *f = find("cartoon");
    cr_assert_eq(vkfx_filter_describe(f, buf, sizeof(buf)), VKFX_OK);
    if (f->details)
        cr_expect_not_null(strstr(buf, f->details), "%s", buf);
    cr_expect_not_null(strstr(buf, "default 4"), "%s", buf);
}

TEST(describe, too_small_buffer)
{
    char buf[16];
    memset(buf, 'x', sizeof(buf));
    cr_expect_eq(vkfx_filter_describe(find("gauss"), buf, sizeof(buf)), VKFX_E_USAGE);
    cr_expect_lt(strlen(buf), sizeof(buf), "truncated text stays terminated");
    cr_expect_eq(vkfx_filter_describe(find("gauss"), NULL, 0), VKFX_E_USAGE);
}

/* Every option a filter names as a length in pixels is one of its number options: a typo in
 * pixel_options would leave that length unscaled in the preview's draft. */
TEST(pixels, every_pixel_option_is_a_number_option)
{
    int named = 0;
    for (const vkfx_filter *const *f = vkfx_filters; *f; f++)
        for (const char *const *n = (*f)->pixel_options; n && *n; n++) {
            const vkfx_option *o = row(*f, *n);
            cr_expect(o->type == VKFX_OPT_INT || o->type == VKFX_OPT_FLOAT,
                      "%s:%s is a length in pixels but not a number", (*f)->name, *n);
            cr_expect(vkfx_option_in_pixels(*f, o), "%s:%s", (*f)->name, *n);
            named++;
        }
    cr_expect_geq(named, 12, "only %d options are lengths in pixels", named);
    cr_expect_not(vkfx_option_in_pixels(find("dof"), row(find("dof"), "focus")));
    cr_expect_not(vkfx_option_in_pixels(find("bokeh"), row(find("bokeh"), "threshold")));
}

/* Scaled as the chain would be written for the image scaled: lengths only, integers rounded
 * halves up, both kept in range, a derived value left to follow. */
TEST(pixels, scaling_lengths)
{
    vkfx_chain *c = parse_ok("gauss:sigma=3:radius=5,gauss:sigma=0.2,box:radius=1,bilateral:"
                             "sigma_s=8:sigma_r=0.3,satblur:radius=7:scale=40,"
                             "dof:depth=d.png:focus=0.7:range=0.2:maxcoc=12,sobel:gain=3");
    for (size_t i = 0; i < c->count; i++)
        vkfx_params_scale_pixels(c->links[i].filter, c->links[i].params, 0.3);
    cr_expect_float_eq(get_float(&c->links[0], "sigma"), 0.9, 1e-12);
    cr_expect_eq(get_int(&c->links[0], "radius"), 2); /* 1.5, halves up */
    cr_expect_float_eq(get_float(&c->links[1], "sigma"), 0.1, 1e-12, "kept at its least");
    cr_expect_eq(get_int(&c->links[1], "radius"), VKFX_UNSET, "derived from the scaled sigma");
    cr_expect_eq(get_int(&c->links[2], "radius"), 0);
    cr_expect_float_eq(get_float(&c->links[3], "sigma_s"), 2.4, 1e-12);
    cr_expect_float_eq(get_float(&c->links[3], "sigma_r"), 0.3, 1e-12, "not a length");
    cr_expect_eq(get_int(&c->links[4], "radius"), 2);
    cr_expect_float_eq(get_float(&c->links[4], "scale"), 12, 1e-12);
    cr_expect_float_eq(get_float(&c->links[5], "maxcoc"), 3.6, 1e-12);
    cr_expect_float_eq(get_float(&c->links[5], "focus"), 0.7, 1e-12, "not a length");
    cr_expect_float_eq(get_float(&c->links[5], "range"), 0.2, 1e-12, "not a length");
    cr_expect_float_eq(get_float(&c->links[6], "gain"), 3, 1e-12, "not a length");
    vkfx_chain_free(c);
    c = parse_ok("bilateral:sigma_s=30:radius=60");
    vkfx_params_scale_pixels(c->links[0].filter, c->links[0].params, 4);
    cr_expect_float_eq(get_float(&c->links[0], "sigma_s"), 32, 1e-12, "kept at its greatest");
    cr_expect_eq(get_int(&c->links[0], "radius"), 64, "kept at its greatest");
    vkfx_chain_free(c);
}
