/* The description itself: its defaults, and the small helpers both directions use. */
#include <string.h>

#include "stack/sdp/sdp.h"

void sdp_init(sdp_t *sdp)
{
    memset(sdp, 0, sizeof *sdp);
    sdp->setup = SDP_SETUP_NONE;
    sdp->sctp_port = SDP_DEFAULT_SCTP_PORT;
    sdp->max_message_size = SDP_DEFAULT_MAX_MESSAGE_SIZE;
    sdp->connection.family = ZQ_AF_NONE;
}

zq_err_t sdp_add_candidate(sdp_t *sdp, const ice_candidate_t *cand)
{
    if (sdp == NULL || cand == NULL) {
        return ZQ_ERR_INVALID_ARG;
    }
    if (sdp->n_candidates >= ZQ_SDP_MAX_CANDIDATES) {
        return ZQ_ERR_CAPACITY;
    }
    sdp->candidates[sdp->n_candidates++] = *cand;
    return ZQ_OK;
}

const char *sdp_setup_name(sdp_setup_t setup)
{
    switch (setup) {
    case SDP_SETUP_ACTPASS:
        return "actpass";
    case SDP_SETUP_ACTIVE:
        return "active";
    case SDP_SETUP_PASSIVE:
        return "passive";
    case SDP_SETUP_NONE:
    default:
        return "";
    }
}
