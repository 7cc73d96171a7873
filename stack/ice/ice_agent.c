/* The ICE agent's lifecycle: configuration, credentials, candidates, output queues, the
 * selected pair and the timers. Protocol work lives in the files named in ice_internal.h. */
#include <string.h>

#include "stack/ice/ice_internal.h"
#include "zq/crypto.h"
#include "zq/log.h"
#include "zq/text.h"

/* RFC 8839 §5.4: ice-char = ALPHA / DIGIT / "+" / "/": exactly 64 symbols, 6 bits each. */
static const char ice_chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

#define LOCAL_UFRAG_LEN 8 /* 48 random bits; RFC 8445 §5.3 asks for at least 24 */
#define LOCAL_PWD_LEN 24  /* 144 random bits; RFC 8445 §5.3 asks for at least 128 */

void ice_config_default(ice_config_t *cfg, ice_mode_t mode)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->mode = mode;
    cfg->role = ICE_ROLE_CONTROLLED;
    cfg->ta_ms = 50;
    cfg->rto_ms = 500;
    cfg->max_sends = 7;
    cfg->final_wait_factor = 16;
    cfg->nomination_wait_ms = 200;
    cfg->connect_timeout_ms = 30000;
    cfg->consent_interval_ms = 5000;
    cfg->consent_timeout_ms = 30000;
}

static zq_err_t random_ice_string(const zq_rand_t *rand, char *out, size_t len)
{
    uint8_t bytes[LOCAL_PWD_LEN];
    zq_err_t err = zq_rand_bytes(rand, bytes, len);
    for (size_t i = 0; i < len && err == ZQ_OK; i++) {
        out[i] = ice_chars[bytes[i] & 63u];
    }
    out[len] = '\0';
    return err;
}

static zq_err_t check_config(const ice_config_t *cfg)
{
    if (cfg->rand.fill == NULL || cfg->ta_ms == 0 || cfg->rto_ms == 0 || cfg->max_sends == 0 ||
        cfg->consent_interval_ms == 0 || cfg->consent_timeout_ms == 0) {
        return ZQ_ERR_INVALID_ARG;
    }
    if (cfg->mode == ICE_MODE_LITE && cfg->role == ICE_ROLE_CONTROLLING) {
        return ZQ_ERR_UNSUPPORTED; /* a lite agent never nominates (RFC 8445 §6.1.1) */
    }
    if (cfg->mode == ICE_MODE_FULL && !ZQ_ICE_FULL) {
        return ZQ_ERR_SWITCHED_OFF; /* a lite-only build (RFC 8445 §2.5) */
    }
    return ZQ_OK;
}

zq_err_t ice_agent_init(ice_agent_t *a, const ice_config_t *cfg)
{
    zq_err_t err = check_config(cfg);
    if (err != ZQ_OK) {
        return err;
    }
    memset(a, 0, sizeof *a);
    a->cfg = *cfg;
    a->role = cfg->role;
    a->state = ICE_STATE_NEW;
    a->selected = ICE_NONE;
    a->nominating = ICE_NONE;
    a->next_check_at = ZQ_TIME_NEVER;
    a->consent_at = ZQ_TIME_NEVER;
    a->first_valid_at = ZQ_TIME_NEVER;
    uint8_t tb[8];
    err = random_ice_string(&cfg->rand, a->local_cred.ufrag, LOCAL_UFRAG_LEN);
    if (err == ZQ_OK) {
        err = random_ice_string(&cfg->rand, a->local_cred.pwd, LOCAL_PWD_LEN);
    }
    if (err == ZQ_OK) {
        err = zq_rand_bytes(&cfg->rand, tb, sizeof tb);
    }
    a->tie_breaker = zq_load_be64(tb);
    return err;
}

const ice_credentials_t *ice_agent_local_credentials(const ice_agent_t *a)
{
    return &a->local_cred;
}

