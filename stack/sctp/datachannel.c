/* Data channels over one association (RFC 8831, RFC 8832): the channel table, DCEP, the
 * mapping of channel types to SCTP's per-message reliability, and closing by stream reset. */
#include <string.h>

#include "stack/sctp/datachannel.h"

/* Which directions of a closing channel are reset. */
enum {
    DC_CLOSE_OUT_ASKED = 1u << 0, /* we asked to reset our outgoing stream */
    DC_CLOSE_OUT_DONE = 1u << 1,  /* ... and the peer performed it */
    DC_CLOSE_IN_DONE = 1u << 2,   /* the peer reset its outgoing stream */
};

static const uint8_t dcep_ack_message[1] = {DCEP_ACK};

void dc_init(dc_t *dc, sctp_assoc_t *assoc, bool dtls_client, uint32_t local_max_message,
             uint32_t remote_max_message)
{
    memset(dc, 0, sizeof *dc);
    dc->assoc = assoc;
    dc->even_ids = dtls_client;
    dc->next_id = dtls_client ? 0 : 1;
    dc->local_max_message = local_max_message;
    dc->remote_max_message = remote_max_message;
}

static dc_channel_t *find(dc_t *dc, uint16_t id)
{
    for (size_t i = 0; i < ZQ_DC_MAX_CHANNELS; i++) {
        if (dc->channels[i].state != DC_STATE_FREE && dc->channels[i].id == id) {
            return &dc->channels[i];
        }
    }
    return NULL;
}

const dc_channel_t *dc_channel(const dc_t *dc, uint16_t id)
{
    return find((dc_t *)dc, id);
}

static dc_channel_t *free_slot(dc_t *dc)
{
    for (size_t i = 0; i < ZQ_DC_MAX_CHANNELS; i++) {
        if (dc->channels[i].state == DC_STATE_FREE) {
            return &dc->channels[i];
        }
    }
    return NULL;
}

/* Two per channel at most between drains (ZQ_DC_EVENT_QUEUE): a refusal means events were not
 * drained (dc_events_refused()). */
static void push_event(dc_t *dc, dc_event_type_t type, uint16_t id)
{
    dc_event_t *e = ZQ_QUEUE_PUSH(&dc->evq, dc->events);
    if (e != NULL) {
        e->type = type;
        e->id = id;
    }
}

bool dc_poll_event(dc_t *dc, dc_event_t *ev)
{
    const dc_event_t *oldest = ZQ_QUEUE_POP(&dc->evq, dc->events);
    if (oldest == NULL) {
        return false;
    }
    *ev = *oldest;
    return true;
}

uint32_t dc_events_refused(const dc_t *dc)
{
    return zq_queue_refused(&dc->evq);
}

/* ---- Sending ----------------------------------------------------------------------------- */

/* RFC 8831 §6.6 / RFC 8832 §6.4: a channel's type becomes per-message SCTP options; until the
 * peer's ACK, messages go ordered, so none overtakes the OPEN. */
static sctp_send_opts_t options_for(const dc_channel_t *ch)
{
    sctp_send_opts_t o = {false, SCTP_RELIABLE, 0};
    o.unordered = (ch->type & 0x80u) && ch->state == DC_STATE_OPEN;
    switch (ch->type & 0x7Fu) {
    case DC_PARTIAL_RELIABLE_REXMIT:
        o.max_retransmits = ch->reliability < SCTP_RELIABLE ? (uint16_t)ch->reliability
                                                            : SCTP_RELIABLE - 1;
        break;
    case DC_PARTIAL_RELIABLE_TIMED:
        o.lifetime_ms = ch->reliability > 0 ? ch->reliability : 1;
        break;
    default:
        break;
    }
    return o;
}

