/* Text in and out of the broker commands: messages from the command line or stdin made JSON
 * values, payloads printed, stdin read line by line without blocking the loop. */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "cli/brk_runner.h"
#include "zq/json.h"

/* ---- JSON values --------------------------------------------------------------------------- */

/* As a shell's $(...) does: a command's output without its trailing newlines. */
static size_t without_newlines(const char *text, size_t len)
{
    while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r')) {
        len--;
    }
    return len;
}

size_t zq_brk_json_string(const char *text, size_t len, char *out, size_t cap)
{
    json_writer_t w;
    json_writer_init(&w, out, cap);
    json_string(&w, text, without_newlines(text, len));
    return json_finish(&w);
}

size_t zq_brk_json_value(const char *text, size_t len, char *out, size_t cap)
{
    json_value_t v;
    if (json_parse(text, len, &v) != ZQ_OK) {
        return zq_brk_json_string(text, len, out, cap);
    }
    if (v.len > cap) {
        return 0;
    }
    memcpy(out, v.p, v.len);
    return v.len;
}

/* ---- Payloads out -------------------------------------------------------------------------- */

/* Holds a string payload unescaped. Unescaping never lengthens a string ("\u00e9" is 6 bytes
 * for 2, and the quotes go), so the text of any payload a frame can carry fits, with the NUL
 * json_get_string() adds. */
static char unescaped[ZQ_BRK_FRAME_MAX + 1];

zq_err_t zq_brk_payload_text(brk_str_t v, zq_brk_form_t form, brk_str_t *out)
{
    json_value_t value = {v.p, v.len};
    *out = v;
    if (form == ZQ_BRK_FORM_JSON || json_type(value) != JSON_STRING) {
        return ZQ_OK;
    }
    size_t len = 0;
    zq_err_t err = json_get_string(value, unescaped, sizeof unescaped, &len);
    if (err != ZQ_OK) {
        *out = (brk_str_t){NULL, 0};
        return err == ZQ_ERR_NO_SPACE ? ZQ_ERR_TOO_LONG : err;
    }
    *out = (brk_str_t){unescaped, len};
    return ZQ_OK;
}

/* fwrite rather than printf's %.*s, which would stop at a NUL that a \u0000 put there. */
static bool write_all(FILE *out, brk_str_t s)
{
    return s.len == 0 || fwrite(s.p, 1, s.len, out) == s.len;
}

zq_err_t zq_brk_print_payload(FILE *out, brk_str_t head, brk_str_t v, zq_brk_form_t form)
{
    brk_str_t text;
    zq_err_t err = zq_brk_payload_text(v, form, &text);
    if (err != ZQ_OK) {
        return err; /* before anything is written: no line is left half printed */
    }
    bool ok = write_all(out, head) && (head.len == 0 || fputc(' ', out) != EOF) &&
              write_all(out, text) && fputc('\n', out) != EOF;
    return ok && fflush(out) == 0 ? ZQ_OK : ZQ_ERR_IO;
}

/* ---- stdin, one message per line ------------------------------------------------------------ */

static void on_readable(void *ctx, int fd, uint64_t now);

static void watch(zq_brk_runner_t *r, bool on)
{
    zq_brk_stdin_t *in = &r->in;
    if (on && !in->watching) {
        in->watching = zq_loop_add_fd(&r->loop, STDIN_FILENO, on_readable, r) == ZQ_OK;
    } else if (!on && in->watching) {
        zq_loop_remove_fd(&r->loop, STDIN_FILENO);
        in->watching = false;
    }
}

/* Drops the rest of a line too long for the buffer, up to its newline. */
static void skip_long_line(zq_brk_stdin_t *in)
{
    const char *nl = memchr(in->buf, '\n', in->len);
    size_t drop = nl != NULL ? (size_t)(nl - in->buf) + 1 : in->len;
    memmove(in->buf, in->buf + drop, in->len - drop);
    in->len -= drop;
    in->skipping = nl == NULL;
}

/* Hands out whole lines (and a last one without newline at the end of input); empty lines
 * are no message. Stops at a line the command cannot take yet. */
static void offer_lines(zq_brk_runner_t *r, uint64_t now)
{
    zq_brk_stdin_t *in = &r->in;
    while (!in->paused && !r->finishing) { /* a failed command takes no more */
        if (in->skipping) {
            skip_long_line(in);
        }
        const char *nl = memchr(in->buf, '\n', in->len);
        if (nl == NULL && !(in->eof && in->len > 0)) {
            break;
        }
        size_t line = nl != NULL ? (size_t)(nl - in->buf) : in->len;
        size_t text = line > 0 && in->buf[line - 1] == '\r' ? line - 1 : line; /* CRLF input */
        if (text > 0 && in->on_line(in->ctx, now, in->buf, text) == ZQ_ERR_WOULD_BLOCK) {
            in->paused = true;
            watch(r, false); /* read no more until the command has room */
            return;
        }
        size_t used = nl != NULL ? line + 1 : line;
        memmove(in->buf, in->buf + used, in->len - used);
        in->len -= used;
    }
    if (in->eof && in->len == 0 && !in->ended) {
        in->ended = true;
        in->on_eof(in->ctx, now);
    }
}

static void on_readable(void *ctx, int fd, uint64_t now)
{
    zq_brk_runner_t *r = ctx;
    zq_brk_stdin_t *in = &r->in;
    ssize_t n = read(fd, in->buf + in->len, sizeof in->buf - in->len);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) {
        return;
    }
    if (n <= 0) {
        in->eof = true; /* an error reading stdin ends the input as its end would */
        watch(r, false);
    } else {
        in->len += (size_t)n;
    }
    if (in->len == sizeof in->buf && memchr(in->buf, '\n', in->len) == NULL) {
        (void)fprintf(stderr, "zq %s: a line of stdin is longer than %zu bytes: skipped\n",
                      r->cmd, sizeof in->buf - 1);
        in->too_long++;
        in->len = 0;
        in->skipping = true;
    }
    offer_lines(r, now);
}

zq_err_t zq_brk_stdin_start(zq_brk_runner_t *r,
                            zq_err_t (*on_line)(void *ctx, uint64_t now, const char *line,
                                                size_t len),
                            void (*on_eof)(void *ctx, uint64_t now), void *ctx)
{
    zq_brk_stdin_t *in = &r->in;
    in->on_line = on_line;
    in->on_eof = on_eof;
    in->ctx = ctx;
    watch(r, true);
    return in->watching ? ZQ_OK : ZQ_ERR_CAPACITY;
}

void zq_brk_stdin_resume(zq_brk_runner_t *r, uint64_t now)
{
    zq_brk_stdin_t *in = &r->in;
    if (!in->paused) {
        return;
    }
    in->paused = false;
    offer_lines(r, now);
    if (!in->paused && !in->eof) {
        watch(r, true);
    }
}
