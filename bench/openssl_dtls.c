/* OpenSSL's DTLS 1.2, driven the way bench_dtls.c drives zq, for the side-by-side columns: two
 * SSL objects in one process over a datagram-preserving memory BIO (OpenSSL 3.0 has no
 * BIO_s_dgram_pair), doing per handshake what zq does: ECDHE on P-256, ECDSA P-256 certificates
 * on both sides checked only against a pinned SHA-256 fingerprint (no chain building, like zq's
 * verify callback), a HelloVerifyRequest cookie, no session cache or tickets, 1200-byte datagrams.
 *
 * Not zq code: it mallocs (OpenSSL does anyway) and is built only when CMake finds OpenSSL. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include "bench/bench_dtls.h"

#define FP_LEN 32 /* SHA-256 */

/* ---- A queue of datagrams per direction, behind a BIO ---------------------------------------- */

#define QUEUE_LEN 16

typedef struct {
    size_t len;
    unsigned char data[BENCH_MTU];
} datagram_t;

typedef struct {
    datagram_t slot[QUEUE_LEN];
    unsigned head;
    unsigned count;
} queue_t;

typedef struct {
    queue_t *in;
    queue_t *out;
} endpoint_io_t;

static queue_t to_server;
static queue_t to_client;
static endpoint_io_t client_io = {&to_client, &to_server};
static endpoint_io_t server_io = {&to_server, &to_client};
static BIO_METHOD *dgram_method;
static unsigned long sent_datagrams;
static unsigned long sent_bytes;

/* Like a UDP socket: one write is one datagram, one read takes one whole datagram. A datagram
 * above the MTU is refused, so OpenSSL cannot win by sending larger ones. */
static int dgram_write(BIO *b, const char *buf, int len)
{
    queue_t *q = ((endpoint_io_t *)BIO_get_data(b))->out;
    BIO_clear_retry_flags(b);
    if (len < 0 || (size_t)len > sizeof q->slot[0].data) {
        fprintf(stderr, "bench_dtls: OpenSSL sent a %d-byte datagram\n", len);
        return -1;
    }
    if (q->count == QUEUE_LEN) {
        BIO_set_retry_write(b);
        return -1;
    }
    datagram_t *d = &q->slot[(q->head + q->count) % QUEUE_LEN];
    memcpy(d->data, buf, (size_t)len);
    d->len = (size_t)len;
    q->count++;
    sent_datagrams++;
    sent_bytes += (unsigned long)len;
    return len;
}

static int dgram_read(BIO *b, char *buf, int len)
{
    queue_t *q = ((endpoint_io_t *)BIO_get_data(b))->in;
    BIO_clear_retry_flags(b);
    if (q->count == 0) {
        BIO_set_retry_read(b);
        return -1;
    }
    const datagram_t *d = &q->slot[q->head];
    size_t n = d->len < (size_t)len ? d->len : (size_t)len; /* truncated, as recv() would */
    memcpy(buf, d->data, n);
    q->head = (q->head + 1) % QUEUE_LEN;
    q->count--;
    return (int)n;
}

static long dgram_ctrl(BIO *b, int cmd, long num, void *ptr)
{
    (void)num;
    (void)ptr;
    const queue_t *in = ((endpoint_io_t *)BIO_get_data(b))->in;
    switch (cmd) {
    case BIO_CTRL_FLUSH:
    case BIO_CTRL_DGRAM_SET_NEXT_TIMEOUT:
        return 1;
    case BIO_CTRL_PENDING:
        return in->count > 0 ? (long)in->slot[in->head].len : 0;
    case BIO_CTRL_DGRAM_QUERY_MTU:
    case BIO_CTRL_DGRAM_GET_FALLBACK_MTU:
        return BENCH_MTU;
    case BIO_CTRL_DGRAM_GET_MTU_OVERHEAD:
        return 28; /* IPv4 + UDP headers, what a UDP socket BIO reports */
    default:
        return 0;
    }
}

static int dgram_create(BIO *b)
{
    BIO_set_init(b, 1);
    return 1;
}

static bool make_dgram_method(void)
{
    dgram_method = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "bench datagrams");
    return dgram_method != NULL && BIO_meth_set_write(dgram_method, dgram_write) &&
           BIO_meth_set_read(dgram_method, dgram_read) &&
           BIO_meth_set_ctrl(dgram_method, dgram_ctrl) &&
           BIO_meth_set_create(dgram_method, dgram_create);
}

/* ---- Identities and contexts ---------------------------------------------------------------- */

typedef struct {
    EVP_PKEY *key;
    X509 *cert;
    unsigned char fp[FP_LEN];
} identity_t;

static identity_t id_a; /* client */
static identity_t id_b; /* server */
static unsigned char cookie_secret[32];
static SSL_CTX *client_ctx;
static SSL_CTX *server_ctx;
static SSL_CTX *bulk_client_ctx;
static SSL_CTX *bulk_server_ctx;
static SSL *client;
static SSL *server;