zq_err_t ice_agent_set_role(ice_agent_t *a, ice_role_t role)
{
    if (a->started) {
        return ZQ_ERR_STATE;
    }
    if (a->cfg.mode == ICE_MODE_LITE && role == ICE_ROLE_CONTROLLING) {
        return ZQ_ERR_UNSUPPORTED;
    }
    a->role = role;
    ice_recompute_priorities(a);
    return ZQ_OK;
}

static bool valid_ice_string(const char *s, size_t len, size_t min, size_t max)
{
    if (len < min || len > max) {
        return false;
    }
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '\0' || memchr(ice_chars, s[i], sizeof ice_chars - 1) == NULL) {
            return false;
        }
    }
    return true;
}

zq_err_t ice_agent_set_remote_credentials(ice_agent_t *a, const char *ufrag, size_t ufrag_len,
                                          const char *pwd, size_t pwd_len)
{
    /* RFC 8839 §5.4: ufrag 4..256 and pwd 22..256 ice-chars; zq bounds both by its config. */
    if (ufrag_len > ZQ_ICE_UFRAG_MAX || pwd_len > ZQ_ICE_PWD_MAX) {
        return ZQ_ERR_TOO_LONG;
    }
    if (!valid_ice_string(ufrag, ufrag_len, 4, ZQ_ICE_UFRAG_MAX) ||
        !valid_ice_string(pwd, pwd_len, 22, ZQ_ICE_PWD_MAX)) {
        return ZQ_ERR_MALFORMED;
    }
    memcpy(a->remote_cred.ufrag, ufrag, ufrag_len);
    a->remote_cred.ufrag[ufrag_len] = '\0';
    memcpy(a->remote_cred.pwd, pwd, pwd_len);
    a->remote_cred.pwd[pwd_len] = '\0';
    a->have_remote_cred = true;
    return ZQ_OK;
}

/* ---- Candidates ------------------------------------------------------------------------- */

/* RFC 8445 §5.1.1.3: a host candidate is its own base, and so is a relayed one (its
 * datagrams leave from the TURN server's relayed address); checks and data go from these. */
uint8_t ice_find_base(const ice_agent_t *a, const zq_addr_t *addr)
{
    for (uint8_t i = 0; i < a->n_local; i++) {
        ice_cand_type_t type = a->local[i].cand.type;
        if ((type == ICE_CAND_HOST || type == ICE_CAND_RELAY) &&
            zq_addr_equal(&a->local[i].base, addr)) {
            return i;
        }
    }
    return ICE_NONE;
}

/* RFC 8445 §5.1.1.3: candidates share a foundation when they have the same type, base IP and
 * STUN server. A CRC of those, in decimal, as browsers write it. */
_Static_assert(ZQ_ICE_FOUNDATION_MAX >= 10, "a foundation must hold a CRC-32 in decimal");

static void make_foundation(ice_cand_type_t type, const zq_addr_t *base,
                            char out[ZQ_ICE_FOUNDATION_MAX + 1])
{
    uint8_t key[18] = {(uint8_t)type, base->family};
    memcpy(key + 2, base->ip, sizeof base->ip);
    zq_writer_t w = zq_text_writer(out, ZQ_ICE_FOUNDATION_MAX + 1);
    zq_write_udec(&w, zq_crc32_update(0, key, sizeof key));
    (void)zq_text_end(&w);
}

uint8_t ice_add_local(ice_agent_t *a, ice_cand_type_t type, const zq_addr_t *addr,
                      const zq_addr_t *base)
{
    for (uint8_t i = 0; i < a->n_local; i++) {
        if (zq_addr_equal(&a->local[i].cand.addr, addr)) {
            return i;
        }
    }
    if (a->n_local == ZQ_ICE_MAX_LOCAL_CANDIDATES) {
        a->stats.capacity_exhausted++;
        return ICE_NONE;
    }
    uint8_t host = ice_find_base(a, base);
    /* Earlier hosts are preferred; derived candidates share their base's preference. */
    uint16_t local_pref = (uint16_t)(65535u - (host == ICE_NONE ? a->n_local : host));
    ice_local_t *l = &a->local[a->n_local];
    memset(l, 0, sizeof *l);
    l->cand.component = 1;
    l->cand.type = type;
    l->cand.addr = *addr;
    l->cand.priority = ice_candidate_priority(type, local_pref, 1);
    if (type != ICE_CAND_HOST) {
        l->cand.related = *base;
    }
    make_foundation(type, base, l->cand.foundation);
    l->base = *base;
    return a->n_local++;
}

