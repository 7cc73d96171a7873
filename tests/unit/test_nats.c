/* The NATS client's protocol (stack/nats), one test per rule of the protocol doc
 * (https://docs.nats.io/reference/reference-protocols/nats-protocol) or of nats.h: the
 * handshake, MSG framing cut anywhere, PING/PONG, -ERR, the limits, subjects, the output
 * queue. The client sits between 0xA5 guard bytes, checked after every test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "stack/nats/nats.h"
#include "zq/json.h"

/* A real INFO from nats-server 2.9.10 (Debian), run as `nats-server -a 127.0.0.1 -p 14222`;
 * note the space before the CRLF. */
static const char real_info[] =
    "INFO {\"server_id\":\"NAEHSFIVQB4JIHA4VJOHB46SRVTWYR5HK54AQ2H4Z73TB73UZUXIVYBA\","
    "\"server_name\":\"NAEHSFIVQB4JIHA4VJOHB46SRVTWYR5HK54AQ2H4Z73TB73UZUXIVYBA\","
    "\"version\":\"2.9.10\",\"proto\":1,\"go\":\"go1.19.8\",\"host\":\"127.0.0.1\","
    "\"port\":14222,\"headers\":true,\"max_payload\":1048576,\"client_id\":4,"
    "\"client_ip\":\"127.0.0.1\"} \r\n";

/* ---- The client between guard bytes, and what it reports ---------------------------------- */

#define GUARD 32

static struct {
    uint8_t before[GUARD];
    nats_client_t c;
    uint8_t after[GUARD];
} box;

#define MAX_EVENTS 64

typedef struct {
    nats_event_type_t type;
    char subject[128], reply[128], text[160];
    size_t subject_len, reply_len, text_len, len;
    bool has_reply, fatal;
    uint32_t sid;
    uint8_t payload[ZQ_NATS_PAYLOAD_MAX];
} seen_t;

static seen_t seen[MAX_EVENTS];
static size_t n_seen;

static void copy_text(char *dst, size_t cap, const char *src, size_t len)
{
    assert_true(len < cap);
    if (len > 0) {
        memcpy(dst, src, len);
    }
    dst[len] = '\0';
}

static void record(void *ctx, const nats_event_t *ev)
{
    (void)ctx;
    assert_true(n_seen < MAX_EVENTS);
    seen_t *s = &seen[n_seen++];
    s->type = ev->type;
    s->sid = ev->sid;
    s->fatal = ev->fatal;
    s->len = ev->len;
    s->has_reply = ev->reply != NULL;
    s->subject_len = ev->subject_len;
    s->reply_len = ev->reply_len;
    s->text_len = ev->text_len;
    copy_text(s->subject, sizeof s->subject, ev->subject, ev->subject_len);
    copy_text(s->reply, sizeof s->reply, ev->reply, ev->reply_len);
    copy_text(s->text, sizeof s->text, ev->text, ev->text_len);
    assert_true(ev->len <= ZQ_NATS_PAYLOAD_MAX);
    if (ev->len > 0) {
        memcpy(s->payload, ev->payload, ev->len);
    }
}

static nats_client_t *start(const nats_options_t *opt)
{
    memset(box.before, 0xA5, GUARD);
    memset(box.after, 0xA5, GUARD);
    nats_options_t none = {0};
    nats_client_init(&box.c, opt != NULL ? opt : &none, record, NULL);
    n_seen = 0;
    return &box.c;
}

static int check_guards(void **state)
{
    (void)state;
    for (size_t i = 0; i < GUARD; i++) {
        assert_int_equal(box.before[i], 0xA5);
        assert_int_equal(box.after[i], 0xA5);
    }
    return 0;
}

static zq_err_t feed(nats_client_t *c, const char *s)
{
    return nats_client_feed(c, (const uint8_t *)s, strlen(s));
}

/* Everything pending, as a string, and written out. */
static const char *take_output(nats_client_t *c)
{
    static char out[ZQ_NATS_OUT_MAX + 1];
    const uint8_t *p;
    size_t n = nats_client_pending(c, &p);
    memcpy(out, p, n);
    out[n] = '\0';
    nats_client_sent(c, n);
    return out;
}

/* A client past the handshake: INFO read, CONNECT and PING written out, PONG read. */
static nats_client_t *ready_client(const nats_options_t *opt)
{
    nats_client_t *c = start(opt);
    assert_int_equal(feed(c, real_info), ZQ_OK);
    take_output(c);
    assert_int_equal(feed(c, "PONG\r\n"), ZQ_OK);
    assert_true(nats_client_ready(c));
    n_seen = 0;
    return c;
}

static void assert_fatal(nats_client_t *c, const char *text)
{
    assert_true(n_seen > 0);
    assert_int_equal(seen[n_seen - 1].type, NATS_EV_ERR);
    assert_true(seen[n_seen - 1].fatal);
    assert_string_equal(seen[n_seen - 1].text, text);
    assert_int_equal(nats_client_state(c), NATS_STATE_FAILED);
    assert_int_equal(feed(c, "PING\r\n"), ZQ_ERR_CLOSED);
}

static void assert_protocol_error(const char *input, const char *text)
{
    nats_client_t *c = ready_client(NULL);
    assert_int_equal(feed(c, input), ZQ_ERR_CLOSED);
    assert_int_equal(c->protocol_errors, 1);
    assert_fatal(c, text);
}

/* The CONNECT line's JSON, parsed: "CONNECT {...}\r\nPING\r\n". */
static json_value_t connect_json(const char *out)
{
    assert_memory_equal(out, "CONNECT ", 8);
    const char *end = strstr(out, "\r\n");
    assert_non_null(end);
    assert_string_equal(end, "\r\nPING\r\n");
    json_value_t doc;
    assert_int_equal(json_parse(out + 8, (size_t)(end - out - 8), &doc), ZQ_OK);
    return doc;
}

static void assert_json_bool(json_value_t doc, const char *key, bool want)
{
    json_value_t v;
    bool b;
    assert_int_equal(json_object_get(doc, key, &v), ZQ_OK);
    assert_true(json_get_bool(v, &b));
    assert_int_equal(b, want);
}

static void assert_json_string(json_value_t doc, const char *key, const char *want)
{
    json_value_t v;
    assert_int_equal(json_object_get(doc, key, &v), ZQ_OK);
    assert_true(json_string_equals(v, want));
}

