/* The retransmission schedule of a STUN client transaction over UDP (RFC 8489 §6.2.1). */
#include "stack/ice/stun.h"

uint64_t stun_next_retransmit(uint64_t now, uint8_t sends, uint8_t max_sends, uint32_t first_rto,
                              uint8_t final_wait_factor, uint32_t *rto)
{
    if (sends >= max_sends) {
        return now + (uint64_t)first_rto * final_wait_factor; /* Rm * RTO, then it failed */
    }
    uint64_t next = now + *rto;
    *rto *= 2;
    return next;
}