static bool usable_host_address(const zq_addr_t *addr)
{
    static const uint8_t zero[16] = {0};
    size_t n = addr->family == ZQ_AF_INET6 ? 16 : 4;
    return (addr->family == ZQ_AF_INET4 || addr->family == ZQ_AF_INET6) && addr->port != 0 &&
           memcmp(addr->ip, zero, n) != 0;
}

zq_err_t ice_agent_add_host_candidate(ice_agent_t *a, uint64_t now, const zq_addr_t *addr)
{
    (void)now;
    if (!usable_host_address(addr)) {
        return ZQ_ERR_INVALID_ARG; /* 0.0.0.0 or port 0 cannot be a candidate */
    }
    if (ice_find_base(a, addr) != ICE_NONE) {
        return ZQ_OK;
    }
    uint8_t index = ice_add_local(a, ICE_CAND_HOST, addr, addr);
    if (index == ICE_NONE) {
        return ZQ_ERR_CAPACITY;
    }
    ice_queue_event(a, ICE_EVENT_LOCAL_CANDIDATE, index);
    ice_form_pairs(a);
    return ZQ_OK;
}

uint8_t ice_find_remote(const ice_agent_t *a, const zq_addr_t *addr)
{
    for (uint8_t i = 0; i < a->n_remote; i++) {
        if (zq_addr_equal(&a->remote[i].addr, addr)) {
            return i;
        }
    }
    return ICE_NONE;
}

uint8_t ice_add_remote(ice_agent_t *a, const ice_candidate_t *cand)
{
    uint8_t found = ice_find_remote(a, &cand->addr);
    if (found != ICE_NONE) {
        return found;
    }
    if (a->n_remote == ZQ_ICE_MAX_REMOTE_CANDIDATES) {
        a->stats.capacity_exhausted++;
        return ICE_NONE;
    }
    a->remote[a->n_remote] = *cand;
    return a->n_remote++;
}

zq_err_t ice_agent_add_remote_candidate(ice_agent_t *a, uint64_t now,
                                        const ice_candidate_t *cand)
{
    if (cand->component != 1 || !usable_host_address(&cand->addr)) {
        a->stats.candidates_skipped++;
        return ZQ_OK;
    }
    if (ice_add_remote(a, cand) == ICE_NONE) {
        return ZQ_ERR_CAPACITY;
    }
    ice_form_pairs(a);
    ice_checklist_tick(a, now);
    return ZQ_OK;
}

zq_err_t ice_agent_add_remote_candidate_line(ice_agent_t *a, uint64_t now, const char *line,
                                             size_t len)
{
    ice_candidate_t cand;
    zq_err_t err = ice_candidate_parse(line, len, &cand);
    if (err == ZQ_ERR_UNSUPPORTED) {
        a->stats.candidates_skipped++; /* TCP, mDNS names: not ours, not an error */
        return ZQ_OK;
    }
    return err == ZQ_OK ? ice_agent_add_remote_candidate(a, now, &cand) : err;
}

void ice_agent_remote_gathering_done(ice_agent_t *a)
{
    a->remote_gathering_done = true;
    ice_check_for_failure(a);
}

size_t ice_agent_local_candidate_count(const ice_agent_t *a)
{
    return a->n_local;
}

const ice_candidate_t *ice_agent_local_candidate(const ice_agent_t *a, size_t index)
{
    return index < a->n_local ? &a->local[index].cand : NULL;
}