static void assert_json_absent(json_value_t doc, const char *key)
{
    json_value_t v;
    assert_int_equal(json_object_get(doc, key, &v), ZQ_ERR_NOT_FOUND);
}

/* ---- The handshake (INFO, CONNECT, PING/PONG) ---------------------------------------------- */

static void connect_is_sent_after_the_first_info(void **state)
{
    (void)state;
    nats_client_t *c = start(NULL);
    const uint8_t *p;
    assert_int_equal(nats_client_pending(c, &p), 0);
    assert_int_equal(feed(c, real_info), ZQ_OK);
    assert_int_equal(n_seen, 1);
    assert_int_equal(seen[0].type, NATS_EV_INFO);
    json_value_t doc = connect_json(take_output(c));
    assert_json_bool(doc, "verbose", false);
    assert_json_bool(doc, "pedantic", false);
    assert_json_bool(doc, "tls_required", false);
    assert_json_bool(doc, "echo", false);
    assert_json_bool(doc, "headers", false);
    assert_json_string(doc, "lang", NATS_CLIENT_LANG);
    assert_json_string(doc, "version", NATS_CLIENT_VERSION);
    json_value_t v;
    int64_t proto;
    assert_int_equal(json_object_get(doc, "protocol", &v), ZQ_OK);
    assert_int_equal(json_get_int64(v, &proto), ZQ_OK);
    assert_int_equal(proto, 1);
    assert_json_absent(doc, "user");
    assert_json_absent(doc, "pass");
    assert_json_absent(doc, "auth_token");
    assert_json_absent(doc, "name");
    assert_false(nats_client_ready(c));
    assert_int_equal(nats_client_state(c), NATS_STATE_CONNECTING);
}

static void connect_carries_user_and_pass(void **state)
{
    (void)state;
    nats_options_t opt = {.user = "a", .pass = "b\"q", .token = "t0k", .name = "zq-signal"};
    nats_client_t *c = start(&opt);
    assert_int_equal(feed(c, real_info), ZQ_OK);
    json_value_t doc = connect_json(take_output(c));
    assert_json_string(doc, "user", "a");
    assert_json_string(doc, "pass", "b\"q"); /* escaped by the JSON writer, read back whole */
    assert_json_string(doc, "auth_token", "t0k");
    assert_json_string(doc, "name", "zq-signal");
}

static const char tls_info[] = "INFO {\"server_id\":\"S\",\"tls_required\":true}\r\n";

static void connect_says_echo_and_tls_required_as_asked(void **state)
{
    (void)state;
    nats_options_t opt = {.echo = true, .tls_required = true};
    nats_client_t *c = start(&opt);
    assert_int_equal(feed(c, tls_info), ZQ_OK);
    assert_int_equal(nats_client_tls_up(c), ZQ_OK);
    json_value_t doc = connect_json(take_output(c));
    assert_json_bool(doc, "echo", true);
    assert_json_bool(doc, "tls_required", true);
}

static void connect_that_cannot_fit_the_queue_is_fatal(void **state)
{
    (void)state;
    static char long_pass[ZQ_NATS_OUT_MAX];
    memset(long_pass, 'p', sizeof long_pass - 1);
    nats_options_t opt = {.user = "a", .pass = long_pass};
    nats_client_t *c = start(&opt);
    assert_int_equal(feed(c, real_info), ZQ_ERR_CLOSED);
    assert_fatal(c, "CONNECT does not fit ZQ_NATS_OUT_MAX");
    const uint8_t *p;
    assert_int_equal(nats_client_pending(c, &p), 0);
}

static void connect_with_an_option_that_is_not_utf8_is_fatal(void **state)
{
    (void)state;
    nats_options_t opt = {.user = "a", .pass = "\xff"};
    nats_client_t *c = start(&opt);
    assert_int_equal(feed(c, real_info), ZQ_ERR_CLOSED);
    assert_fatal(c, "CONNECT: an option is not UTF-8");
    const uint8_t *p;
    assert_int_equal(nats_client_pending(c, &p), 0);
}

static void server_requiring_tls_gets_no_connect_in_the_clear(void **state)
{
    (void)state;
    nats_options_t opt = {.user = "a", .pass = "secret"};
    nats_client_t *c = start(&opt);
    assert_int_equal(feed(c, tls_info), ZQ_ERR_CLOSED);
    assert_fatal(c, "the server requires TLS (a tls:// URL): CONNECT not sent");
    const uint8_t *p;
    assert_int_equal(nats_client_pending(c, &p), 0);
}

/* Protocol doc, INFO: with tls_required the client upgrades to TLS; the server then waits for
 * the client's handshake, so what follows INFO is TLS. */
static void tls_client_lends_nothing_after_info_until_its_tls_is_up(void **state)
{
    (void)state;
    nats_options_t opt = {.user = "a", .pass = "secret", .tls_required = true};
    nats_client_t *c = start(&opt);
    static const char stream[] = "INFO {\"server_id\":\"S\",\"tls_required\":true}\r\n"
                                 "\x16\x03\x03";
    size_t taken = 0;
    assert_int_equal(nats_client_feed_some(c, (const uint8_t *)stream, sizeof stream - 1, &taken),
                     ZQ_OK);
    assert_int_equal(taken, strlen(tls_info)); /* the TLS record's bytes are left */
    assert_int_equal(nats_client_state(c), NATS_STATE_TLS);
    assert_int_equal(n_seen, 1);
    assert_int_equal(seen[0].type, NATS_EV_INFO);
    const uint8_t *p;
    assert_int_equal(nats_client_pending(c, &p), 0); /* CONNECT is queued, not lent */
    assert_int_equal(nats_client_sub(c, "zq.a", 1), ZQ_OK); /* queued after CONNECT */
    assert_int_equal(nats_client_pending(c, &p), 0);
    assert_int_equal(nats_client_tls_up(c), ZQ_OK);
    const char *out = take_output(c);
    assert_true(strncmp(out, "CONNECT ", 8) == 0);
    assert_non_null(strstr(out, "\"pass\":\"secret\""));
    assert_non_null(strstr(out, "\"tls_required\":true"));
    assert_non_null(strstr(out, "PING\r\nSUB zq.a 1\r\n"));
    assert_int_equal(feed(c, "PONG\r\n"), ZQ_OK);
    assert_true(nats_client_ready(c));
}

