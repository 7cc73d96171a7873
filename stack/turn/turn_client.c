/* A TURN client allocation over UDP or TCP (see turn.h): requests and their retransmissions, the
 * long-term credential, refreshes, permissions, channels, and what comes back relayed. */
#include <stdio.h>
#include <string.h>

#include "psa/crypto.h"
#include "stack/turn/turn.h"
#include "zq/bytes.h"

#define MAX_SENDS 7         /* Rc (RFC 8489 §6.2.1) */
#define FINAL_WAIT 16       /* Rm */
#define RELIABLE_TIMEOUT_MS 39500 /* Ti (RFC 8489 §6.2.2), over TCP */
#define DEFAULT_RTO_MS 500  /* RFC 8489 §6.2.1's suggestion when nothing is known of the path */
#define REFRESH_RETRY_MS 5000 /* an unanswered Refresh is tried again this much later */
#define PERMISSION_LIFETIME_MS (300u * 1000u) /* RFC 8656 §9 */
#define CHANNEL_LIFETIME_MS (600u * 1000u)    /* RFC 8656 §12 */
/* Everything is refreshed at half its lifetime: the other half is for refreshes that go
 * unanswered (a network that comes and goes: each failed transaction is tried again 5 s
 * later, and a minute of margin missed the up-windows of one that is down 3/4 of the time). */
#define PERMISSION_REFRESH_MS (PERMISSION_LIFETIME_MS / 2)
#define CHANNEL_REFRESH_MS (CHANNEL_LIFETIME_MS / 2)

/* ---- Events ------------------------------------------------------------------------------ */

static void push(turn_client_t *t, const turn_event_t *ev)
{
    if (t->ev_count == ZQ_TURN_EVENT_QUEUE) {
        t->dropped++;
        return;
    }
    t->events[(t->ev_head + t->ev_count) % ZQ_TURN_EVENT_QUEUE] = *ev;
    t->ev_count++;
}

bool turn_client_poll_event(turn_client_t *t, turn_event_t *ev)
{
    if (t->ev_count == 0) {
        return false;
    }
    *ev = t->events[t->ev_head];
    t->ev_head = (uint8_t)((t->ev_head + 1) % ZQ_TURN_EVENT_QUEUE);
    t->ev_count--;
    return true;
}

static void fail(turn_client_t *t, uint16_t code)
{
    t->state = TURN_FAILED;
    memset(t->txns, 0, sizeof t->txns);
    push(t, &(turn_event_t){.type = TURN_EVENT_FAILED, .code = code});
}

/* ---- Requests ------------------------------------------------------------------------------ */

static turn_txn_t *new_txn(turn_client_t *t, uint16_t type, uint64_t now)
{
    for (size_t i = 0; i < ZQ_TURN_MAX_TXNS; i++) {
        turn_txn_t *x = &t->txns[i];
        if (!x->active) {
            memset(x, 0, sizeof *x);
            x->active = true;
            x->type = type;
            x->rto = t->cfg.rto_ms;
            x->due = true; /* the next poll_output() sends it */
            x->next_ms = now;
            if (zq_rand_bytes(&t->cfg.rand, x->tid, sizeof x->tid) != ZQ_OK) {
                x->active = false;
                return NULL;
            }
            return x;
        }
    }
    return NULL;
}

static turn_txn_t *find_txn(turn_client_t *t, const uint8_t tid[STUN_TID_LEN])
{
    for (size_t i = 0; i < ZQ_TURN_MAX_TXNS; i++) {
        if (t->txns[i].active && memcmp(t->txns[i].tid, tid, STUN_TID_LEN) == 0) {
            return &t->txns[i];
        }
    }
    return NULL;
}

/* RFC 8489 §9.2.2: key = MD5(username ":" realm ":" password). The password is taken as it is:
 * SASLprep (OpaqueString) leaves ASCII passwords unchanged. */