/* A fresh P-256 key and a self-signed certificate for it, as dtls_identity_generate() makes. */
static bool make_identity(identity_t *id)
{
    unsigned fp_len = 0;
    id->key = EVP_EC_gen("P-256");
    id->cert = X509_new();
    if (id->key == NULL || id->cert == NULL) {
        return false;
    }
    X509 *x = id->cert;
    X509_NAME *name = X509_get_subject_name(x);
    return X509_set_version(x, X509_VERSION_3) &&
           ASN1_INTEGER_set(X509_get_serialNumber(x), 1) &&
           X509_gmtime_adj(X509_getm_notBefore(x), 0) != NULL &&
           X509_gmtime_adj(X509_getm_notAfter(x), 30L * 24 * 3600) != NULL &&
           X509_set_pubkey(x, id->key) &&
           X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)"bench",
                                      -1, -1, 0) &&
           X509_set_issuer_name(x, name) && X509_sign(x, id->key, EVP_sha256()) > 0 &&
           X509_digest(x, EVP_sha256(), id->fp, &fp_len) && fp_len == FP_LEN;
}

/* RFC 8827 §6.5, as zq: the peer's certificate is trusted iff its SHA-256 matches the pinned
 * fingerprint. Replaces OpenSSL's chain verification entirely, as zq's callback bypasses the
 * (empty) CA list. */
static int check_pin(X509_STORE_CTX *store, void *arg)
{
    unsigned char fp[FP_LEN];
    unsigned len = 0;
    X509 *leaf = X509_STORE_CTX_get0_cert(store);
    return leaf != NULL && X509_digest(leaf, EVP_sha256(), fp, &len) && len == FP_LEN &&
           CRYPTO_memcmp(fp, arg, FP_LEN) == 0;
}

/* The peer's transport id, as zq binds its cookie to the client's address bytes. */
static const unsigned char client_addr[4] = {10, 0, 0, 1};

/* RFC 6347 §4.2.1: a stateless cookie, HMAC of the client's address under a server secret
 * (mbedTLS's is HMAC-SHA-224 over a timestamp and the address). */
static int cookie_generate(SSL *ssl, unsigned char *cookie, unsigned int *len)
{
    (void)ssl;
    return HMAC(EVP_sha256(), cookie_secret, sizeof cookie_secret, client_addr,
                sizeof client_addr, cookie, len) != NULL;
}

static int cookie_verify(SSL *ssl, const unsigned char *cookie, unsigned int len)
{
    unsigned char expected[EVP_MAX_MD_SIZE];
    unsigned expected_len = 0;
    (void)ssl;
    return HMAC(EVP_sha256(), cookie_secret, sizeof cookie_secret, client_addr,
                sizeof client_addr, expected, &expected_len) != NULL &&
           len == expected_len && CRYPTO_memcmp(cookie, expected, len) == 0;
}

static SSL_CTX *make_ctx(bool is_server, const identity_t *own, const identity_t *peer,
                         const char *ciphers)
{
    SSL_CTX *ctx = SSL_CTX_new(is_server ? DTLS_server_method() : DTLS_client_method());
    if (ctx == NULL) {
        return NULL;
    }
    uint64_t options = SSL_OP_NO_TICKET | SSL_OP_NO_QUERY_MTU;
    if (is_server) {
        options |= SSL_OP_COOKIE_EXCHANGE;
        SSL_CTX_set_cookie_generate_cb(ctx, cookie_generate);
        SSL_CTX_set_cookie_verify_cb(ctx, cookie_verify);
    }
    SSL_CTX_set_options(ctx, options);
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, NULL);
    SSL_CTX_set_cert_verify_callback(ctx, check_pin, (void *)peer->fp);
    if (SSL_CTX_set_min_proto_version(ctx, DTLS1_2_VERSION) &&
        SSL_CTX_set_max_proto_version(ctx, DTLS1_2_VERSION) &&
        SSL_CTX_set_cipher_list(ctx, ciphers) && SSL_CTX_set1_groups_list(ctx, "P-256") &&
        SSL_CTX_set1_sigalgs_list(ctx, "ECDSA+SHA256") &&
        SSL_CTX_set1_client_sigalgs_list(ctx, "ECDSA+SHA256") &&
        SSL_CTX_use_certificate(ctx, own->cert) && SSL_CTX_use_PrivateKey(ctx, own->key)) {
        return ctx;
    }
    SSL_CTX_free(ctx);
    return NULL;
}

/* ---- One pair of connections ---------------------------------------------------------------- */

static bool attach(SSL *ssl, endpoint_io_t *io)
{
    BIO *b = BIO_new(dgram_method);
    if (b == NULL) {
        return false;
    }
    BIO_set_data(b, io);
    SSL_set_bio(ssl, b, b);
    return SSL_set_mtu(ssl, BENCH_MTU) > 0;
}