static void plain_feed_refuses_bytes_after_an_info_that_starts_tls(void **state)
{
    (void)state;
    nats_options_t opt = {.tls_required = true};
    nats_client_t *c = start(&opt);
    assert_int_equal(feed(c, "INFO {\"tls_required\":true}\r\nPING\r\n"), ZQ_ERR_STATE);
    assert_int_equal(nats_client_state(c), NATS_STATE_TLS); /* the PING was not read */
    const uint8_t *p;
    assert_int_equal(nats_client_pending(c, &p), 0);
}

static void tls_client_refuses_a_server_that_offers_no_tls(void **state)
{
    (void)state;
    nats_options_t opt = {.user = "a", .pass = "secret", .tls_required = true};
    nats_client_t *c = start(&opt);
    assert_int_equal(feed(c, real_info), ZQ_ERR_CLOSED);
    assert_fatal(c, "the server offers no TLS: CONNECT not sent");
    const uint8_t *p;
    assert_int_equal(nats_client_pending(c, &p), 0);
    c = start(&opt); /* tls_available (a server that takes both) is enough */
    assert_int_equal(feed(c, "INFO {\"tls_available\":true}\r\n"), ZQ_OK);
    assert_int_equal(nats_client_state(c), NATS_STATE_TLS);
}

static void tls_up_is_refused_outside_the_tls_state(void **state)
{
    (void)state;
    nats_client_t *c = start(NULL);
    assert_int_equal(nats_client_tls_up(c), ZQ_ERR_STATE); /* before INFO */
    assert_int_equal(feed(c, real_info), ZQ_OK);
    assert_int_equal(nats_client_tls_up(c), ZQ_ERR_STATE); /* a client without TLS */
    assert_int_equal(nats_client_state(c), NATS_STATE_CONNECTING);
}

/* ---- nkeys (nats_nkey.h) ------------------------------------------------------------------ */

/* The example of NATS's own `nk` documentation (nkeys' nk/README.md): this seed, its public
 * key, and its signature of the file "Hello World!\n". */
static const char nk_seed[] = "SUAKYRHVIOREXV7EUZTBHUHL7NUMHPMAS7QMDU3GTIUWEI5LDNOXD43IZY";
static const char nk_public[] = "UD466L6EBCM3YY5HEGHJANNTN4LSKTSUXTH7RILHCKEQMQHTBNLHJJXT";
static const char nk_sig[] =
    "0CK1XmkxNfUGfudxliWTWeoETgIo23m9qowS9yTfYFSrjR8HgAW63jQ3NxPU_jG38hZPW61IZSun37N690CkDg";

static void nkey_seed_gives_nks_public_key_and_signature(void **state)
{
    (void)state;
    nats_nkey_t k;
    assert_int_equal(nats_nkey_from_seed(&k, nk_seed, strlen(nk_seed)), ZQ_OK);
    assert_string_equal(k.public_key, nk_public);
    char sig[NATS_NKEY_SIG_LEN + 1];
    assert_int_equal(nats_nkey_sign(&k, "Hello World!\n", 13, sig), ZQ_OK);
    assert_string_equal(sig, nk_sig);
    /* A seed file's newline is no part of it. */
    static const char line[] = "SUAKYRHVIOREXV7EUZTBHUHL7NUMHPMAS7QMDU3GTIUWEI5LDNOXD43IZY\n";
    assert_int_equal(nats_nkey_from_seed(&k, line, strlen(line)), ZQ_OK);
    assert_string_equal(k.public_key, nk_public);
}

static void nkey_seed_with_a_changed_character_or_length_is_refused(void **state)
{
    (void)state;
    nats_nkey_t k;
    char seed[sizeof nk_seed];
    memcpy(seed, nk_seed, sizeof seed);
    seed[20] = seed[20] == 'A' ? 'B' : 'A'; /* the CRC-16 no longer matches */
    assert_int_equal(nats_nkey_from_seed(&k, seed, strlen(seed)), ZQ_ERR_MALFORMED);
    assert_int_equal(nats_nkey_from_seed(&k, nk_seed, strlen(nk_seed) - 1), ZQ_ERR_MALFORMED);
    memcpy(seed, nk_seed, sizeof seed);
    seed[30] = '1'; /* no base32 digit */
    assert_int_equal(nats_nkey_from_seed(&k, seed, strlen(seed)), ZQ_ERR_MALFORMED);
    /* A public key is no seed (other prefix and length). */
    assert_int_equal(nats_nkey_from_seed(&k, nk_public, strlen(nk_public)), ZQ_ERR_MALFORMED);
}

static void creds_file_gives_its_jwt_and_seed(void **state)
{
    (void)state;
    static const char creds[] =
        "-----BEGIN NATS USER JWT-----\n"
        "eyJ0eXAiOiJKV1QiLCJhbGciOiJlZDI1NTE5LW5rZXkifQ.eyJzdWIiOiJVIn0.c2ln-mF0d_Jl\n"
        "------END NATS USER JWT------\n"
        "\n"
        "************************* IMPORTANT *************************\n"
        "NKEY Seed printed below can be used to sign and prove identity.\n"
        "\n"
        "-----BEGIN USER NKEY SEED-----\n"
        "SUAKYRHVIOREXV7EUZTBHUHL7NUMHPMAS7QMDU3GTIUWEI5LDNOXD43IZY\n"
        "------END USER NKEY SEED------\n";
    char jwt[NATS_JWT_MAX];
    nats_nkey_t k;
    assert_int_equal(nats_creds_parse(creds, strlen(creds), jwt, sizeof jwt, &k), ZQ_OK);
    assert_string_equal(jwt, "eyJ0eXAiOiJKV1QiLCJhbGciOiJlZDI1NTE5LW5rZXkifQ.eyJzdWIiOiJVIn0."
                             "c2ln-mF0d_Jl"); /* base64url's '-' is no end line */
    assert_string_equal(k.public_key, nk_public);
    assert_int_equal(nats_creds_parse(creds, strlen(creds), jwt, 20, &k), ZQ_ERR_TOO_LONG);
    assert_int_equal(nats_creds_parse(creds + 30, strlen(creds) - 30, jwt, sizeof jwt, &k),
                     ZQ_ERR_MALFORMED); /* no JWT block */
}

/* Protocol doc, INFO "nonce" and CONNECT "sig": the nonce's text, signed. With nk's example
 * message as the nonce, nk's signature is what CONNECT must carry. */
