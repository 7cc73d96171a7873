/* What a peer event says to a person reading a log: how a peer connected (the candidate types
 * of the path DTLS took, which tell a direct path from a NAT-punched one from a relayed one)
 * and why one failed (for ICE: what was tried, so "no relay was offered" or "the peer sent no
 * server-reflexive candidate" can be read off the line). One writer for every runner. */
#include "node/node.h"
#include "zq/text.h"

/* "host srflx relay": the types set in @p mask, or "none". */
static void write_types(zq_writer_t *w, uint8_t mask)
{
    static const ice_cand_type_t order[] = {ICE_CAND_HOST, ICE_CAND_SRFLX, ICE_CAND_PRFLX,
                                            ICE_CAND_RELAY};
    bool any = false;
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        if (mask & (1u << order[i])) {
            zq_write_str(w, any ? " " : "");
            zq_write_str(w, ice_cand_type_name(order[i]));
            any = true;
        }
    }
    zq_write_str(w, any ? "" : "none");
}

static void write_tried(zq_writer_t *w, const ice_tried_t *t)
{
    zq_write_str(w, "; ICE tried ");
    zq_write_udec(w, t->pairs);
    zq_write_str(w, t->pairs == 1 ? " pair, " : " pairs, ");
    zq_write_udec(w, t->pairs_valid);
    zq_write_str(w, " answered; our candidates ");
    write_types(w, t->local_types);
    zq_write_str(w, ", theirs ");
    write_types(w, t->remote_types);
}

size_t node_describe_event(const node_event_t *ev, char *out, size_t cap)
{
    zq_writer_t w = zq_text_writer(out, cap);
    if (ev->type == NODE_EVENT_PEER_CONNECTED) {
        zq_write_str(&w, "connected in ");
        zq_write_udec(&w, ev->elapsed_ms);
        zq_write_str(&w, " ms");
        if (ev->path_known) {
            zq_write_str(&w, " over ");
            zq_write_str(&w, ice_cand_type_name((ice_cand_type_t)ev->path_local));
            zq_write_str(&w, " -> ");
            zq_write_str(&w, ice_cand_type_name((ice_cand_type_t)ev->path_remote));
        }
    } else if (ev->type == NODE_EVENT_PEER_GONE) {
        zq_write_str(&w, "gone");
        if (ev->failure != PEER_FAIL_NONE) {
            zq_write_str(&w, ": ");
            zq_write_str(&w, peer_failure_name(ev->failure));
        }
        if (ev->tried.local_types != 0) { /* it failed before ICE found a path */
            write_tried(&w, &ev->tried);
        }
    }
    return zq_text_end(&w);
}

size_t node_describe_relay(const node_t *n, const node_event_t *ev, char *out, size_t cap)
{
    static const char *const over[] = {"UDP", "TCP", "TLS"};
    zq_writer_t w = zq_text_writer(out, cap);
#if ZQ_NODE_TURN
    if (ev->type == NODE_EVENT_RELAY && ev->relay_transport < NODE_RELAY_TRANSPORTS) {
        zq_write_str(&w, "TURN allocation over ");
        zq_write_str(&w, over[ev->relay_transport]);
        if (ev->relay_up) {
            zq_write_str(&w, " in ");
            zq_write_udec(&w, ev->elapsed_ms);
            char relayed[ZQ_ADDR_TEXT_MAX];
            zq_addr_format(&n->relay.turn.relayed, relayed, sizeof relayed);
            zq_write_str(&w, " ms: relayed address ");
            zq_write_str(&w, relayed);
        } else {
            zq_write_str(&w, " failed: ");
            zq_write_str(&w, n->relay.why);
        }
    }
#else
    (void)n, (void)ev, (void)over;
#endif
    return zq_text_end(&w);
}
