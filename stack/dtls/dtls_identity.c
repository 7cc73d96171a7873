/* The node's identity: one ECDSA P-256 key and a self-signed certificate, made once and used
 * for every connection. WebRTC trusts no CA: the peer checks our certificate against the
 * fingerprint we put in the SDP (RFC 8827 §6.5), so the certificate carries nothing else. */
#include <string.h>

#include "psa/crypto.h"
#include "stack/dtls/dtls.h"
#include "stack/dtls/dtls_mbedtls.h"
#include "zq/crypto.h"

/* A P-256 certificate with a short name is about 350 bytes of DER. */
#define CERT_DER_MAX 600

/* Peers do not check validity dates (the fingerprint is the trust), and a device may have no
 * clock; these span the device's lifetime. */
#define NOT_BEFORE "20250101000000"
#define NOT_AFTER "20491231235959"

/* Out of memory, in mbedTLS's words or PSA's (mbedTLS 4 maps its own codes onto PSA's). */
static bool out_of_memory(int ret)
{
    return ret == MBEDTLS_ERR_PK_ALLOC_FAILED || ret == MBEDTLS_ERR_X509_ALLOC_FAILED ||
           ret == PSA_ERROR_INSUFFICIENT_MEMORY;
}

static zq_err_t from_mbedtls(int ret)
{
    if (ret == 0) {
        return ZQ_OK;
    }
    return out_of_memory(ret) ? ZQ_ERR_CAPACITY : ZQ_ERR_CRYPTO;
}

static void compute_fingerprint(dtls_identity_t *id)
{
    zq_sha256(id->cert.raw.p, id->cert.raw.len, id->fingerprint.bytes);
}

/* The identity's key pair in PSA's terms: ECDSA P-256 (RFC 8827 §6.5), exportable so the port
 * can keep it (dtls_identity_export) and so that mbedTLS's X.509 and TLS layers get a copy. */
static void p256_attributes(psa_key_attributes_t *attr)
{
    *attr = psa_key_attributes_init();
    psa_set_key_type(attr, PSA_KEY_TYPE_ECC_KEY_PAIR(PSA_ECC_FAMILY_SECP_R1));
    psa_set_key_bits(attr, 256);
    psa_set_key_usage_flags(attr, PSA_KEY_USAGE_SIGN_HASH | PSA_KEY_USAGE_EXPORT);
    psa_set_key_algorithm(attr, PSA_ALG_DETERMINISTIC_ECDSA(PSA_ALG_SHA_256));
}

/* A fresh key from PSA's generator, copied into @p pk; the volatile PSA key is then destroyed,
 * so the node holds one copy only. */
static int generate_p256(mbedtls_pk_context *pk)
{
    psa_key_attributes_t attr;
    p256_attributes(&attr);
    mbedtls_svc_key_id_t key_id;
    psa_status_t st = psa_generate_key(&attr, &key_id);
    if (st != PSA_SUCCESS) {
        return (int)st;
    }
    int ret = mbedtls_pk_copy_from_psa(key_id, pk);
    (void)psa_destroy_key(key_id);
    return ret;
}

/* Whether an imported key is what generate_p256() makes: a P-256 key pair. */
static bool is_p256_key_pair(const mbedtls_pk_context *pk)
{
    psa_key_attributes_t attr = psa_key_attributes_init();
    bool ok = mbedtls_pk_get_psa_attributes(pk, PSA_KEY_USAGE_SIGN_HASH, &attr) == 0 &&
              psa_get_key_type(&attr) == PSA_KEY_TYPE_ECC_KEY_PAIR(PSA_ECC_FAMILY_SECP_R1) &&
              psa_get_key_bits(&attr) == 256;
    psa_reset_key_attributes(&attr);
    return ok;
}

/* RFC 5280 §4.1.2.2: a positive serial of up to 20 bytes; 8 random bytes make it unique. */
static int write_serial(mbedtls_x509write_cert *w, const zq_rand_t *rand)
{
    uint8_t serial[8];
    if (zq_rand_bytes(rand, serial, sizeof serial) != ZQ_OK) {
        return MBEDTLS_ERR_X509_BAD_INPUT_DATA;
    }
    serial[0] = (uint8_t)((serial[0] & 0x7F) | 0x01); /* positive, no leading zero byte */
    return mbedtls_x509write_crt_set_serial_raw(w, serial, sizeof serial);
}

