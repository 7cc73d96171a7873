/* libFuzzer target for NATS's key files (stack/nats/nats_nkey.h) and the nonce an nkey signs:
 * the input read as a .creds file, as a seed file, and as the nonce of an INFO to a client with
 * an nkey. Whatever it is: a JWT taken is NUL-terminated inside its buffer, of three
 * dot-joined parts; a seed taken gives a public key of 56 base32 characters starting with 'U',
 * whose signature is 86 base64url characters; a nonce is signed into CONNECT or refused, and
 * CONNECT is never sent without its "sig". */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "stack/nats/nats.h"
#include "stack/nats/nats_nkey.h"
#include "fuzz_support.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* CONNECT's text holds "sig":" (a plain search: no memmem in C11). */
static bool memmem_sig(const uint8_t *out, size_t len)
{
    static const char needle[] = "\"sig\":\"";
    for (size_t i = 0; i + sizeof needle - 1 <= len; i++) {
        if (memcmp(out + i, needle, sizeof needle - 1) == 0) {
            return true;
        }
    }
    return false;
}

static void check_key(const nats_nkey_t *k)
{
    check(strlen(k->public_key) == NATS_NKEY_PUBLIC_LEN && k->public_key[0] == 'U');
    char sig[NATS_NKEY_SIG_LEN + 1];
    check(nats_nkey_sign(k, "nonce", 5, sig) == ZQ_OK);
    check(strlen(sig) == NATS_NKEY_SIG_LEN && strspn(sig, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklm"
                                                          "nopqrstuvwxyz0123456789-_") ==
                                                   NATS_NKEY_SIG_LEN);
}

static void ignore(void *ctx, const nats_event_t *ev)
{
    (void)ctx;
    (void)ev;
}

/* INFO {"nonce":"<the input, JSON-escaped>"} to a client with an nkey. */
static void sign_nonce(const uint8_t *data, size_t size)
{
    static nats_nkey_t key;
    static const char seed[] = "SUAKYRHVIOREXV7EUZTBHUHL7NUMHPMAS7QMDU3GTIUWEI5LDNOXD43IZY";
    static nats_client_t c;
    static char info[16 + 6 * 256 + 8];
    if (key.public_key[0] == '\0') {
        check(nats_nkey_from_seed(&key, seed, sizeof seed - 1) == ZQ_OK);
    }
    size_t n = 0;
    n += (size_t)snprintf(info, sizeof info, "INFO {\"nonce\":\"");
    for (size_t i = 0; i < size && i < 256; i++) {
        n += (size_t)snprintf(info + n, sizeof info - n, "\\u%04x", data[i]);
    }
    n += (size_t)snprintf(info + n, sizeof info - n, "\"}\r\n");
    nats_options_t opt = {.nkey = &key, .jwt = (size & 1) != 0 ? "a.b.c" : NULL};
    nats_client_init(&c, &opt, ignore, NULL);
    zq_err_t err = nats_client_feed(&c, (const uint8_t *)info, n);
    const uint8_t *out;
    size_t len = nats_client_pending(&c, &out);
    if (err == ZQ_OK) {
        check(len > 0 && memmem_sig(out, len));
    } else {
        check(err == ZQ_ERR_CLOSED && len == 0);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size % 16 == 0) { /* 1 in 16: under the sanitizers a signature costs ~3 ms */
        sign_nonce(data, size);
    }
    static char jwt[256];
    memset(jwt, 0x55, sizeof jwt);
    nats_nkey_t k;
    zq_err_t err = nats_creds_parse((const char *)data, size, jwt, sizeof jwt, &k);
    check(err == ZQ_OK || err == ZQ_ERR_MALFORMED || err == ZQ_ERR_TOO_LONG ||
          err == ZQ_ERR_INVALID_ARG);
    if (err == ZQ_OK) {
        check(memchr(jwt, '\0', sizeof jwt) != NULL);
        check(strchr(jwt, '.') != NULL && strchr(strchr(jwt, '.') + 1, '.') != NULL);
        check_key(&k);
    }
    err = nats_nkey_from_seed(&k, (const char *)data, size);
    check(err == ZQ_OK || err == ZQ_ERR_MALFORMED || err == ZQ_ERR_INVALID_ARG);
    if (err == ZQ_OK) {
        check_key(&k);
    }
    return 0;
}