static bool make_key(turn_client_t *t)
{
    char input[3 * TURN_CREDENTIAL_MAX + 3];
    int n = snprintf(input, sizeof input, "%s:%s:%s", t->cfg.username, t->realm,
                     t->cfg.password);
    size_t key_len = 0;
    t->has_key = n > 0 && (size_t)n < sizeof input &&
                 psa_hash_compute(PSA_ALG_MD5, (const uint8_t *)input, (size_t)n, t->key,
                                  sizeof t->key, &key_len) == PSA_SUCCESS &&
                 key_len == sizeof t->key;
    return t->has_key;
}

/* The body of request @p x: its own attributes, then the credential once known. */
static size_t build(turn_client_t *t, const turn_txn_t *x, uint8_t *buf, size_t cap)
{
    stun_builder_t b;
    stun_build_start(&b, buf, cap, x->type, x->tid);
    if (x->type == TURN_ALLOCATE_REQUEST) {
        static const uint8_t udp[4] = {TURN_PROTOCOL_UDP, 0, 0, 0};
        stun_put_attr(&b, TURN_ATTR_REQUESTED_TRANSPORT, udp, sizeof udp);
    } else if (x->type == TURN_REFRESH_REQUEST) {
        stun_put_u32(&b, TURN_ATTR_LIFETIME, x->release ? 0 : t->lifetime_s);
    } else if (x->type == TURN_CREATE_PERMISSION_REQUEST) {
        stun_put_xor_address(&b, TURN_ATTR_XOR_PEER_ADDRESS, &x->peer);
    } else if (x->type == TURN_CHANNEL_BIND_REQUEST) {
        stun_put_u32(&b, TURN_ATTR_CHANNEL_NUMBER, (uint32_t)x->channel << 16);
        stun_put_xor_address(&b, TURN_ATTR_XOR_PEER_ADDRESS, &x->peer);
    }
    if (t->has_key) {
        stun_put_attr(&b, STUN_ATTR_USERNAME, t->cfg.username, strlen(t->cfg.username));
        stun_put_attr(&b, STUN_ATTR_REALM, t->realm, strlen(t->realm));
        stun_put_attr(&b, STUN_ATTR_NONCE, t->nonce, strlen(t->nonce));
        stun_put_integrity(&b, t->key, sizeof t->key);
    }
    stun_put_fingerprint(&b);
    return stun_build_finish(&b);
}

bool turn_client_poll_output(turn_client_t *t, uint64_t now, const uint8_t **out, size_t *len)
{
    for (size_t i = 0; i < ZQ_TURN_MAX_TXNS; i++) {
        turn_txn_t *x = &t->txns[i];
        if (!x->active || !x->due) {
            continue;
        }
        size_t n = build(t, x, t->out, sizeof t->out);
        x->due = false;
        x->sends++;
        x->next_ms = t->cfg.reliable ? now + RELIABLE_TIMEOUT_MS
                                     : stun_next_retransmit(now, x->sends, MAX_SENDS,
                                                            t->cfg.rto_ms, FINAL_WAIT, &x->rto);
        if (n == 0) {
            x->active = false; /* longer than ZQ_TURN_DATAGRAM_MAX: credentials are bounded */
            continue;
        }
        *out = t->out;
        *len = n;
        return true;
    }
    return false;
}

/* ---- Timers ---------------------------------------------------------------------------- */

static turn_permission_t *find_permission(turn_client_t *t, const zq_addr_t *peer)
{
    for (size_t i = 0; i < ZQ_TURN_MAX_PERMISSIONS; i++) {
        if (t->perms[i].used && zq_addr_same_ip(&t->perms[i].ip, peer)) {
            return &t->perms[i];
        }
    }
    return NULL;
}

static turn_channel_t *find_channel(turn_client_t *t, const zq_addr_t *peer, uint16_t number)
{
    for (size_t i = 0; i < ZQ_TURN_MAX_CHANNELS; i++) {
        turn_channel_t *c = &t->channels[i];
        if (c->used && (peer != NULL ? zq_addr_equal(&c->peer, peer) : c->number == number)) {
            return c;
        }
    }
    return NULL;
}