static int self_sign(dtls_identity_t *id, const zq_rand_t *rand)
{
    mbedtls_x509write_cert w;
    uint8_t der[CERT_DER_MAX];
    mbedtls_x509write_crt_init(&w);
    mbedtls_x509write_crt_set_version(&w, MBEDTLS_X509_CRT_VERSION_3);
    mbedtls_x509write_crt_set_md_alg(&w, MBEDTLS_MD_SHA256);
    mbedtls_x509write_crt_set_subject_key(&w, &id->key);
    mbedtls_x509write_crt_set_issuer_key(&w, &id->key);
    int ret = mbedtls_x509write_crt_set_subject_name(&w, "CN=zq");
    if (ret == 0) {
        ret = mbedtls_x509write_crt_set_issuer_name(&w, "CN=zq");
    }
    if (ret == 0) {
        ret = write_serial(&w, rand);
    }
    if (ret == 0) {
        ret = mbedtls_x509write_crt_set_validity(&w, NOT_BEFORE, NOT_AFTER);
    }
    if (ret == 0) {
        /* The DER is written at the end of the buffer. */
        ret = dtls_mbedtls_write_crt_der(&w, der, sizeof der, rand);
    }
    if (ret > 0) {
        ret = mbedtls_x509_crt_parse_der(&id->cert, der + sizeof der - ret, (size_t)ret);
    }
    mbedtls_x509write_crt_free(&w);
    return ret;
}

zq_err_t dtls_identity_generate(dtls_identity_t *id, const zq_rand_t *rand)
{
    mbedtls_pk_init(&id->key);
    mbedtls_x509_crt_init(&id->cert);
    int ret = (int)psa_crypto_init(); /* idempotent; PSA's generator makes the key */
    if (ret == 0) {
        ret = generate_p256(&id->key);
    }
    if (ret == 0) {
        ret = self_sign(id, rand);
    }
    if (ret != 0) {
        dtls_identity_free(id);
        return from_mbedtls(ret);
    }
    compute_fingerprint(id);
    return ZQ_OK;
}

zq_err_t dtls_identity_export(const dtls_identity_t *id, uint8_t *key, size_t key_cap,
                              size_t *key_len, uint8_t *cert, size_t cert_cap, size_t *cert_len)
{
    /* mbedtls_pk_write_key_der() writes at the end of the buffer. */
    int ret = mbedtls_pk_write_key_der(&id->key, key, key_cap);
    if (ret <= 0) {
        return ret == MBEDTLS_ERR_ASN1_BUF_TOO_SMALL ? ZQ_ERR_NO_SPACE : ZQ_ERR_CRYPTO;
    }
    if (id->cert.raw.len > cert_cap) {
        return ZQ_ERR_NO_SPACE;
    }
    memmove(key, key + key_cap - (size_t)ret, (size_t)ret);
    *key_len = (size_t)ret;
    memcpy(cert, id->cert.raw.p, id->cert.raw.len);
    *cert_len = id->cert.raw.len;
    return ZQ_OK;
}

zq_err_t dtls_identity_import(dtls_identity_t *id, const uint8_t *key, size_t key_len,
                              const uint8_t *cert, size_t cert_len, const zq_rand_t *rand)
{
    mbedtls_pk_init(&id->key);
    mbedtls_x509_crt_init(&id->cert);
    int ret = (int)psa_crypto_init(); /* idempotent; mbedTLS 4 keeps parsed keys in PSA */
    if (ret == 0) {
        ret = dtls_mbedtls_parse_key(&id->key, key, key_len, rand);
    }
    if (ret == 0) {
        ret = mbedtls_x509_crt_parse_der(&id->cert, cert, cert_len);
    }
    if (ret == 0 && !is_p256_key_pair(&id->key)) {
        ret = MBEDTLS_ERR_PK_TYPE_MISMATCH;
    }
    if (ret == 0) {
        ret = dtls_mbedtls_check_pair(&id->cert.pk, &id->key, rand);
    }
    if (ret != 0) {
        dtls_identity_free(id);
        return out_of_memory(ret) ? ZQ_ERR_CAPACITY : ZQ_ERR_MALFORMED;
    }
    compute_fingerprint(id);
    return ZQ_OK;
}

void dtls_identity_free(dtls_identity_t *id)
{
    mbedtls_x509_crt_free(&id->cert);
    mbedtls_pk_free(&id->key);
}