zq_err_t dc_open(dc_t *dc, uint64_t now, const char *label, const char *protocol,
                 dc_type_t type, uint32_t reliability, uint16_t *id)
{
    size_t label_len = strlen(label);
    size_t protocol_len = strlen(protocol);
    if (label_len > ZQ_DC_LABEL_MAX || protocol_len > ZQ_DC_PROTOCOL_MAX) {
        return ZQ_ERR_TOO_LONG;
    }
    dc_channel_t *ch = free_slot(dc);
    if (ch == NULL) {
        return ZQ_ERR_CAPACITY;
    }
    while (find(dc, dc->next_id) != NULL) {
        dc->next_id = (uint16_t)(dc->next_id + 2);
    }
    uint8_t msg[12 + ZQ_DC_LABEL_MAX + ZQ_DC_PROTOCOL_MAX];
    dcep_open_t open = {(uint8_t)type,   0, reliability, (const uint8_t *)label,
                        (uint16_t)label_len, (const uint8_t *)protocol, (uint16_t)protocol_len};
    size_t len = dcep_open_write(&open, msg, sizeof msg);
    zq_err_t err = sctp_send(dc->assoc, now, dc->next_id, DC_PPID_DCEP, msg, len, NULL);
    if (err != ZQ_OK) {
        return err;
    }
    memset(ch, 0, sizeof *ch);
    ch->id = dc->next_id;
    ch->state = DC_STATE_CONNECTING;
    ch->type = (uint8_t)type;
    ch->reliability = reliability;
    memcpy(ch->label, label, label_len + 1);
    memcpy(ch->protocol, protocol, protocol_len + 1);
    dc->next_id = (uint16_t)(dc->next_id + 2);
    *id = ch->id;
    return ZQ_OK;
}

zq_err_t dc_send(dc_t *dc, uint64_t now, uint16_t id, const uint8_t *data, size_t len,
                 bool binary)
{
    static const uint8_t empty_marker[1] = {0};
    dc_channel_t *ch = find(dc, id);
    if (ch == NULL) {
        return ZQ_ERR_NOT_FOUND;
    }
    if (ch->state == DC_STATE_CLOSING) {
        return ZQ_ERR_STATE;
    }
    if (len > dc->remote_max_message) {
        return ZQ_ERR_TOO_LONG; /* RFC 8841 §6.1: the peer said it cannot take it */
    }
    sctp_send_opts_t opts = options_for(ch);
    if (len == 0) {
        /* RFC 8831 §6.6: SCTP cannot carry an empty message; one byte with PPID 56/57. */
        return sctp_send(dc->assoc, now, id, binary ? DC_PPID_BINARY_EMPTY : DC_PPID_STRING_EMPTY,
                         empty_marker, 1, &opts);
    }
    return sctp_send(dc->assoc, now, id, binary ? DC_PPID_BINARY : DC_PPID_STRING, data, len,
                     &opts);
}

zq_err_t dc_send_part(dc_t *dc, uint64_t now, uint16_t id, const uint8_t *data, size_t len,
                      bool binary, bool first, bool last, size_t *accepted)
{
    *accepted = 0;
    if (first && last) {
        zq_err_t err = dc_send(dc, now, id, data, len, binary);
        *accepted = err == ZQ_OK ? len : 0;
        return err;
    }
    dc_channel_t *ch = find(dc, id);
    if (ch == NULL) {
        return ZQ_ERR_NOT_FOUND;
    }
    if (ch->state == DC_STATE_CLOSING && first) {
        return ZQ_ERR_STATE;
    }
    uint64_t total = (first ? 0 : dc->part_sent) + len;
    if (total > dc->remote_max_message) {
        /* RFC 8841 §6.1: the peer cannot take it. What went out is withdrawn (RFC 3758), or
         * the association must go: the peer would wait for the rest forever. */
        if (!first) {
            (void)dc_send_part_abandon(dc, now);
        }
        return ZQ_ERR_TOO_LONG;
    }
    sctp_send_opts_t opts = options_for(ch);
    zq_err_t err = sctp_send_part(dc->assoc, now, id, binary ? DC_PPID_BINARY : DC_PPID_STRING,
                                  data, len, first, last, &opts, accepted);
    if (err == ZQ_OK) {
        dc->part_sent = (first ? 0 : dc->part_sent) + *accepted;
    }
    return err;
}

zq_err_t dc_send_part_abandon(dc_t *dc, uint64_t now)
{
    zq_err_t err = sctp_send_part_abandon(dc->assoc, now);
    if (err == ZQ_ERR_UNSUPPORTED) {
        sctp_abort(dc->assoc, now); /* the peer would wait for the rest forever */
    }
    return err;
}

uint32_t dc_buffered_amount(const dc_t *dc, uint16_t id)
{
    return sctp_buffered_amount(dc->assoc, id);
}

zq_err_t dc_set_buffered_low(dc_t *dc, uint16_t id, uint32_t bytes)
{
    return find(dc, id) != NULL ? sctp_set_low_water(dc->assoc, id, bytes) : ZQ_ERR_NOT_FOUND;
}

/* ---- Closing ----------------------------------------------------------------------------- */

static void maybe_closed(dc_t *dc, dc_channel_t *ch)
{
    if ((ch->closing & DC_CLOSE_OUT_DONE) && (ch->closing & DC_CLOSE_IN_DONE)) {
        push_event(dc, DC_EVENT_CLOSED, ch->id);
        ch->state = DC_STATE_FREE;
    }
}

