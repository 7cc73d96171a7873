/* Shared by the WebSocket receive and send halves; not part of the API. */
#ifndef ZQ_WS_INTERNAL_H
#define ZQ_WS_INTERNAL_H

#include "signal/ws.h"

/** §7.4: may @p code appear in a close frame (sent or received)? */
bool ws_close_code_valid(uint16_t code);

/** Moves the waiting pong, then the waiting close, into the output if there is room. */
void ws_flush_control(ws_conn_t *c);

/** Holds a pong for @p len (<= 125) bytes, replacing any earlier one (§5.5.3). */
void ws_queue_pong(ws_conn_t *c, const uint8_t *data, size_t len);

/** Holds a close with @p code (0: none) and a reason of at most 123 bytes, unless a close was
 *  already sent or held. */
void ws_queue_close(ws_conn_t *c, uint16_t code, const uint8_t *reason, size_t len);

#endif /* ZQ_WS_INTERNAL_H */