static void connect_signs_the_infos_nonce_with_the_nkey(void **state)
{
    (void)state;
    static nats_nkey_t k;
    assert_int_equal(nats_nkey_from_seed(&k, nk_seed, strlen(nk_seed)), ZQ_OK);
    nats_options_t opt = {.nkey = &k};
    nats_client_t *c = start(&opt);
    assert_int_equal(feed(c, "INFO {\"server_id\":\"S\",\"nonce\":\"Hello World!\\n\"}\r\n"),
                     ZQ_OK);
    json_value_t doc = connect_json(take_output(c));
    assert_json_string(doc, "nkey", nk_public);
    assert_json_string(doc, "sig", nk_sig);
    assert_json_absent(doc, "jwt");
    /* With a .creds file's JWT, the JWT goes instead of the public key. */
    opt.jwt = "a.b.c";
    c = start(&opt);
    assert_int_equal(feed(c, "INFO {\"nonce\":\"Hello World!\\n\"}\r\n"), ZQ_OK);
    doc = connect_json(take_output(c));
    assert_json_string(doc, "jwt", "a.b.c");
    assert_json_string(doc, "sig", nk_sig);
    assert_json_absent(doc, "nkey");
}

static void nkey_without_a_nonce_to_sign_sends_no_connect(void **state)
{
    (void)state;
    static nats_nkey_t k;
    assert_int_equal(nats_nkey_from_seed(&k, nk_seed, strlen(nk_seed)), ZQ_OK);
    nats_options_t opt = {.nkey = &k};
    nats_client_t *c = start(&opt);
    assert_int_equal(feed(c, real_info), ZQ_ERR_CLOSED);
    assert_fatal(c, "the server sent no nonce for the nkey to sign: CONNECT not sent");
    const uint8_t *p;
    assert_int_equal(nats_client_pending(c, &p), 0);
}

static void info_fields_are_read(void **state)
{
    (void)state;
    nats_client_t *c = start(NULL);
    assert_int_equal(feed(c, real_info), ZQ_OK);
    const nats_info_t *info = nats_client_info(c);
    assert_string_equal(info->server_id,
                        "NAEHSFIVQB4JIHA4VJOHB46SRVTWYR5HK54AQ2H4Z73TB73UZUXIVYBA");
    assert_int_equal(info->max_payload, 1048576);
    assert_int_equal(info->proto, 1);
    assert_true(info->headers);
    assert_false(info->auth_required);
    assert_false(info->tls_required);
    assert_int_equal(info->url_count, 0);
}

static void nothing_may_be_sent_before_the_first_info(void **state)
{
    (void)state;
    nats_client_t *c = start(NULL);
    assert_int_equal(nats_client_pub(c, "a", NULL, (const uint8_t *)"x", 1), ZQ_ERR_STATE);
    assert_int_equal(nats_client_sub(c, "a", 1), ZQ_ERR_STATE);
    assert_int_equal(nats_client_unsub(c, 1), ZQ_ERR_STATE);
    assert_int_equal(nats_client_ping(c), ZQ_ERR_STATE);
    const uint8_t *p;
    assert_int_equal(nats_client_pending(c, &p), 0);
}

static void pub_before_ready_is_queued_after_connect(void **state)
{
    (void)state;
    nats_client_t *c = start(NULL);
    assert_int_equal(feed(c, real_info), ZQ_OK);
    assert_int_equal(nats_client_sub(c, "s", 7), ZQ_OK);
    assert_int_equal(nats_client_pub(c, "s", NULL, (const uint8_t *)"hi", 2), ZQ_OK);
    const char *out = take_output(c);
    const char *ping = strstr(out, "\r\nPING\r\n");
    assert_non_null(ping);
    assert_string_equal(ping, "\r\nPING\r\nSUB s 7\r\nPUB s 2\r\nhi\r\n");
}

static void ready_comes_with_the_pong_to_the_first_ping(void **state)
{
    (void)state;
    nats_client_t *c = start(NULL);
    assert_int_equal(feed(c, real_info), ZQ_OK);
    assert_int_equal(nats_client_ping(c), ZQ_OK);
    assert_int_equal(feed(c, "PONG\r\n"), ZQ_OK);
    assert_int_equal(n_seen, 2);
    assert_int_equal(seen[1].type, NATS_EV_READY);
    assert_true(nats_client_ready(c));
    assert_int_equal(feed(c, "PONG\r\n"), ZQ_OK); /* our own PING's */
    assert_int_equal(n_seen, 3);
    assert_int_equal(seen[2].type, NATS_EV_PONG);
}

static void later_info_updates_connect_urls(void **state)
{
    (void)state;
    nats_client_t *c = ready_client(NULL);
    assert_int_equal(feed(c, "INFO {\"server_id\":\"S2\",\"max_payload\":65536,\"connect_urls\":"
                             "[\"10.0.0.1:4222\",\"10.0.0.2:4222\"]}\r\n"),
                     ZQ_OK);
    assert_int_equal(n_seen, 1);
    assert_int_equal(seen[0].type, NATS_EV_INFO);
    const nats_info_t *info = nats_client_info(c);
    assert_int_equal(info->url_count, 2);
    assert_string_equal(info->connect_urls[0], "10.0.0.1:4222");
    assert_string_equal(info->connect_urls[1], "10.0.0.2:4222");
    assert_string_equal(info->server_id, "S2");
    assert_int_equal(info->max_payload, 65536);
    const uint8_t *p;
    assert_int_equal(nats_client_pending(c, &p), 0); /* no second CONNECT */
    assert_true(nats_client_ready(c));
}

static void connect_urls_beyond_the_limits_are_counted(void **state)
{
    (void)state;
    static char line[ZQ_NATS_LINE_MAX];
    char long_url[ZQ_NATS_URL_MAX + 8];
    memset(long_url, 'h', sizeof long_url - 1);
    long_url[sizeof long_url - 1] = '\0';
    strcpy(line, "INFO {\"connect_urls\":[\"");
    strcat(line, long_url);
    strcat(line, "\"");
    for (int i = 0; i < ZQ_NATS_URLS_MAX + 2; i++) {
        strcat(line, ",\"h:1\"");
    }
    strcat(line, "]}\r\n");
    nats_client_t *c = ready_client(NULL);
    assert_int_equal(feed(c, line), ZQ_OK);
    assert_int_equal(nats_client_info(c)->url_count, ZQ_NATS_URLS_MAX);
    assert_int_equal(c->info_dropped, 3);
}

/* ---- PING, PONG, +OK, -ERR ---------------------------------------------------------------- */