static void reset_outgoing(dc_t *dc, uint64_t now, dc_channel_t *ch)
{
    if (ch->closing & DC_CLOSE_OUT_ASKED) {
        return;
    }
    ch->state = DC_STATE_CLOSING;
    ch->closing |= DC_CLOSE_OUT_ASKED;
    if (sctp_reset_stream(dc->assoc, now, ch->id) != ZQ_OK) {
        ch->closing |= DC_CLOSE_OUT_DONE; /* no RE-CONFIG (or no room): nothing to wait for */
        maybe_closed(dc, ch);
    }
}

zq_err_t dc_close(dc_t *dc, uint64_t now, uint16_t id)
{
    dc_channel_t *ch = find(dc, id);
    if (ch == NULL) {
        return ZQ_ERR_NOT_FOUND;
    }
    reset_outgoing(dc, now, ch);
    return ZQ_OK;
}

/* Everything closes when the association goes away or restarts (RFC 8831 §6.7). */
static void close_all(dc_t *dc)
{
    for (size_t i = 0; i < ZQ_DC_MAX_CHANNELS; i++) {
        dc_channel_t *ch = &dc->channels[i];
        if (ch->state != DC_STATE_FREE) {
            push_event(dc, DC_EVENT_CLOSED, ch->id);
            ch->state = DC_STATE_FREE;
        }
    }
    dc->n_ack_pending = 0;
    dc->next_id = dc->even_ids ? 0 : 1;
}

bool dc_handle_sctp_event(dc_t *dc, uint64_t now, const sctp_event_t *ev)
{
    dc_channel_t *ch = find(dc, ev->stream);
    switch (ev->type) {
    case SCTP_EVENT_STREAM_RESET_IN:
        if (ch != NULL) {
            ch->closing |= DC_CLOSE_IN_DONE;
            reset_outgoing(dc, now, ch); /* answer the peer's close with ours */
            maybe_closed(dc, ch);
        }
        return false;
    case SCTP_EVENT_STREAM_RESET_DONE:
        if (ch != NULL) {
            ch->closing |= DC_CLOSE_OUT_DONE;
            maybe_closed(dc, ch);
        }
        return false;
    case SCTP_EVENT_WRITABLE:
        if (ev->stream == 0xFFFF) {
            return true;
        }
        if (ch != NULL) {
            push_event(dc, DC_EVENT_BUFFERED_LOW, ch->id);
        }
        return false;
    case SCTP_EVENT_RESTARTED:
    case SCTP_EVENT_ABORTED:
    case SCTP_EVENT_CLOSED:
        close_all(dc);
        return true;
    default:
        return true;
    }
}

/* ---- DCEP in ---------------------------------------------------------------------------- */

static void send_pending_acks(dc_t *dc, uint64_t now)
{
    uint8_t kept = 0;
    for (uint8_t i = 0; i < dc->n_ack_pending; i++) {
        const dc_channel_t *ch = &dc->channels[dc->ack_pending[i]];
        bool live = ch->state == DC_STATE_OPEN;
        if (live && sctp_send(dc->assoc, now, ch->id, DC_PPID_DCEP, dcep_ack_message,
                              sizeof dcep_ack_message, NULL) == ZQ_ERR_WOULD_BLOCK) {
            dc->ack_pending[kept++] = dc->ack_pending[i]; /* retried when room returns */
        }
    }
    dc->n_ack_pending = kept;
}

static void refuse(dc_t *dc, uint64_t now, uint16_t id)
{
    dc->stats.refused_opens++;
    (void)sctp_reset_stream(dc->assoc, now, id); /* RFC 8832 §6: close it at once */
}

static bool parity_is_ours(const dc_t *dc, uint16_t id)
{
    return (id % 2 == 0) == dc->even_ids;
}

static void handle_open(dc_t *dc, uint64_t now, uint16_t id, const uint8_t *data, size_t len)
{
    dcep_open_t open;
    if (dcep_open_parse(data, len, &open) != ZQ_OK) {
        dc->stats.rx_bad_dcep++;
        return;
    }
    dc_channel_t *ch = free_slot(dc);
    if (find(dc, id) != NULL || parity_is_ours(dc, id) || ch == NULL ||
        open.label_len > ZQ_DC_LABEL_MAX || open.protocol_len > ZQ_DC_PROTOCOL_MAX) {
        refuse(dc, now, id);
        return;
    }
    memset(ch, 0, sizeof *ch);
    ch->id = id;
    ch->state = DC_STATE_OPEN;
    ch->type = open.channel_type;
    ch->priority = open.priority;
    ch->reliability = open.reliability;
    memcpy(ch->label, open.label, open.label_len);
    memcpy(ch->protocol, open.protocol, open.protocol_len);
    dc->ack_pending[dc->n_ack_pending++] = (uint8_t)(ch - dc->channels);
    send_pending_acks(dc, now);
    push_event(dc, DC_EVENT_OPEN, id);
}

