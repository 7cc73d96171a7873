/* libFuzzer target for the JSON codec (RFC 8259). Any input is either refused or parsed into a
 * value whose every span lies inside it; each accessor then agrees with the others, and the
 * writer, fed what the accessors read, produces a document that parses and re-writes to itself.
 * The accessors are also run on the raw input as if it were a span: they must stay inside it. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "zq/json.h"
#include "zq/utf8.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_INPUT 65536

static void require(bool ok)
{
    if (!ok) {
        __builtin_trap();
    }
}

static const char *base;
static size_t base_len;

static bool inside(json_value_t v)
{
    return v.p >= base && v.len <= base_len && (size_t)(v.p - base) <= base_len - v.len;
}

static char text[MAX_INPUT + 1]; /* an unescaped string is never longer than its JSON */

/* The string accessors agree: the copy is UTF-8 of the size reported, equal to the span. */
static size_t check_string(json_value_t v)
{
    size_t len = 0;
    zq_err_t err = json_get_string(v, text, sizeof text, &len);
    require(err == ZQ_OK);
    require(len < v.len && text[len] == '\0');
    require(zq_utf8_valid((const uint8_t *)text, len));
    require(json_string_equals_n(v, text, len));
    if (len > 0) {
        require(!json_string_equals_n(v, text, len - 1));
    }
    char small[4];
    size_t need = 0;
    err = json_get_string(v, small, sizeof small, &need);
    require(need == len && (err == ZQ_OK) == (len < sizeof small));
    return len;
}

/* A count agrees with the double within its flooring (the double may round up to the next
 * whole number), and is refused for a negative number only. */
static void check_count(json_value_t v, zq_err_t double_err, double d)
{
    uint32_t c;
    zq_err_t err = json_get_count(v, &c);
    require(err == ZQ_OK || err == ZQ_ERR_INVALID_ARG || err == ZQ_ERR_TOO_LONG);
    if (err == ZQ_OK && double_err == ZQ_OK && d < 4e9) {
        require(d >= 0.0 && (double)c <= d && d < (double)c + 2.0);
    }
    if (err == ZQ_ERR_INVALID_ARG) {
        require(double_err != ZQ_OK || d <= 0.0); /* -1e-400 is -0 as a double */
    }
}

/* A number reads as a double (or overflows), and json_double() writes it as a valid number. */
static void check_number(json_value_t v)
{
    int64_t i;
    zq_err_t err = json_get_int64(v, &i);
    require(err == ZQ_OK || err == ZQ_ERR_INVALID_ARG || err == ZQ_ERR_TOO_LONG);
    double d = 0;
    err = json_get_double(v, &d);
    require(err == ZQ_OK || err == ZQ_ERR_TOO_LONG);
    check_count(v, err, d);
    if (err != ZQ_OK) {
        return;
    }
    uint8_t buf[64];
    json_writer_t w;
    json_writer_init(&w, buf, sizeof buf);
    json_double(&w, d);
    size_t n = json_finish(&w);
    require(n > 0);
    json_value_t back;
    require(json_parse((const char *)buf, n, &back) == ZQ_OK && json_type(back) == JSON_NUMBER);
}

static void write_scalar(json_writer_t *w, json_value_t v)
{
    json_type_t t = json_type(v);
    require(t != JSON_INVALID && t != JSON_ARRAY && t != JSON_OBJECT);
    bool b;
    require(json_get_bool(v, &b) == (t == JSON_TRUE || t == JSON_FALSE));
    if (t == JSON_STRING) {
        size_t len = check_string(v);
        json_string(w, text, len);
    } else if (t == JSON_NUMBER) {
        check_number(v);
        json_raw(w, v);
    } else {
        json_raw(w, v);
    }
}

typedef struct {
    json_value_t container;
    json_iter_t it;
    bool object;
    size_t members;
} frame_t;

static frame_t stack[ZQ_JSON_MAX_DEPTH];