static void server_ping_is_answered_with_pong(void **state)
{
    (void)state;
    nats_client_t *c = ready_client(NULL);
    assert_int_equal(feed(c, "PING\r\n"), ZQ_OK);
    assert_string_equal(take_output(c), "PONG\r\n");
    assert_int_equal(n_seen, 0);
}

/* Fills the queue with PUBs until one no longer fits; returns how many bytes are pending. */
static size_t fill_output(nats_client_t *c)
{
    static uint8_t payload[1000];
    memset(payload, 'x', sizeof payload);
    zq_err_t err;
    while ((err = nats_client_pub(c, "fill", NULL, payload, sizeof payload)) == ZQ_OK) {
    }
    assert_int_equal(err, ZQ_ERR_WOULD_BLOCK);
    while ((err = nats_client_pub(c, "f", NULL, NULL, 0)) == ZQ_OK) {
    }
    assert_int_equal(err, ZQ_ERR_WOULD_BLOCK);
    while ((err = nats_client_ping(c)) == ZQ_OK) { /* 6 bytes, as long as a PONG */
    }
    assert_int_equal(err, ZQ_ERR_WOULD_BLOCK);
    const uint8_t *p;
    return nats_client_pending(c, &p);
}

static void pong_owed_to_a_full_queue_is_queued_once_there_is_room(void **state)
{
    (void)state;
    nats_client_t *c = ready_client(NULL);
    size_t full = fill_output(c);
    assert_int_equal(feed(c, "PING\r\nPING\r\n"), ZQ_OK);
    const uint8_t *p;
    assert_int_equal(nats_client_pending(c, &p), full);
    nats_client_sent(c, full);
    assert_string_equal(take_output(c), "PONG\r\n"); /* one answers both */
}

static void ok_is_ignored(void **state)
{
    (void)state;
    nats_client_t *c = ready_client(NULL);
    assert_int_equal(feed(c, "+OK\r\n"), ZQ_OK);
    assert_int_equal(n_seen, 0);
    const uint8_t *p;
    assert_int_equal(nats_client_pending(c, &p), 0);
}

static void verbs_are_case_insensitive(void **state)
{
    (void)state;
    nats_client_t *c = ready_client(NULL);
    assert_int_equal(feed(c, "ping\r\nmsg a 1 1\r\nx\r\nPoNg\r\n"), ZQ_OK);
    assert_string_equal(take_output(c), "PONG\r\n");
    assert_int_equal(n_seen, 2);
    assert_int_equal(seen[0].type, NATS_EV_MSG);
    assert_int_equal(seen[1].type, NATS_EV_PONG);
}

static void authorization_violation_is_a_fatal_err(void **state)
{
    (void)state;
    nats_options_t opt = {.user = "a", .pass = "wrong"};
    nats_client_t *c = start(&opt);
    assert_int_equal(feed(c, real_info), ZQ_OK);
    take_output(c);
    assert_int_equal(feed(c, "-ERR 'Authorization Violation'\r\nPING\r\n"), ZQ_ERR_CLOSED);
    assert_int_equal(n_seen, 2);
    assert_int_equal(c->server_errors, 1);
    assert_int_equal(c->protocol_errors, 0);
    assert_fatal(c, "Authorization Violation");
    const uint8_t *p;
    assert_int_equal(nats_client_pending(c, &p), 0); /* the PING after it was not read */
    assert_int_equal(nats_client_pub(c, "a", NULL, NULL, 0), ZQ_ERR_CLOSED);
    assert_false(nats_client_ready(c));
}

static void invalid_subject_and_permissions_errors_keep_the_connection(void **state)
{
    (void)state;
    nats_client_t *c = ready_client(NULL);
    assert_int_equal(feed(c, "-ERR 'Invalid Subject'\r\n"
                             "-ERR 'Permissions Violation for Publish to \"x.y\"'\r\n"
                             "-ERR 'Permissions Violation for Subscription to \"z\"'\r\n"
                             "PING\r\n"),
                     ZQ_OK);
    assert_int_equal(n_seen, 3);
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(seen[i].type, NATS_EV_ERR);
        assert_false(seen[i].fatal);
    }
    assert_string_equal(seen[0].text, "Invalid Subject");
    assert_string_equal(seen[1].text, "Permissions Violation for Publish to \"x.y\"");
    assert_true(nats_client_ready(c));
    assert_string_equal(take_output(c), "PONG\r\n");
}

/* ---- MSG ----------------------------------------------------------------------------------- */

static void msg_is_delivered_with_subject_sid_and_payload(void **state)
{
    (void)state;
    nats_client_t *c = ready_client(NULL);
    assert_int_equal(feed(c, "MSG zq.room.a 42 11\r\nhello world\r\n"), ZQ_OK);
    assert_int_equal(n_seen, 1);
    assert_int_equal(seen[0].type, NATS_EV_MSG);
    assert_string_equal(seen[0].subject, "zq.room.a");
    assert_int_equal(seen[0].sid, 42);
    assert_false(seen[0].has_reply);
    assert_int_equal(seen[0].reply_len, 0);
    assert_int_equal(seen[0].len, 11);
    assert_memory_equal(seen[0].payload, "hello world", 11);
}

static void msg_with_reply_carries_the_reply(void **state)
{
    (void)state;
    nats_client_t *c = ready_client(NULL);
    assert_int_equal(feed(c, "MSG a.b\t9  _INBOX.x1 3\r\n\r\n\r\r\n"), ZQ_OK); /* tabs, runs */
    assert_int_equal(n_seen, 1);
    assert_string_equal(seen[0].subject, "a.b");
    assert_int_equal(seen[0].sid, 9);
    assert_true(seen[0].has_reply);
    assert_string_equal(seen[0].reply, "_INBOX.x1");
    assert_int_equal(seen[0].len, 3);
    assert_memory_equal(seen[0].payload, "\r\n\r", 3); /* a payload is bytes, CRLF included */
}

static void empty_payload_msg_is_delivered(void **state)
{
    (void)state;
    nats_client_t *c = ready_client(NULL);
    assert_int_equal(feed(c, "MSG a 1 0\r\n\r\n"), ZQ_OK);
    assert_int_equal(n_seen, 1);
    assert_int_equal(seen[0].len, 0);
}

static const char stream[] = "PING\r\n"
                             "MSG a.b 1 5\r\nhello\r\n"
                             "+OK\r\n"
                             "MSG c 2 r.s 0\r\n\r\n"
                             "MSG d.e.f 3 INBOX 4\r\n1234\r\n"
                             "-ERR 'Invalid Subject'\r\n";