static bool has_txn(const turn_client_t *t, uint16_t type, const zq_addr_t *peer)
{
    for (size_t i = 0; i < ZQ_TURN_MAX_TXNS; i++) {
        const turn_txn_t *x = &t->txns[i];
        if (x->active && x->type == type && (peer == NULL || zq_addr_equal(&x->peer, peer))) {
            return true;
        }
    }
    return false;
}

static void request_permission(turn_client_t *t, uint64_t now, turn_permission_t *p)
{
    turn_txn_t *x;
    if (!has_txn(t, TURN_CREATE_PERMISSION_REQUEST, &p->ip) &&
        (x = new_txn(t, TURN_CREATE_PERMISSION_REQUEST, now)) != NULL) {
        x->peer = p->ip;
        p->refresh_ms = now + PERMISSION_REFRESH_MS;
    }
}

static void request_channel(turn_client_t *t, uint64_t now, turn_channel_t *c)
{
    turn_txn_t *x;
    if (!has_txn(t, TURN_CHANNEL_BIND_REQUEST, &c->peer) &&
        (x = new_txn(t, TURN_CHANNEL_BIND_REQUEST, now)) != NULL) {
        x->peer = c->peer;
        x->channel = c->number;
        c->refresh_ms = now + CHANNEL_REFRESH_MS;
    }
}

static void refresh_due(turn_client_t *t, uint64_t now)
{
    if (now >= t->refresh_ms && !has_txn(t, TURN_REFRESH_REQUEST, NULL) &&
        new_txn(t, TURN_REFRESH_REQUEST, now) != NULL) {
        t->refresh_ms = now + (uint64_t)t->lifetime_s * 1000u; /* the answer sets it again */
    }
    /* Only what carried data since its last refresh is kept: a peer that is gone (or moved)
     * gives its slot back within one refresh period instead of holding it forever. */
    for (size_t i = 0; i < ZQ_TURN_MAX_PERMISSIONS; i++) {
        turn_permission_t *p = &t->perms[i];
        if (p->used && now >= p->refresh_ms) {
            p->used = p->in_use;
            p->in_use = false;
            if (p->used) {
                request_permission(t, now, p);
            }
        }
    }
    for (size_t i = 0; i < ZQ_TURN_MAX_CHANNELS; i++) {
        turn_channel_t *c = &t->channels[i];
        if (c->used && now >= c->refresh_ms) {
            c->used = c->in_use;
            c->in_use = false;
            if (c->used) {
                request_channel(t, now, c);
            }
        }
    }
}

static uint64_t earliest(const turn_client_t *t)
{
    uint64_t next = UINT64_MAX;
    for (size_t i = 0; i < ZQ_TURN_MAX_TXNS; i++) {
        if (t->txns[i].active && t->txns[i].next_ms < next) {
            next = t->txns[i].next_ms;
        }
    }
    if (t->state != TURN_ALLOCATED) {
        return next;
    }
    next = t->refresh_ms < next ? t->refresh_ms : next;
    for (size_t i = 0; i < ZQ_TURN_MAX_PERMISSIONS; i++) {
        if (t->perms[i].used && t->perms[i].refresh_ms < next) {
            next = t->perms[i].refresh_ms;
        }
    }
    for (size_t i = 0; i < ZQ_TURN_MAX_CHANNELS; i++) {
        if (t->channels[i].used && t->channels[i].refresh_ms < next) {
            next = t->channels[i].refresh_ms;
        }
    }
    return next;
}

/* Whether a refresh that failed with @p code (0: unanswered) is worth another try at @p now:
 * nobody refused it, and the server still holds what it refreshes until @p expires_ms. */
static bool retry_refresh(uint16_t code, uint64_t now, uint64_t expires_ms)
{
    return code == 0 && now + REFRESH_RETRY_MS < expires_ms;
}