static void open_container(json_writer_t *w, json_value_t v, size_t *depth)
{
    require(*depth < ZQ_JSON_MAX_DEPTH);
    frame_t *f = &stack[(*depth)++];
    f->container = v;
    f->members = 0;
    f->object = json_type(v) == JSON_OBJECT;
    json_iter_init(&f->it, v);
    if (f->object) {
        json_object_begin(w);
    } else {
        json_array_begin(w);
    }
}

static void write_value(json_writer_t *w, json_value_t v, size_t *depth)
{
    require(inside(v) && v.len > 0);
    json_type_t t = json_type(v);
    if (t == JSON_ARRAY || t == JSON_OBJECT) {
        open_container(w, v, depth);
    } else {
        write_scalar(w, v);
    }
}

/* Re-writes the document through the accessors and the writer, iteratively. */
static size_t rewrite(json_value_t doc, uint8_t *out, size_t cap)
{
    json_writer_t w;
    json_writer_init(&w, out, cap);
    size_t depth = 0;
    write_value(&w, doc, &depth);
    while (depth > 0) {
        frame_t *f = &stack[depth - 1];
        json_value_t k, v;
        if (!json_iter_next(&f->it, &k, &v)) {
            if (f->object) {
                json_object_end(&w);
            } else {
                json_array_end(&w);
            }
            depth--;
            continue;
        }
        if (f->object) {
            require(inside(k) && json_type(k) == JSON_STRING);
            size_t len = check_string(k);
            json_key_n(&w, text, len);
            json_value_t first;
            /* Lookups take C strings: only keys without NUL; and only a few (each is a walk). */
            if (strlen(text) == len && f->members++ < 8) {
                require(json_object_get(f->container, text, &first) == ZQ_OK && inside(first));
            }
        }
        write_value(&w, v, &depth);
    }
    size_t n = json_finish(&w);
    require(n > 0 || json_writer_error(&w) == ZQ_ERR_NO_SPACE);
    return n;
}

/* The accessors on an arbitrary span: anything may come back, but nothing outside it. */
static void poke_span(json_value_t v)
{
    char buf[32];
    int64_t i;
    double d;
    uint32_t c;
    bool b;
    (void)json_type(v);
    (void)json_get_string(v, buf, sizeof buf, NULL);
    (void)json_string_equals(v, "type");
    (void)json_get_int64(v, &i);
    (void)json_get_double(v, &d);
    (void)json_get_count(v, &c);
    (void)json_get_bool(v, &b);
    json_value_t out;
    if (json_object_get(v, "type", &out) == ZQ_OK) {
        require(inside(out));
    }
    json_iter_t it;
    json_iter_init(&it, v);
    json_value_t k, e;
    for (size_t n = 0; n < 64 && json_iter_next(&it, &k, &e); n++) {
        require(inside(e));
        (void)json_get_string(k, buf, sizeof buf, NULL);
    }
}

static uint8_t once[6 * MAX_INPUT + 64], twice[6 * MAX_INPUT + 64];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > MAX_INPUT) {
        return 0;
    }
    base = (const char *)data;
    base_len = size;
    json_value_t raw = {base, size};
    poke_span(raw);

    json_value_t doc;
    zq_err_t err = json_parse(base, size, &doc);
    require(err == ZQ_OK || err == ZQ_ERR_MALFORMED || err == ZQ_ERR_TOO_LONG);
    if (err != ZQ_OK) {
        return 0;
    }
    require(inside(doc) && doc.len > 0 && json_type(doc) != JSON_INVALID);
    size_t n = rewrite(doc, once, sizeof once);
    require(n > 0);
    json_value_t again;
    require(json_parse((const char *)once, n, &again) == ZQ_OK);
    base = (const char *)once;
    base_len = n;
    size_t m = rewrite(again, twice, sizeof twice);
    require(m == n && memcmp(once, twice, n) == 0);
    return 0;
}