/* ---- Start, inputs, timers ---------------------------------------------------------------- */

zq_err_t ice_agent_start(ice_agent_t *a, uint64_t now)
{
    if (a->started) {
        return ZQ_ERR_STATE;
    }
    if (a->n_local == 0) {
        return ZQ_ERR_STATE; /* nothing to listen on */
    }
    a->started = true;
    a->started_at = now;
    a->state = ICE_STATE_CHECKING;
    ice_recompute_priorities(a);
    if (a->cfg.mode == ICE_MODE_FULL) {
        ice_gather_start(a, now);
        ice_checklist_tick(a, now);
    }
    ice_gather_check_done(a);
    return ZQ_OK;
}

bool ice_is_terminal(const ice_agent_t *a)
{
    return a->state == ICE_STATE_FAILED || a->state == ICE_STATE_DISCONNECTED;
}

zq_err_t ice_agent_handle_datagram(ice_agent_t *a, uint64_t now, const zq_addr_t *local,
                                   const zq_addr_t *remote, const uint8_t *data, size_t len)
{
    stun_msg_t msg;
    zq_err_t parsed = stun_looks_like(data, len) ? stun_parse(&msg, data, len) : ZQ_ERR_MALFORMED;
    return ice_agent_handle_stun(a, now, local, remote, &msg, parsed);
}

/* What the parse refused is counted, never answered: without a sound structure and a
 * matching FINGERPRINT nothing in it can be trusted enough to answer (RFC 8489 §7.3). */
static void count_unparsed(ice_agent_t *a, zq_err_t parsed)
{
    if (parsed == ZQ_ERR_FINGERPRINT) {
        a->stats.rx_bad_fingerprint++;
    } else {
        a->stats.rx_malformed++;
    }
    ZQ_LOGD("ice", "dropped a datagram: %s", zq_strerror(parsed));
}

zq_err_t ice_agent_handle_stun(ice_agent_t *a, uint64_t now, const zq_addr_t *local,
                               const zq_addr_t *remote, const stun_msg_t *msg, zq_err_t parsed)
{
    a->stats.rx_datagrams++;
    if (ice_is_terminal(a)) {
        return ZQ_ERR_STATE;
    }
    uint8_t host = ice_find_base(a, local);
    if (host == ICE_NONE) {
        a->stats.rx_unknown_local++;
        return ZQ_ERR_NOT_FOUND;
    }
    if (parsed != ZQ_OK) {
        count_unparsed(a, parsed);
        return parsed;
    }
    switch (stun_class_of(msg->type)) {
    case 0:
        ice_handle_request(a, now, host, remote, msg);
        break;
    case 1:
        a->stats.rx_indications++; /* RFC 8445 §11: keepalives need no answer */
        break;
    default:
        ice_handle_response(a, now, host, remote, msg);
        break;
    }
    return ZQ_OK;
}

void ice_agent_handle_timeout(ice_agent_t *a, uint64_t now)
{
    if (ice_is_terminal(a) || !a->started) {
        return;
    }
    ice_txn_tick(a, now);
    ice_checklist_tick(a, now);
    ice_consent_tick(a, now);
    if (a->state == ICE_STATE_CHECKING && now >= a->started_at + a->cfg.connect_timeout_ms) {
        ZQ_LOGI("ice", "no pair selected after %u ms", (unsigned)a->cfg.connect_timeout_ms);
        ice_fail(a, ICE_EVENT_FAILED);
    }
}

uint64_t ice_agent_next_timeout(const ice_agent_t *a)
{
    if (ice_is_terminal(a) || !a->started) {
        return ZQ_TIME_NEVER;
    }
    uint64_t t = zq_time_min(ice_txn_next_timeout(a), ice_checklist_next_timeout(a));
    t = zq_time_min(t, ice_consent_next_timeout(a));
    if (a->state == ICE_STATE_CHECKING) {
        t = zq_time_min(t, a->started_at + a->cfg.connect_timeout_ms);
    }
    return t;
}