static void assert_stream_events(void)
{
    assert_int_equal(n_seen, 4);
    assert_string_equal(seen[0].subject, "a.b");
    assert_memory_equal(seen[0].payload, "hello", 5);
    assert_string_equal(seen[1].subject, "c");
    assert_string_equal(seen[1].reply, "r.s");
    assert_int_equal(seen[1].len, 0);
    assert_string_equal(seen[2].reply, "INBOX");
    assert_int_equal(seen[2].sid, 3);
    assert_memory_equal(seen[2].payload, "1234", 4);
    assert_int_equal(seen[3].type, NATS_EV_ERR);
    assert_false(seen[3].fatal);
}

static void msg_split_at_every_byte_is_delivered_once(void **state)
{
    (void)state;
    nats_client_t *c = ready_client(NULL);
    for (size_t i = 0; i < sizeof stream - 1; i++) {
        assert_int_equal(nats_client_feed(c, (const uint8_t *)stream + i, 1), ZQ_OK);
    }
    assert_stream_events();
    assert_string_equal(take_output(c), "PONG\r\n");
}

static void msg_split_at_any_one_point_is_delivered_once(void **state)
{
    (void)state;
    for (size_t cut = 0; cut <= sizeof stream - 1; cut++) {
        nats_client_t *c = ready_client(NULL);
        assert_int_equal(nats_client_feed(c, (const uint8_t *)stream, cut), ZQ_OK);
        assert_int_equal(
            nats_client_feed(c, (const uint8_t *)stream + cut, sizeof stream - 1 - cut), ZQ_OK);
        assert_stream_events();
    }
}

static void many_messages_in_one_feed_are_all_delivered(void **state)
{
    (void)state;
    nats_client_t *c = ready_client(NULL);
    static char many[32 * 40];
    many[0] = '\0';
    for (int i = 0; i < 32; i++) {
        strcat(many, "MSG s 5 2\r\nab\r\n");
    }
    assert_int_equal(feed(c, many), ZQ_OK);
    assert_int_equal(n_seen, 32);
    assert_int_equal(seen[31].sid, 5);
}

static void payload_of_exactly_the_maximum_is_delivered_whole(void **state)
{
    (void)state;
    static uint8_t in[64 + ZQ_NATS_PAYLOAD_MAX];
    int head = snprintf((char *)in, 64, "MSG big 1 %d\r\n", ZQ_NATS_PAYLOAD_MAX);
    for (size_t i = 0; i < ZQ_NATS_PAYLOAD_MAX; i++) {
        in[(size_t)head + i] = (uint8_t)(i * 7);
    }
    memcpy(in + head + ZQ_NATS_PAYLOAD_MAX, "\r\n", 2);
    nats_client_t *c = ready_client(NULL);
    assert_int_equal(nats_client_feed(c, in, (size_t)head + ZQ_NATS_PAYLOAD_MAX + 2), ZQ_OK);
    assert_int_equal(n_seen, 1);
    assert_int_equal(seen[0].len, ZQ_NATS_PAYLOAD_MAX);
    assert_memory_equal(seen[0].payload, in + head, ZQ_NATS_PAYLOAD_MAX);
    assert_int_equal(c->dropped_oversize, 0);
}

static void oversized_msg_is_dropped_counted_and_the_next_delivered(void **state)
{
    (void)state;
    static uint8_t in[128 + ZQ_NATS_PAYLOAD_MAX + 1];
    int head = snprintf((char *)in, 64, "MSG big 1 %d\r\n", ZQ_NATS_PAYLOAD_MAX + 1);
    size_t n = (size_t)head;
    memset(in + n, 'M', ZQ_NATS_PAYLOAD_MAX + 1); /* with "MSG" lookalikes inside */
    memcpy(in + n, "\r\nMSG x 1 1\r\n", 13);
    n += ZQ_NATS_PAYLOAD_MAX + 1;
    memcpy(in + n, "\r\nMSG next 2 2\r\nok\r\n", 20);
    n += 20;
    /* Whole, and in pieces of 1000: the same outcome. */
    for (size_t step = n; step >= 1000; step = step == n ? 1000 : 0) {
        nats_client_t *c = ready_client(NULL);
        for (size_t off = 0; off < n; off += step) {
            size_t piece = n - off < step ? n - off : step;
            assert_int_equal(nats_client_feed(c, in + off, piece), ZQ_OK);
        }
        assert_int_equal(c->dropped_oversize, 1);
        assert_int_equal(c->protocol_errors, 0);
        assert_int_equal(n_seen, 1);
        assert_string_equal(seen[0].subject, "next");
        assert_memory_equal(seen[0].payload, "ok", 2);
        assert_true(nats_client_ready(c));
    }
}

/* ---- Protocol errors: fatal, with zq's reason ----------------------------------------------- */

static void line_over_the_limit_is_a_fatal_error(void **state)
{
    (void)state;
    static char line[ZQ_NATS_LINE_MAX + 16];
    memset(line, 'a', sizeof line - 1);
    memcpy(line, "MSG ", 4);
    nats_client_t *c = ready_client(NULL);
    /* In pieces: the line is refused as soon as it is too long, not at its LF. */
    assert_int_equal(nats_client_feed(c, (const uint8_t *)line, ZQ_NATS_LINE_MAX), ZQ_OK);
    assert_int_equal(n_seen, 0);
    assert_int_equal(nats_client_feed(c, (const uint8_t *)line, 16), ZQ_ERR_CLOSED);
    assert_int_equal(c->protocol_errors, 1);
    assert_fatal(c, "line longer than ZQ_NATS_LINE_MAX");
}

static void line_of_exactly_the_limit_is_read(void **state)
{
    (void)state;
    static char line[ZQ_NATS_LINE_MAX + 3];
    size_t n = ZQ_NATS_LINE_MAX;
    memset(line, ' ', n);
    memcpy(line, "INFO {\"server_id\":\"S\"", 21);
    line[n - 1] = '}';
    memcpy(line + n, "\r\n", 3);
    nats_client_t *c = ready_client(NULL);
    assert_int_equal(feed(c, line), ZQ_OK);
    assert_int_equal(n_seen, 1);
    assert_int_equal(seen[0].type, NATS_EV_INFO);
    assert_string_equal(nats_client_info(c)->server_id, "S");
}

