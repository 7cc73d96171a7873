/* A bounded walk over the DTLS records of one datagram (RFC 6347 §4.1), before mbedTLS sees
 * it: a datagram that is not a run of well-formed records is dropped and counted here, since
 * mbedTLS discards such input silently.
 *
 *      0        1        2        3        4 .. 10     11       12
 *     +--------+--------+--------+--------+-----------+--------+--------+
 *     |  type  |  version (254.x)| epoch  | seq (48)  |     length      |  fragment...
 *     +--------+--------+--------+--------+-----------+--------+--------+
 */
#include "stack/dtls/dtls_internal.h"
#include "zq/bytes.h"

#define RECORD_HEADER_LEN 13

/* RFC 5246 §6.2.1 content types: change_cipher_spec 20 .. heartbeat 24 (and 25, tls12_cid). */
static bool known_content_type(uint8_t type)
{
    return type >= 20 && type <= 25;
}

bool dtls_datagram_well_formed(const uint8_t *data, size_t len)
{
    zq_reader_t r = zq_reader(data, len);
    if (len == 0) {
        return false;
    }
    while (zq_reader_left(&r) > 0) {
        uint8_t type = zq_read_u8(&r);
        uint8_t major = zq_read_u8(&r);
        (void)zq_read_bytes(&r, 1 + 2 + 6); /* minor version, epoch, sequence number */
        uint16_t length = zq_read_be16(&r);
        (void)zq_read_bytes(&r, length);
        /* DTLS versions are 254.x (1's complement of 1.x), RFC 6347 §4.1. */
        if (r.failed || !known_content_type(type) || major != 254) {
            return false;
        }
    }
    return true;
}

/* RFC 6347 §4.2.2: a ClientHello (handshake type 1) travels in an epoch-0 handshake record
 * (content type 22), the first record of its datagram. */
bool dtls_is_client_hello(const uint8_t *data, size_t len)
{
    return len > RECORD_HEADER_LEN && data[0] == 22 && data[3] == 0 && data[4] == 0 &&
           data[RECORD_HEADER_LEN] == 1;
}
