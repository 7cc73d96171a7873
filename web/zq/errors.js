// One error type for every refusal, with a code a program can switch on (as zq's C side has
// one zq_err_t). Pure.

/**
 * Codes:
 *   MALFORMED    the argument is not what the call takes (a bad pattern, a payload that is not
 *                JSON, an empty queue name)
 *   INVALID_ARG  a frame writer was given values its reader would refuse
 *   TOO_LONG     the frame exceeds what a peer (or this node) can take
 *   WOULD_BLOCK  no room now (replay ring or job store full) and the caller asked not to wait
 *   PEER_GONE    a peer's channel closed before the frame was handed to it
 *   UNDELIVERED  a QoS 1 receiver stayed away longer than the linger time
 *   TIMEOUT      no reply in time, after every retry
 *   REFUSED      a responder refused a request (its error text is the message)
 *   DEAD_LETTER  a job ran out of attempts
 *   CLOSED       this ZQ was closed
 *   STATE        a call at the wrong time (a job acked twice)
 */
export class ZQError extends Error {
  constructor(code, message, details) {
    super(message);
    this.name = 'ZQError';
    this.code = code;
    if (details !== undefined) Object.assign(this, details);
  }
}