static void unknown_verb_is_a_fatal_error(void **state)
{
    (void)state;
    assert_protocol_error("HELLO there\r\n", "unknown verb");
    assert_protocol_error("PUB a 1\r\nx\r\n", "unknown verb"); /* a client's verb */
    assert_protocol_error("\r\n", "unknown verb");
}

static void malformed_msg_line_is_a_fatal_error(void **state)
{
    (void)state;
    assert_protocol_error("MSG a 1\r\n", "MSG line without 3 or 4 fields");
    assert_protocol_error("MSG a 1 r s 2\r\n", "MSG line without 3 or 4 fields");
    assert_protocol_error("MSG a x 1\r\nz\r\n", "MSG sid is not a number zq gave");
    assert_protocol_error("MSG a 4294967296 1\r\nz\r\n", "MSG sid is not a number zq gave");
    assert_protocol_error("MSG a 1 -1\r\n", "MSG byte count is not a number");
    assert_protocol_error("MSG a 1 99999999999999999999\r\n", "MSG byte count is not a number");
}

static void payload_not_followed_by_crlf_is_a_fatal_error(void **state)
{
    (void)state;
    assert_protocol_error("MSG a 1 2\r\nabc\r\n", "MSG payload not followed by CRLF");
    assert_protocol_error("MSG a 1 2\r\nab\rX", "MSG payload not followed by CRLF");
}

static void line_without_cr_is_a_fatal_error(void **state)
{
    (void)state;
    assert_protocol_error("PING\n", "line not ended by CRLF");
}

static void ping_with_arguments_is_a_fatal_error(void **state)
{
    (void)state;
    assert_protocol_error("PING now\r\n", "PING with arguments");
    assert_protocol_error("PONG 1\r\n", "PONG with arguments");
}

static void info_that_is_not_a_json_object_is_a_fatal_error(void **state)
{
    (void)state;
    assert_protocol_error("INFO {\"server_id\":\r\n", "INFO is not a JSON object");
    assert_protocol_error("INFO [1]\r\n", "INFO is not a JSON object");
    assert_protocol_error("INFO\r\n", "INFO is not a JSON object");
    assert_protocol_error("INFO {\"max_payload\":\"big\"}\r\n", "INFO max_payload is not a count");
    assert_protocol_error("INFO {\"headers\":1}\r\n", "INFO flag is not true or false");
    assert_protocol_error("INFO {\"connect_urls\":\"a\"}\r\n", "INFO connect_urls is not an array");
    assert_protocol_error("INFO {\"connect_urls\":[1]}\r\n",
                          "INFO connect_urls holds a non-string");
}

static void server_that_does_not_begin_with_info_is_a_fatal_error(void **state)
{
    (void)state;
    nats_client_t *c = start(NULL);
    assert_int_equal(feed(c, "PING\r\n"), ZQ_ERR_CLOSED);
    assert_fatal(c, "the server did not begin with INFO");
    const uint8_t *p;
    assert_int_equal(nats_client_pending(c, &p), 0);
}

static void hmsg_is_a_fatal_error(void **state)
{
    (void)state;
    assert_protocol_error("HMSG a 1 12 14\r\nNATS/1.0\r\n\r\nhi\r\n",
                          "HMSG, but CONNECT said headers:false");
}

/* ---- PUB, SUB, UNSUB and subjects ------------------------------------------------------------ */

static void pub_is_written_as_the_protocol_says(void **state)
{
    (void)state;
    nats_client_t *c = ready_client(NULL);
    assert_int_equal(nats_client_pub(c, "zq.room.a", NULL, (const uint8_t *)"hello", 5), ZQ_OK);
    assert_int_equal(nats_client_pub(c, "a", "_INBOX.1", (const uint8_t *)"", 0), ZQ_OK);
    assert_int_equal(nats_client_pub(c, "b", NULL, NULL, 0), ZQ_OK);
    assert_string_equal(take_output(c),
                        "PUB zq.room.a 5\r\nhello\r\nPUB a _INBOX.1 0\r\n\r\nPUB b 0\r\n\r\n");
}

static void pub_refuses_a_subject_with_a_wildcard(void **state)
{
    (void)state;
    nats_client_t *c = ready_client(NULL);
    static const char *const bad[] = {"a.*", "*", ">", "a.>", "a*", "a.b>"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(nats_client_pub(c, bad[i], NULL, NULL, 0), ZQ_ERR_INVALID_ARG);
        assert_int_equal(nats_client_pub(c, "ok", bad[i], NULL, 0), ZQ_ERR_INVALID_ARG);
    }
    const uint8_t *p;
    assert_int_equal(nats_client_pending(c, &p), 0);
}

static void pub_refuses_empty_tokens_and_whitespace(void **state)
{
    (void)state;
    nats_client_t *c = ready_client(NULL);
    static const char *const bad[] = {"",    ".",    "a.",     ".a",  "a..b",
                                      "a b", "a\tb", "a\r\nb", "a\x7f"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(nats_client_pub(c, bad[i], NULL, NULL, 0), ZQ_ERR_INVALID_ARG);
        assert_int_equal(nats_client_sub(c, bad[i], 1), ZQ_ERR_INVALID_ARG);
    }
    assert_int_equal(nats_client_pub(c, NULL, NULL, NULL, 0), ZQ_ERR_INVALID_ARG);
    assert_int_equal(nats_client_pub(c, "a", NULL, NULL, 3), ZQ_ERR_INVALID_ARG);
    const uint8_t *p;
    assert_int_equal(nats_client_pending(c, &p), 0);
}

static void sub_takes_wildcards_as_whole_tokens_and_full_wildcard_last(void **state)
{
    (void)state;
    static const char *const good[] = {"a", "a.*", "*", ">", "a.>", "*.b.>", "a.*.c", "_INBOX.x-1"};
    static const char *const bad[] = {"a*", "a.b*", "a.>.b", ">.a", "a.>>", "**"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        assert_true(nats_subject_valid(good[i], true));
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_false(nats_subject_valid(bad[i], true));
    }
    assert_true(nats_subject_valid("a.b-c_d.E9", false));
}

static void sub_and_unsub_are_written_as_the_protocol_says(void **state)
{
    (void)state;
    nats_client_t *c = ready_client(NULL);
    assert_int_equal(nats_client_sub(c, "zq.room.>", 4294967295u), ZQ_OK);
    assert_int_equal(nats_client_unsub(c, 0), ZQ_OK);
    assert_int_equal(nats_client_ping(c), ZQ_OK);
    assert_string_equal(take_output(c), "SUB zq.room.> 4294967295\r\nUNSUB 0\r\nPING\r\n");
}

