/* Hosting a node on this machine (see node_host.h). */
#include "cli/node_host.h"

#include "cli/cli.h"

static uint8_t arena[ZQ_NODE_HOST_ARENA];

bool zq_node_host_identity(zq_rand_t *rand, dtls_identity_t *identity, dtls_context_t *dtls)
{
    dtls_arena_init(arena, sizeof arena);
    dtls_config_t cfg;
    dtls_config_default(&cfg);
    cfg.rand = *rand;
    return dtls_identity_generate(identity, rand) == ZQ_OK &&
           dtls_context_init(dtls, &cfg, identity) == ZQ_OK;
}

static size_t host_addresses(const zq_addr_t *want, zq_addr_t *out, size_t cap)
{
    zq_addr_t any = zq_cli_any_addr(want->family, 0);
    if (!zq_addr_equal(want, &any)) {
        out[0] = *want;
        return 1;
    }
    zq_addr_t found[16];
    size_t n = zq_port_host_addresses(found, 16, true);
    size_t kept = 0;
    for (size_t i = 0; i < n && kept < cap; i++) {
        if (found[i].family == want->family) {
            out[kept++] = found[i];
        }
    }
    return kept;
}

uint8_t zq_node_host_open_udp(const zq_addr_t *want, zq_socket_t socks[ZQ_NODE_MAX_HOSTS],
                              node_config_t *cfg)
{
    zq_addr_t addrs[ZQ_NODE_MAX_HOSTS];
    size_t n = host_addresses(want, addrs, ZQ_NODE_MAX_HOSTS);
    uint8_t opened = 0;
    for (size_t i = 0; i < n; i++) {
        zq_addr_t bound;
        if (zq_port_udp_open(&socks[opened], &addrs[i], &bound) == ZQ_OK) {
            opened++;
            cfg->hosts[cfg->n_hosts++] = bound;
        }
    }
    return opened;
}

bool zq_node_host_transmit(node_t *node, uint64_t now, zq_addr_t *local, zq_addr_t *remote,
                           const uint8_t **data, size_t *len)
{
    peer_transmit_t tx;
    if (!node_poll_transmit(node, now, &tx)) {
        return false;
    }
    *local = tx.local;
    *remote = tx.remote;
    *data = tx.data;
    *len = tx.len;
    return true;
}