/* A refused or unanswered CreatePermission or ChannelBind gives its slot back: the next
 * send to that peer asks again instead of finding a permission that never came. But a
 * refresh the server did not answer (the network is down for a while) keeps what the server
 * still holds and asks again until it would have expired there: a channel forgotten here
 * while the server still binds it would lose what the peer sends on it. @return whether the
 * slot was kept. */
static bool forget_peer(turn_client_t *t, uint64_t now, const turn_txn_t *x, uint16_t code)
{
    turn_permission_t *p = x->type == TURN_CREATE_PERMISSION_REQUEST ? find_permission(t, &x->peer)
                                                                     : NULL;
    turn_channel_t *c = x->type == TURN_CHANNEL_BIND_REQUEST ? find_channel(t, &x->peer, 0) : NULL;
    if (p != NULL && p->installed && retry_refresh(code, now, p->expires_ms)) {
        p->refresh_ms = now + REFRESH_RETRY_MS;
        p->in_use = true;
        return true;
    }
    if (c != NULL && c->bound && retry_refresh(code, now, c->expires_ms)) {
        c->refresh_ms = now + REFRESH_RETRY_MS;
        c->in_use = true;
        return true;
    }
    if (p != NULL) {
        p->used = false;
    }
    if (c != NULL) {
        c->used = false;
    }
    return false;
}

/* Request @p x failed (@p code: the server's error, 0 when unanswered): without its Allocate the
 * allocation never was; a Refresh the server refused ends it, one it did not answer (the
 * network is down for a while) is tried again until the lifetime is over, when the server
 * forgets it too (RFC 8656 §7.2); a release is over either way; a permission or channel is
 * refused. */
static void txn_failed(turn_client_t *t, uint64_t now, turn_txn_t *x, uint16_t code)
{
    x->active = false;
    bool refresh = x->type == TURN_REFRESH_REQUEST && !x->release;
    if (refresh && retry_refresh(code, now, t->expires_ms)) {
        t->refresh_ms = now + REFRESH_RETRY_MS;
        t->refresh_retries++;
    } else if (x->type == TURN_ALLOCATE_REQUEST || refresh) {
        fail(t, code);
    } else if (x->release) {
        t->state = TURN_IDLE;
    } else if (!forget_peer(t, now, x, code)) {
        push(t, &(turn_event_t){.type = TURN_EVENT_REFUSED, .peer = x->peer, .code = code});
    }
}

uint64_t turn_client_timeout(turn_client_t *t, uint64_t now)
{
    for (size_t i = 0; i < ZQ_TURN_MAX_TXNS && t->state != TURN_FAILED; i++) {
        turn_txn_t *x = &t->txns[i];
        if (!x->active || x->due || now < x->next_ms) {
            continue;
        }
        /* RFC 8489 §6.2.1: Rm x RTO after the last send; over TCP, Ti after the only one */
        if (x->sends >= MAX_SENDS || t->cfg.reliable) {
            txn_failed(t, now, x, 0);
        } else {
            x->due = true; /* again, with the same transaction id */
            x->next_ms = now;
        }
    }
    if (t->state == TURN_ALLOCATED) {
        refresh_due(t, now);
    }
    return earliest(t);
}

/* ---- Answers ---------------------------------------------------------------------------- */

static void copy_text(char *dst, size_t cap, const stun_bytes_t *src)
{
    size_t n = src->len < cap - 1 ? src->len : cap - 1;
    memcpy(dst, src->data, n);
    dst[n] = '\0';
}

/* 401 with REALM and NONCE, or 438 with a new NONCE: the same request once more with the
 * credential (RFC 8489 §9.2.3, a new transaction). @return false if it cannot be retried. */