static bool step(SSL *ssl, bool *done)
{
    int r = SSL_do_handshake(ssl);
    if (r == 1) {
        *done = true;
        return true;
    }
    int e = SSL_get_error(ssl, r);
    return e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE;
}

static void disconnect(void)
{
    SSL_free(client); /* and its BIO */
    SSL_free(server);
    client = server = NULL;
}

static bool connect_pair(SSL_CTX *cctx, SSL_CTX *sctx)
{
    memset(&to_server, 0, sizeof to_server);
    memset(&to_client, 0, sizeof to_client);
    client = SSL_new(cctx);
    server = SSL_new(sctx);
    if (client == NULL || server == NULL || !attach(client, &client_io) ||
        !attach(server, &server_io)) {
        return false;
    }
    SSL_set_connect_state(client);
    SSL_set_accept_state(server);
    bool client_done = false;
    bool server_done = false;
    for (int round = 0; round < 64 && !(client_done && server_done); round++) {
        if ((!client_done && !step(client, &client_done)) ||
            (!server_done && !step(server, &server_done))) {
            break;
        }
    }
    /* Both sides proved their pinned certificate, as zq requires of a WebRTC peer. */
    if (!(client_done && server_done) || SSL_get0_peer_certificate(client) == NULL ||
        SSL_get0_peer_certificate(server) == NULL) {
        fprintf(stderr, "bench_dtls: OpenSSL handshake failed\n");
        ERR_print_errors_fp(stderr);
        return false;
    }
    return true;
}

/* ---- The operations bench_dtls.c times ----------------------------------------------------- */

static const char *ossl_version(void)
{
    static char text[64];
    snprintf(text, sizeof text, "OpenSSL %s", OpenSSL_version(OPENSSL_VERSION_STRING));
    return text;
}

/* What zq's default context offers: AES-128-GCM first, then ChaCha20-Poly1305. */
static const char *const default_ciphers =
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-ECDSA-CHACHA20-POLY1305";

static bool ossl_setup(void)
{
    if (!make_dgram_method() || !make_identity(&id_a) || !make_identity(&id_b) ||
        RAND_bytes(cookie_secret, sizeof cookie_secret) != 1) {
        ERR_print_errors_fp(stderr);
        return false;
    }
    client_ctx = make_ctx(false, &id_a, &id_b, default_ciphers);
    server_ctx = make_ctx(true, &id_b, &id_a, default_ciphers);
    if (client_ctx == NULL || server_ctx == NULL) {
        ERR_print_errors_fp(stderr);
        return false;
    }
    return true;
}

static bool ossl_handshakes(unsigned long n)
{
    for (unsigned long i = 0; i < n; i++) {
        bool ok = connect_pair(client_ctx, server_ctx);
        disconnect();
        if (!ok) {
            return false;
        }
    }
    return true;
}

static bool ossl_bulk_begin(bench_suite_t suite)
{
    const char *cipher = suite == BENCH_AES_128_GCM ? "ECDHE-ECDSA-AES128-GCM-SHA256"
                                                    : "ECDHE-ECDSA-CHACHA20-POLY1305";
    bulk_client_ctx = make_ctx(false, &id_a, &id_b, cipher);
    bulk_server_ctx = make_ctx(true, &id_b, &id_a, cipher);
    return bulk_client_ctx != NULL && bulk_server_ctx != NULL &&
           connect_pair(bulk_client_ctx, bulk_server_ctx);
}

static size_t ossl_max_payload(void)
{
    return DTLS_get_data_mtu(client);
}

static const char *ossl_suite_name(void)
{
    return SSL_CIPHER_standard_name(SSL_get_current_cipher(client));
}

static bool ossl_bulk(size_t len, unsigned long records)
{
    static unsigned char payload[BENCH_MTU];
    static unsigned char plain[2048];
    for (unsigned long i = 0; i < records; i++) {
        if (SSL_write(client, payload, (int)len) != (int)len ||
            SSL_read(server, plain, sizeof plain) != (int)len) {
            ERR_print_errors_fp(stderr);
            return false;
        }
    }
    return true;
}

static void ossl_bulk_end(void)
{
    disconnect();
    SSL_CTX_free(bulk_client_ctx);
    SSL_CTX_free(bulk_server_ctx);
    bulk_client_ctx = bulk_server_ctx = NULL;
}

static void ossl_traffic(unsigned long *datagrams, unsigned long *bytes)
{
    *datagrams = sent_datagrams;
    *bytes = sent_bytes;
}

const bench_stack_t bench_openssl = {
    .name = "openssl",
    .version = ossl_version,
    .setup = ossl_setup,
    .handshakes = ossl_handshakes,
    .bulk_begin = ossl_bulk_begin,
    .max_payload = ossl_max_payload,
    .suite_name = ossl_suite_name,
    .bulk = ossl_bulk,
    .bulk_end = ossl_bulk_end,
    .traffic = ossl_traffic,
};