void ice_fail(ice_agent_t *a, ice_event_type_t why)
{
    a->state = why == ICE_EVENT_DISCONNECTED ? ICE_STATE_DISCONNECTED : ICE_STATE_FAILED;
    for (size_t i = 0; i < ZQ_ICE_MAX_TRANSACTIONS; i++) {
        ice_txn_free(&a->txns[i]);
    }
    a->next_check_at = ZQ_TIME_NEVER;
    a->consent_at = ZQ_TIME_NEVER;
    ice_queue_event(a, why, 0);
}

void ice_switch_role(ice_agent_t *a, ice_role_t role)
{
    if (a->role == role) {
        return;
    }
    ZQ_LOGI("ice", "role conflict resolved: now %s",
            role == ICE_ROLE_CONTROLLING ? "controlling" : "controlled");
    a->role = role;
    ice_recompute_priorities(a);
    ice_queue_event(a, ICE_EVENT_ROLE_CHANGED, 0);
}

/* ---- Selection ---------------------------------------------------------------------------- */

void ice_update_selection(ice_agent_t *a, uint64_t now)
{
    uint8_t best = ICE_NONE;
    for (uint8_t i = 0; i < a->n_pairs; i++) {
        const ice_pair_t *p = &a->pairs[i];
        bool usable = (p->flags & ICE_PAIR_NOMINATED) && (p->flags & ICE_PAIR_VALID);
        if (usable && (best == ICE_NONE || p->priority > a->pairs[best].priority)) {
            best = i;
        }
    }
    if (best == ICE_NONE || best == a->selected || ice_is_terminal(a)) {
        return;
    }
    a->selected = best;
    a->state = ICE_STATE_CONNECTED;
    ice_consent_start(a, now);
    ice_queue_event(a, ICE_EVENT_SELECTED_PAIR, best);
}

bool ice_agent_selected_pair(const ice_agent_t *a, zq_addr_t *local, zq_addr_t *remote)
{
    if (a->selected == ICE_NONE || ice_is_terminal(a)) {
        return false;
    }
    const ice_pair_t *p = &a->pairs[a->selected];
    *local = a->local[p->local].base;
    *remote = a->remote[p->remote].addr;
    return true;
}

void ice_agent_tried(const ice_agent_t *a, ice_tried_t *out)
{
    memset(out, 0, sizeof *out);
    for (uint8_t i = 0; i < a->n_local; i++) {
        out->local_types |= (uint8_t)(1u << a->local[i].cand.type);
    }
    for (uint8_t i = 0; i < a->n_remote; i++) {
        out->remote_types |= (uint8_t)(1u << a->remote[i].type);
    }
    out->pairs = a->n_pairs;
    for (uint8_t i = 0; i < a->n_pairs; i++) {
        out->pairs_valid = (uint8_t)(out->pairs_valid + ((a->pairs[i].flags & ICE_PAIR_VALID) != 0));
    }
}

/* The highest-priority pair of a full agent's valid list (§7.2.5.3.2), or ICE_NONE. A lite
 * agent marks the pairs of the checks it answered, but only nomination validates them for
 * sending (§7.3.2), so they do not count here. */
static uint8_t best_valid_pair(const ice_agent_t *a)
{
    uint8_t best = ICE_NONE;
    for (uint8_t i = 0; i < a->n_pairs && a->cfg.mode == ICE_MODE_FULL; i++) {
        const ice_pair_t *p = &a->pairs[i];
        bool better = best == ICE_NONE || p->priority > a->pairs[best].priority;
        if ((p->flags & ICE_PAIR_VALID) && better) {
            best = i;
        }
    }
    return best;
}