static bool retry_with_credential(turn_client_t *t, uint64_t now, turn_txn_t *x,
                                  const stun_msg_t *msg)
{
    if (x->retried_auth || !(msg->present & STUN_HAS_NONCE) ||
        (msg->error_code == TURN_ERROR_UNAUTHORIZED && !(msg->present & STUN_HAS_REALM))) {
        return false;
    }
    if (msg->present & STUN_HAS_REALM) {
        copy_text(t->realm, sizeof t->realm, &msg->realm);
    }
    t->new_nonces += msg->error_code == TURN_ERROR_STALE_NONCE;
    copy_text(t->nonce, sizeof t->nonce, &msg->nonce);
    if (!make_key(t)) {
        return false;
    }
    turn_txn_t again = *x;
    x->active = false;
    turn_txn_t *y = new_txn(t, again.type, now);
    if (y == NULL) {
        return false;
    }
    y->peer = again.peer;
    y->channel = again.channel;
    y->release = again.release;
    y->retried_auth = true;
    return true;
}

/* The allocation lives @p lifetime_s from @p now: Refresh at half of it. */
static void schedule_refresh(turn_client_t *t, uint64_t now, uint32_t lifetime_s)
{
    t->lifetime_s = lifetime_s;
    t->refresh_ms = now + (uint64_t)lifetime_s * 500u;
    t->expires_ms = now + (uint64_t)lifetime_s * 1000u;
}

static void allocated(turn_client_t *t, uint64_t now, const stun_msg_t *msg,
                      const turn_attrs_t *a)
{
    if (!(a->present & TURN_HAS_XOR_RELAYED_ADDRESS)) {
        fail(t, 0);
        return;
    }
    t->relayed = a->relayed;
    t->mapped = msg->xor_mapped;
    schedule_refresh(t, now, (a->present & TURN_HAS_LIFETIME) ? a->lifetime_s : 600);
    t->state = TURN_ALLOCATED;
    push(t, &(turn_event_t){.type = TURN_EVENT_ALLOCATED, .peer = t->relayed});
}

static void succeeded(turn_client_t *t, uint64_t now, turn_txn_t *x, const stun_msg_t *msg,
                      const turn_attrs_t *a)
{
    turn_permission_t *p;
    turn_channel_t *c;
    switch (x->type) {
    case TURN_ALLOCATE_REQUEST:
        allocated(t, now, msg, a);
        break;
    case TURN_REFRESH_REQUEST:
        if (x->release) {
            t->state = TURN_IDLE;
            break;
        }
        t->refreshes++;
        schedule_refresh(t, now, (a->present & TURN_HAS_LIFETIME) ? a->lifetime_s : t->lifetime_s);
        break;
    case TURN_CREATE_PERMISSION_REQUEST:
        if ((p = find_permission(t, &x->peer)) != NULL) {
            p->expires_ms = now + PERMISSION_LIFETIME_MS;
        }
        if (p != NULL && !p->installed) {
            p->installed = true;
            push(t, &(turn_event_t){.type = TURN_EVENT_PERMISSION, .peer = x->peer});
        }
        break;
    case TURN_CHANNEL_BIND_REQUEST:
        if ((c = find_channel(t, &x->peer, 0)) != NULL) {
            c->expires_ms = now + CHANNEL_LIFETIME_MS;
        }
        if (c != NULL && !c->bound) {
            c->bound = true;
            push(t, &(turn_event_t){.type = TURN_EVENT_CHANNEL, .peer = x->peer,
                                    .channel = c->number});
        }
        break;
    default:
        break;
    }
}

static void refused(turn_client_t *t, uint64_t now, turn_txn_t *x, const stun_msg_t *msg)
{
    uint16_t code = msg->error_code;
    if ((code == TURN_ERROR_UNAUTHORIZED || code == TURN_ERROR_STALE_NONCE) &&
        retry_with_credential(t, now, x, msg)) {
        return;
    }
    txn_failed(t, now, x, code);
}

/* An answer to one of our requests: authenticated with our key once we have one (a 401 that
 * asks for it carries none, RFC 8489 §9.2.4). */
