/* The port contract (port/zq_port.h) with nothing behind it: every call succeeds or says
 * "nothing now". For the footprint images only (scripts/footprint): it lets the whole device
 * link on a bare-metal toolchain, and costs a few hundred bytes, where a real port (lwIP
 * sockets, a timer, a TRNG) costs what its OS does. Compiled in its own translation unit, so
 * the compiler cannot see through it and drop the code that handles what it returns. */
#include "port/zq_port.h"

#include <string.h>

#include "psa/crypto.h"

zq_err_t zq_port_init(void)
{
    return ZQ_OK;
}

static volatile uint64_t fake_clock;

uint64_t zq_port_now_ms(void)
{
    return fake_clock++;
}

static int fill(void *ctx, unsigned char *out, size_t len)
{
    (void)ctx;
    memset(out, 0x5a, len);
    return 0;
}

zq_rand_t zq_port_rand(void)
{
    zq_rand_t r = {fill, NULL};
    return r;
}

/* PSA Crypto's generator (MBEDTLS_PSA_CRYPTO_EXTERNAL_RNG): on a board, its TRNG. */
psa_status_t mbedtls_psa_external_get_random(mbedtls_psa_external_random_context_t *context,
                                             uint8_t *output, size_t output_size,
                                             size_t *output_length)
{
    (void)context;
    (void)fill(NULL, output, output_size);
    *output_length = output_size;
    return PSA_SUCCESS;
}

zq_err_t zq_port_udp_open(zq_socket_t *sock, const zq_addr_t *bind_addr, zq_addr_t *bound)
{
    *sock = 3;
    if (bound != NULL) {
        *bound = *bind_addr;
    }
    return ZQ_OK;
}

zq_err_t zq_port_udp_send(zq_socket_t sock, const zq_addr_t *to, const uint8_t *data, size_t len)
{
    (void)sock;
    (void)to;
    (void)data;
    (void)len;
    return ZQ_OK;
}

zq_err_t zq_port_udp_recv(zq_socket_t sock, zq_addr_t *from, uint8_t *buf, size_t cap,
                          size_t *len)
{
    (void)sock;
    (void)from;
    (void)buf;
    (void)cap;
    (void)len;
    return ZQ_ERR_WOULD_BLOCK;
}

void zq_port_udp_close(zq_socket_t sock)
{
    (void)sock;
}

zq_err_t zq_port_tcp_listen(zq_socket_t *sock, const zq_addr_t *bind_addr, zq_addr_t *bound)
{
    (void)bind_addr;
    (void)bound;
    *sock = ZQ_SOCKET_INVALID;
    return ZQ_ERR_UNSUPPORTED;
}

zq_err_t zq_port_tcp_accept(zq_socket_t listener, zq_socket_t *conn, zq_addr_t *peer)
{
    (void)listener;
    (void)peer;
    *conn = ZQ_SOCKET_INVALID;
    return ZQ_ERR_WOULD_BLOCK;
}

zq_err_t zq_port_tcp_connect(zq_socket_t *sock, const zq_addr_t *to, uint32_t timeout_ms)
{
    (void)to;
    (void)timeout_ms;
    *sock = 4;
    return ZQ_OK;
}

zq_err_t zq_port_tcp_send(zq_socket_t sock, const uint8_t *data, size_t len, size_t *sent)
{
    (void)sock;
    (void)data;
    *sent = len;
    return ZQ_OK;
}

zq_err_t zq_port_tcp_recv(zq_socket_t sock, uint8_t *buf, size_t cap, size_t *len)
{
    (void)sock;
    (void)buf;
    (void)cap;
    (void)len;
    return ZQ_ERR_WOULD_BLOCK;
}

void zq_port_tcp_close(zq_socket_t sock)
{
    (void)sock;
}

size_t zq_port_host_addresses(zq_addr_t *out, size_t cap, bool include_loopback)
{
    (void)include_loopback;
    if (cap == 0) {
        return 0;
    }
    memset(out, 0, sizeof *out);
    out->family = ZQ_AF_INET4;
    out->ip[0] = 192;
    out->ip[1] = 168;
    out->ip[3] = 2;
    return 1;
}