bool ice_agent_usable_pair(const ice_agent_t *a, zq_addr_t *local, zq_addr_t *remote)
{
    uint8_t pair = a->selected != ICE_NONE ? a->selected : best_valid_pair(a);
    if (pair == ICE_NONE || ice_is_terminal(a)) {
        return false;
    }
    const ice_pair_t *p = &a->pairs[pair];
    *local = a->local[p->local].base;
    *remote = a->remote[p->remote].addr;
    return true;
}

bool ice_agent_path_types(const ice_agent_t *a, const zq_addr_t *local, const zq_addr_t *remote,
                          ice_cand_type_t *local_type, ice_cand_type_t *remote_type)
{
    uint8_t l = ice_find_base(a, local);
    uint8_t r = ice_find_remote(a, remote);
    if (l == ICE_NONE || r == ICE_NONE) {
        return false;
    }
    *local_type = a->local[l].cand.type;
    *remote_type = a->remote[r].type;
    return true;
}

bool ice_agent_knows_remote(const ice_agent_t *a, const zq_addr_t *addr)
{
    return ice_find_remote(a, addr) != ICE_NONE;
}

bool ice_agent_gathering_done(const ice_agent_t *a)
{
    return a->gathering_done;
}

ice_state_t ice_agent_state(const ice_agent_t *a)
{
    return a->state;
}

ice_role_t ice_agent_role(const ice_agent_t *a)
{
    return a->role;
}

const ice_stats_t *ice_agent_stats(const ice_agent_t *a)
{
    return &a->stats;
}

uint32_t ice_agent_events_refused(const ice_agent_t *a)
{
    return zq_queue_refused(&a->evq);
}

/* ---- Output queues ------------------------------------------------------------------------ */

void ice_queue_datagram(ice_agent_t *a, const zq_addr_t *local, const zq_addr_t *remote,
                        const uint8_t *data, size_t len)
{
    if (a->tx_count == ZQ_ICE_TX_QUEUE || len > ZQ_STUN_MAX_MESSAGE) {
        /* The caller did not drain; the datagram is lost like on the wire and the STUN
         * retransmission (or the peer's) recovers it. Counted, never silent. */
        a->stats.queue_overflow++;
        return;
    }
    ice_tx_slot_t *slot = &a->tx[(a->tx_head + a->tx_count) % ZQ_ICE_TX_QUEUE];
    slot->local = *local;
    slot->remote = *remote;
    slot->len = (uint16_t)len;
    memcpy(slot->data, data, len);
    a->tx_count++;
}

bool ice_agent_poll_transmit(ice_agent_t *a, ice_transmit_t *tx)
{
    if (a->tx_count == 0) {
        return false;
    }
    const ice_tx_slot_t *slot = &a->tx[a->tx_head];
    tx->local = slot->local;
    tx->remote = slot->remote;
    tx->data = slot->data;
    tx->len = slot->len;
    a->tx_head = (uint8_t)((a->tx_head + 1) % ZQ_ICE_TX_QUEUE);
    a->tx_count--;
    return true;
}

void ice_queue_event(ice_agent_t *a, ice_event_type_t type, uint8_t index)
{
    ice_event_slot_t *slot = ZQ_QUEUE_PUSH(&a->evq, a->events);
    if (slot != NULL) {
        slot->type = (uint8_t)type;
        slot->index = index;
    }
}

bool ice_agent_poll_event(ice_agent_t *a, ice_event_t *ev)
{
    const ice_event_slot_t *slot = ZQ_QUEUE_POP(&a->evq, a->events);
    if (slot == NULL) {
        return false;
    }
    memset(ev, 0, sizeof *ev);
    ev->type = (ice_event_type_t)slot->type;
    ev->role = a->role;
    if (ev->type == ICE_EVENT_LOCAL_CANDIDATE) {
        ev->candidate = a->local[slot->index].cand;
        ev->candidate_index = slot->index;
    } else if (ev->type == ICE_EVENT_SELECTED_PAIR) {
        const ice_pair_t *p = &a->pairs[slot->index];
        ev->local = a->local[p->local].base;
        ev->remote = a->remote[p->remote].addr;
    }
    return true;
}
