/* The node's DTLS identity kept in NVS (see zq_esp32.h): its certificate fingerprint, which
 * peers may pin, survives a reboot. Two blobs in the namespace: "key" (SEC1 DER) and "cert"
 * (DER). NVS keeps them in plain text unless NVS encryption is enabled (CONFIG_NVS_ENCRYPTION). */
#include "zq_esp32.h"

#include "esp_log.h"
#include "nvs.h"

static const char *TAG = "zq-identity";

/* A P-256 key in SEC1 DER is ~121 bytes; zq's self-signed certificate ~300-400 bytes
 * (tests/unit/test_dtls_identity.c exports into 256 and 600). */
#define KEY_DER_MAX 160
#define CERT_DER_MAX 600

static bool load(nvs_handle_t h, dtls_identity_t *id, const zq_rand_t *rand)
{
    uint8_t key[KEY_DER_MAX];
    uint8_t cert[CERT_DER_MAX];
    size_t key_len = sizeof key;
    size_t cert_len = sizeof cert;
    if (nvs_get_blob(h, "key", key, &key_len) != ESP_OK ||
        nvs_get_blob(h, "cert", cert, &cert_len) != ESP_OK) {
        return false; /* none kept yet (ESP_ERR_NVS_NOT_FOUND), or unreadable */
    }
    if (dtls_identity_import(id, key, key_len, cert, cert_len, rand) != ZQ_OK) {
        ESP_LOGW(TAG, "the identity kept in NVS does not load: making a new one");
        return false;
    }
    return true;
}

static void store(nvs_handle_t h, const dtls_identity_t *id)
{
    uint8_t key[KEY_DER_MAX];
    uint8_t cert[CERT_DER_MAX];
    size_t key_len = 0;
    size_t cert_len = 0;
    if (dtls_identity_export(id, key, sizeof key, &key_len, cert, sizeof cert, &cert_len) !=
        ZQ_OK) {
        ESP_LOGW(TAG, "cannot export the identity: it lasts until the next reboot");
        return;
    }
    esp_err_t err = nvs_set_blob(h, "key", key, key_len);
    if (err == ESP_OK) {
        err = nvs_set_blob(h, "cert", cert, cert_len);
    }
    if (err == ESP_OK) {
        err = nvs_commit(h);
    }
    if (err != ESP_OK) {
        ESP_LOGW(TAG, "cannot keep the identity in NVS: %s", esp_err_to_name(err));
    }
}

zq_err_t zq_esp32_identity_load(dtls_identity_t *id, const zq_rand_t *rand, const char *ns)
{
    nvs_handle_t h;
    esp_err_t err = nvs_open(ns, NVS_READWRITE, &h);
    if (err != ESP_OK) {
        ESP_LOGW(TAG, "NVS namespace '%s': %s; the identity will not survive a reboot", ns,
                 esp_err_to_name(err));
        return dtls_identity_generate(id, rand);
    }
    zq_err_t zerr = ZQ_OK;
    if (!load(h, id, rand)) {
        zerr = dtls_identity_generate(id, rand);
        if (zerr == ZQ_OK) {
            store(h, id);
        }
    }
    nvs_close(h);
    return zerr;
}