static void handle_dcep(dc_t *dc, uint64_t now, const sctp_message_t *m)
{
    if (!m->first || !m->last || m->len == 0) {
        dc->stats.rx_bad_dcep++; /* DCEP messages are small and whole */
        return;
    }
    if (m->data[0] == DCEP_OPEN) {
        handle_open(dc, now, m->stream, m->data, m->len);
        return;
    }
    dc_channel_t *ch = find(dc, m->stream);
    if (m->data[0] == DCEP_ACK && ch != NULL && ch->state == DC_STATE_CONNECTING) {
        ch->state = DC_STATE_OPEN;
        push_event(dc, DC_EVENT_OPEN, ch->id);
    } else if (m->data[0] != DCEP_ACK) {
        dc->stats.rx_bad_dcep++;
    }
}

/* RFC 8841 §6.1: what we advertised is what we take; a larger message closes the channel. */
static bool within_max_message(dc_t *dc, uint64_t now, dc_channel_t *ch, const sctp_message_t *m)
{
    ch->rx_message = m->first ? (uint32_t)m->len : ch->rx_message + (uint32_t)m->len;
    if (ch->rx_message <= dc->local_max_message) {
        return true;
    }
    dc->stats.rx_oversize++;
    reset_outgoing(dc, now, ch);
    return false;
}

static bool user_message(dc_t *dc, uint64_t now, const sctp_message_t *m, dc_message_t *msg)
{
    dc_channel_t *ch = find(dc, m->stream);
    if (m->aborted && ch != NULL) {
        memset(msg, 0, sizeof *msg);
        msg->id = m->stream;
        msg->last = true;
        msg->aborted = true;
        return true;
    }
    bool known_ppid = m->ppid == DC_PPID_STRING || m->ppid == DC_PPID_BINARY ||
                      m->ppid == DC_PPID_STRING_EMPTY || m->ppid == DC_PPID_BINARY_EMPTY;
    if (ch == NULL || !known_ppid) {
        dc->stats.rx_unknown_channel++;
        return false;
    }
    if (ch->state == DC_STATE_CLOSING || !within_max_message(dc, now, ch, m)) {
        return false;
    }
    if (ch->state == DC_STATE_CONNECTING) {
        /* Data on a channel we opened: the peer took our DATA_CHANNEL_OPEN, whatever became of
         * its ACK (RFC 8832 §6 sends both ordered on the stream; a peer that queues its ACK
         * behind data, or an old one that sends none, puts data first; libwebrtc also reads
         * data as the ACK). The channel opens before this message is read: a node
         * drops data of a channel it was not told is open (node_read_peer). */
        ch->state = DC_STATE_OPEN;
        push_event(dc, DC_EVENT_OPEN, ch->id);
    }
    bool empty = m->ppid == DC_PPID_STRING_EMPTY || m->ppid == DC_PPID_BINARY_EMPTY;
    msg->id = m->stream;
    msg->aborted = false;
    msg->binary = m->ppid == DC_PPID_BINARY || m->ppid == DC_PPID_BINARY_EMPTY;
    msg->first = m->first;
    msg->last = m->last;
    msg->data = m->data;
    msg->len = empty ? 0 : m->len;
    return true;
}

void dc_pump(dc_t *dc, uint64_t now)
{
    if (dc->n_ack_pending > 0) {
        send_pending_acks(dc, now);
    }
    uint32_t ppid;
    sctp_message_t m;
    while (sctp_next_ppid(dc->assoc, &ppid) && ppid == DC_PPID_DCEP &&
           sctp_read(dc->assoc, &m)) {
        handle_dcep(dc, now, &m);
    }
}

bool dc_read(dc_t *dc, uint64_t now, dc_message_t *msg)
{
    if (dc->n_ack_pending > 0) {
        send_pending_acks(dc, now);
    }
    sctp_message_t m;
    while (sctp_read(dc->assoc, &m)) {
        if (m.ppid == DC_PPID_DCEP) {
            handle_dcep(dc, now, &m);
        } else if (user_message(dc, now, &m, msg)) {
            return true;
        }
    }
    return false;
}