static void answer(turn_client_t *t, uint64_t now, const stun_msg_t *msg)
{
    turn_txn_t *x = find_txn(t, msg->tid);
    turn_attrs_t a;
    unsigned cls = stun_class_of(msg->type);
    bool signed_ok = t->has_key && stun_verify_integrity(msg, t->key, sizeof t->key) == ZQ_OK;
    bool challenge = cls == 3 && !(msg->present & STUN_HAS_MESSAGE_INTEGRITY) &&
                     (msg->error_code == TURN_ERROR_UNAUTHORIZED ||
                      msg->error_code == TURN_ERROR_STALE_NONCE);
    if (x == NULL || stun_method_of(msg->type) != x->type || turn_parse_attrs(msg, &a) != ZQ_OK ||
        (!signed_ok && !challenge && t->has_key)) {
        t->dropped++;
        return;
    }
    if (cls == 2) {
        x->active = false;
        if (a.unknown_required > 0) { /* RFC 8489 §6.3.4: the transaction failed */
            refused(t, now, x, msg);
            return;
        }
        succeeded(t, now, x, msg, &a);
    } else {
        refused(t, now, x, msg);
    }
}

/* Data went to or came from @p peer: its permission and channel are refreshed when due. */
static void mark_in_use(turn_client_t *t, const zq_addr_t *peer)
{
    turn_permission_t *p = find_permission(t, peer);
    turn_channel_t *c = find_channel(t, peer, 0);
    if (p != NULL) {
        p->in_use = true;
    }
    if (c != NULL) {
        c->in_use = true;
    }
}

/* What a peer sent to the relayed address: only from a peer with a permission (§10.4). */
static void relayed_in(turn_client_t *t, const zq_addr_t *peer, const uint8_t *data, size_t len)
{
    if (find_permission(t, peer) == NULL && find_channel(t, peer, 0) == NULL) {
        t->dropped++;
        return;
    }
    mark_in_use(t, peer);
    push(t, &(turn_event_t){.type = TURN_EVENT_DATA, .peer = *peer, .data = data,
                            .data_len = len});
}

void turn_client_handle(turn_client_t *t, uint64_t now, const uint8_t *buf, size_t len)
{
    if (t->state == TURN_IDLE || t->state == TURN_FAILED) {
        t->dropped++;
        return;
    }
    if (turn_is_channel_data(buf, len)) {
        uint16_t number;
        const uint8_t *data;
        size_t n;
        turn_channel_t *c;
        if (turn_channel_data_parse(buf, len, &number, &data, &n) != ZQ_OK ||
            (c = find_channel(t, NULL, number)) == NULL || !c->bound) {
            t->dropped++;
            return;
        }
        relayed_in(t, &c->peer, data, n);
        return;
    }
    stun_msg_t msg;
    if (stun_parse(&msg, buf, len) != ZQ_OK) {
        t->dropped++;
        return;
    }
    if (msg.type == TURN_DATA_INDICATION) {
        turn_attrs_t a;
        if (turn_parse_attrs(&msg, &a) != ZQ_OK ||
            (a.present & (TURN_HAS_XOR_PEER_ADDRESS | TURN_HAS_DATA)) !=
                (TURN_HAS_XOR_PEER_ADDRESS | TURN_HAS_DATA)) {
            t->dropped++;
            return;
        }
        relayed_in(t, &a.peer, a.data, a.data_len);
        return;
    }
    answer(t, now, &msg);
}

/* ---- The caller's requests ------------------------------------------------------------ */

