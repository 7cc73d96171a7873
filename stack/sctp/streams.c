/* The stream table: only streams in use take a slot (a data channel uses one stream id in
 * each direction, RFC 8831 §6.5), so the peer may advertise 65535 streams while a device
 * tracks ZQ_SCTP_MAX_STREAMS. A slot is freed once the stream holds nothing. */
#include <string.h>

#include "stack/sctp/sctp_internal.h"

const sctp_stream_t *sctp_stream_find_const(const sctp_assoc_t *a, uint16_t id)
{
    for (uint8_t i = 0; i < a->n_streams; i++) {
        if (a->streams[i].id == id) {
            return &a->streams[i];
        }
    }
    return NULL;
}

sctp_stream_t *sctp_stream_find(sctp_assoc_t *a, uint16_t id)
{
    return (sctp_stream_t *)sctp_stream_find_const(a, id);
}

sctp_stream_t *sctp_stream_get(sctp_assoc_t *a, uint16_t id)
{
    sctp_stream_t *s = sctp_stream_find(a, id);
    if (s != NULL || a->n_streams == ZQ_SCTP_MAX_STREAMS) {
        return s;
    }
    s = &a->streams[a->n_streams++];
    memset(s, 0, sizeof *s);
    s->id = id;
    return s;
}

void sctp_stream_forget_if_idle(sctp_assoc_t *a, sctp_stream_t *s)
{
    /* Sequence numbers are state too: a stream that has carried messages keeps its slot
     * until a reset (RFC 6525) returns its SSNs to zero. */
    if (s->flags != 0 || s->unsent != 0 || s->out_ssn != 0 || s->in_ssn != 0 ||
        s->low_water != 0) {
        return;
    }
    size_t i = (size_t)(s - a->streams);
    a->streams[i] = a->streams[--a->n_streams];
}

void sctp_stream_unsent_changed(sctp_assoc_t *a, sctp_stream_t *s, int32_t delta)
{
    s->unsent = (uint32_t)((int32_t)s->unsent + delta);
    if (delta < 0 && (s->flags & SCTP_STREAM_ABOVE_LOW) && s->unsent <= s->low_water) {
        s->flags &= (uint16_t)~SCTP_STREAM_ABOVE_LOW;
        sctp_push_event(a, SCTP_EVENT_WRITABLE, s->id);
    } else if (delta > 0 && s->unsent > s->low_water) {
        s->flags |= SCTP_STREAM_ABOVE_LOW;
    }
}
