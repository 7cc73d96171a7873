/**
 * @file sig_link.h
 * @brief A node's link to its signalling server, as `zq echo` and the broker commands keep it:
 *        the WebSocket (ws_client.h), node_handle_signal() for what comes in, the node's
 *        frames out in order, and a reconnect with ZeroQ's backoff when the server goes away
 *        (peers stay up meanwhile).
 *
 * The owner's loop driver calls zq_sig_link_timeout() and zq_sig_link_next_timeout() from its
 * own, and zq_sig_link_flush() after each turn of I/O.
 */
#ifndef ZQ_PORT_POSIX_SIG_LINK_H
#define ZQ_PORT_POSIX_SIG_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "node/node.h"
#include "port/posix/loop.h"
#include "port/posix/ws_client.h"

typedef struct {
    const char *cmd;              /* who its lines name: "echo", "device sensor-1" */
    zq_loop_t *loop;              /* borrowed */
    node_t *node;                 /* borrowed */
    zq_ws_url_t url;
    zq_ws_client_t ws;
    uint64_t reconnect_at;        /* ZQ_TIME_NEVER while connected */
    uint32_t backoff_ms;
    char frame[ZQ_SIG_FRAME_MAX]; /* a signalling frame the socket could not take yet */
    size_t frame_len;
} zq_sig_link_t;

/** Parses @p url into @p l (nothing opened yet). @return ZQ_OK, or an error with @p why. */
zq_err_t zq_sig_link_init(zq_sig_link_t *l, const char *cmd, zq_loop_t *loop, node_t *node,
                          const char *url, const char **why);
/** Connects (the first time: the caller reports a failure). @return ZQ_OK or why not. */
zq_err_t zq_sig_link_open(zq_sig_link_t *l, const char **why);
/** Reconnects when a retry is due. */
void zq_sig_link_timeout(zq_sig_link_t *l, uint64_t now);
/** When the next retry is due, or ZQ_TIME_NEVER while connected. */
uint64_t zq_sig_link_next_timeout(const zq_sig_link_t *l);
/** Sends the node's frames, in order; one the socket cannot take waits for the next turn. */
void zq_sig_link_flush(zq_sig_link_t *l, uint64_t now);
void zq_sig_link_close(zq_sig_link_t *l);
/** Says on stderr why a member and we are not connected (NODE_EVENT_PEER_REFUSED: it waits
 *  for our slot; NODE_EVENT_WAITING: we wait for its). @return whether @p ev was one. */
bool zq_sig_link_note_slots(const zq_sig_link_t *l, const node_event_t *ev);

#endif /* ZQ_PORT_POSIX_SIG_LINK_H */