zq_err_t turn_client_start(turn_client_t *t, const turn_config_t *cfg, uint64_t now)
{
    memset(t, 0, sizeof *t);
    t->cfg = *cfg;
    if (strlen(cfg->username) > TURN_CREDENTIAL_MAX || strlen(cfg->password) > TURN_CREDENTIAL_MAX) {
        return ZQ_ERR_TOO_LONG;
    }
    t->cfg.rto_ms = cfg->rto_ms != 0 ? cfg->rto_ms : DEFAULT_RTO_MS;
    t->next_channel = TURN_CHANNEL_MIN;
    t->state = TURN_ALLOCATING;
    /* RFC 8656 §7.1: the first Allocate goes without credentials; the 401 brings the realm. */
    return new_txn(t, TURN_ALLOCATE_REQUEST, now) != NULL ? ZQ_OK : ZQ_ERR_CRYPTO;
}

zq_err_t turn_client_permit(turn_client_t *t, uint64_t now, const zq_addr_t *peer)
{
    if (t->state != TURN_ALLOCATED) {
        return ZQ_ERR_STATE;
    }
    turn_permission_t *p = find_permission(t, peer);
    if (p != NULL) {
        return ZQ_OK; /* requested or installed already; refresh_due() keeps it */
    }
    for (size_t i = 0; p == NULL && i < ZQ_TURN_MAX_PERMISSIONS; i++) {
        if (!t->perms[i].used) {
            p = &t->perms[i];
            memset(p, 0, sizeof *p);
            p->used = true;
            p->ip = *peer;
            p->ip.port = 0;
        }
    }
    if (p == NULL) {
        return ZQ_ERR_CAPACITY;
    }
    request_permission(t, now, p);
    return ZQ_OK;
}

zq_err_t turn_client_bind(turn_client_t *t, uint64_t now, const zq_addr_t *peer)
{
    if (t->state != TURN_ALLOCATED) {
        return ZQ_ERR_STATE;
    }
    turn_channel_t *c = find_channel(t, peer, 0);
    if (c != NULL) {
        return ZQ_OK; /* bound or being bound; refresh_due() keeps it */
    }
    for (size_t i = 0; c == NULL && i < ZQ_TURN_MAX_CHANNELS; i++) {
        if (!t->channels[i].used && t->next_channel <= TURN_CHANNEL_MAX) {
            c = &t->channels[i];
            memset(c, 0, sizeof *c);
            c->used = true;
            c->peer = *peer;
            c->number = t->next_channel++;
        }
    }
    if (c == NULL) {
        return ZQ_ERR_CAPACITY;
    }
    request_channel(t, now, c);
    return ZQ_OK;
}

size_t turn_client_wrap(turn_client_t *t, const zq_addr_t *peer, const uint8_t *data,
                        size_t len, uint8_t *out, size_t cap)
{
    if (t->state != TURN_ALLOCATED) {
        return 0;
    }
    mark_in_use(t, peer);
    turn_channel_t *c = find_channel(t, peer, 0);
    if (c != NULL && c->bound) {
        return turn_channel_data_write(out, cap, c->number, data, len);
    }
    /* §11: a Send indication carries no credential and is not answered. */
    uint8_t tid[STUN_TID_LEN];
    if (zq_rand_bytes(&t->cfg.rand, tid, sizeof tid) != ZQ_OK) {
        return 0;
    }
    stun_builder_t b;
    stun_build_start(&b, out, cap, TURN_SEND_INDICATION, tid);
    stun_put_xor_address(&b, TURN_ATTR_XOR_PEER_ADDRESS, peer);
    stun_put_attr(&b, TURN_ATTR_DATA, data, len);
    stun_put_fingerprint(&b);
    return stun_build_finish(&b);
}

void turn_client_release(turn_client_t *t, uint64_t now)
{
    if (t->state != TURN_ALLOCATED) {
        t->state = TURN_IDLE;
        return;
    }
    memset(t->txns, 0, sizeof t->txns);
    memset(t->perms, 0, sizeof t->perms);
    memset(t->channels, 0, sizeof t->channels);
    turn_txn_t *x = new_txn(t, TURN_REFRESH_REQUEST, now);
    if (x == NULL) {
        t->state = TURN_IDLE;
        return;
    }
    x->release = true;
    t->state = TURN_RELEASING;
}