static void pub_over_the_servers_max_payload_is_refused(void **state)
{
    (void)state;
    nats_client_t *c = ready_client(NULL);
    assert_int_equal(feed(c, "INFO {\"max_payload\":4}\r\n"), ZQ_OK);
    assert_int_equal(nats_client_pub(c, "a", NULL, (const uint8_t *)"12345", 5), ZQ_ERR_TOO_LONG);
    assert_int_equal(nats_client_pub(c, "a", NULL, (const uint8_t *)"1234", 4), ZQ_OK);
}

/* ---- The output queue ----------------------------------------------------------------------- */

static void output_full_queues_nothing(void **state)
{
    (void)state;
    static uint8_t before[ZQ_NATS_OUT_MAX];
    nats_client_t *c = ready_client(NULL);
    size_t full = fill_output(c);
    assert_true(full <= ZQ_NATS_OUT_MAX);
    const uint8_t *p;
    assert_int_equal(nats_client_pending(c, &p), full);
    memcpy(before, p, full);
    assert_int_equal(nats_client_pub(c, "x", NULL, (const uint8_t *)"y", 1), ZQ_ERR_WOULD_BLOCK);
    assert_int_equal(nats_client_sub(c, "some.longer.subject", 1), ZQ_ERR_WOULD_BLOCK);
    assert_int_equal(nats_client_pending(c, &p), full);
    assert_memory_equal(p, before, full);
    /* Room again once some is written: the rest stays in order before the new command. */
    nats_client_sent(c, 1000);
    assert_int_equal(nats_client_pub(c, "x", NULL, (const uint8_t *)"y", 1), ZQ_OK);
    assert_int_equal(nats_client_pending(c, &p), full - 1000 + 12);
    assert_memory_equal(p, before + 1000, full - 1000);
    assert_memory_equal(p + full - 1000, "PUB x 1\r\ny\r\n", 12);
}

static void command_larger_than_the_queue_is_too_long(void **state)
{
    (void)state;
    static uint8_t payload[ZQ_NATS_OUT_MAX];
    nats_client_t *c = ready_client(NULL); /* max_payload 1048576 */
    assert_int_equal(nats_client_pub(c, "a", NULL, payload, sizeof payload), ZQ_ERR_TOO_LONG);
    const uint8_t *p;
    assert_int_equal(nats_client_pending(c, &p), 0);
}

static void output_written_in_pieces_keeps_its_order(void **state)
{
    (void)state;
    nats_client_t *c = ready_client(NULL);
    assert_int_equal(nats_client_pub(c, "a", NULL, (const uint8_t *)"12345", 5), ZQ_OK);
    const uint8_t *p;
    assert_int_equal(nats_client_pending(c, &p), 16);
    nats_client_sent(c, 3);
    assert_int_equal(nats_client_pub(c, "b", NULL, NULL, 0), ZQ_OK);
    assert_string_equal(take_output(c), " a 5\r\n12345\r\nPUB b 0\r\n\r\n");
    nats_client_sent(c, 100); /* more than pending: all */
    assert_int_equal(nats_client_pending(c, &p), 0);
}

#define T(name) cmocka_unit_test_teardown(name, check_guards)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(connect_is_sent_after_the_first_info),
        T(connect_carries_user_and_pass),
        T(nkey_seed_gives_nks_public_key_and_signature),
        T(nkey_seed_with_a_changed_character_or_length_is_refused),
        T(creds_file_gives_its_jwt_and_seed),
        T(connect_signs_the_infos_nonce_with_the_nkey),
        T(nkey_without_a_nonce_to_sign_sends_no_connect),
        T(connect_says_echo_and_tls_required_as_asked),
        T(connect_that_cannot_fit_the_queue_is_fatal),
        T(connect_with_an_option_that_is_not_utf8_is_fatal),
        T(server_requiring_tls_gets_no_connect_in_the_clear),
        T(tls_client_lends_nothing_after_info_until_its_tls_is_up),
        T(plain_feed_refuses_bytes_after_an_info_that_starts_tls),
        T(tls_client_refuses_a_server_that_offers_no_tls),
        T(tls_up_is_refused_outside_the_tls_state),
        T(info_fields_are_read),
        T(nothing_may_be_sent_before_the_first_info),
        T(pub_before_ready_is_queued_after_connect),
        T(ready_comes_with_the_pong_to_the_first_ping),
        T(later_info_updates_connect_urls),
        T(connect_urls_beyond_the_limits_are_counted),
        T(server_ping_is_answered_with_pong),
        T(pong_owed_to_a_full_queue_is_queued_once_there_is_room),
        T(ok_is_ignored),
        T(verbs_are_case_insensitive),
        T(authorization_violation_is_a_fatal_err),
        T(invalid_subject_and_permissions_errors_keep_the_connection),
        T(msg_is_delivered_with_subject_sid_and_payload),
        T(msg_with_reply_carries_the_reply),
        T(empty_payload_msg_is_delivered),
        T(msg_split_at_every_byte_is_delivered_once),
        T(msg_split_at_any_one_point_is_delivered_once),
        T(many_messages_in_one_feed_are_all_delivered),
        T(payload_of_exactly_the_maximum_is_delivered_whole),
        T(oversized_msg_is_dropped_counted_and_the_next_delivered),
        T(line_over_the_limit_is_a_fatal_error),
        T(line_of_exactly_the_limit_is_read),
        T(unknown_verb_is_a_fatal_error),
        T(malformed_msg_line_is_a_fatal_error),
        T(payload_not_followed_by_crlf_is_a_fatal_error),
        T(line_without_cr_is_a_fatal_error),
        T(ping_with_arguments_is_a_fatal_error),
        T(info_that_is_not_a_json_object_is_a_fatal_error),
        T(server_that_does_not_begin_with_info_is_a_fatal_error),
        T(hmsg_is_a_fatal_error),
        T(pub_is_written_as_the_protocol_says),
        T(pub_refuses_a_subject_with_a_wildcard),
        T(pub_refuses_empty_tokens_and_whitespace),
        T(sub_takes_wildcards_as_whole_tokens_and_full_wildcard_last),
        T(sub_and_unsub_are_written_as_the_protocol_says),
        T(pub_over_the_servers_max_payload_is_refused),
        T(output_full_queues_nothing),
        T(command_larger_than_the_queue_is_too_long),
        T(output_written_in_pieces_keeps_its_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
