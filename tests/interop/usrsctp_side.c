/* usrsctp, the reference: see usrsctp_side.h. usrsctp allocates and runs a timer thread; the
 * only thing shared with that thread here is the packet queue, behind one mutex that is never
 * held while calling into usrsctp (usrsctp calls conn_output with its own locks held). */
#include "usrsctp_side.h"

#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <usrsctp.h>

const uint16_t US_RESET_INCOMING_SSN = SCTP_STREAM_RESET_INCOMING_SSN;
const uint16_t US_RESET_OUTGOING_SSN = SCTP_STREAM_RESET_OUTGOING_SSN;
const uint16_t US_RESET_DENIED = SCTP_STREAM_RESET_DENIED;
const uint16_t US_RESET_FAILED = SCTP_STREAM_RESET_FAILED;
const uint16_t US_DATA_SENT = SCTP_DATA_SENT;

/* ---- The packet queue ------------------------------------------------------------------------ */

/* Deep enough for any burst: usrsctp sends at most max_burst (4) packets per trigger, and the
 * caller drains the queue between its calls into usrsctp. */
#define QUEUE_SLOTS 4096

typedef struct {
    void *addr;
    size_t len;
    uint8_t data[US_PACKET_MAX];
} slot_t;

static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    size_t head;
    size_t count;
    unsigned long overflows;
    slot_t slots[QUEUE_SLOTS];
} q = {.mu = PTHREAD_MUTEX_INITIALIZER};

static bool initialised;

static int conn_output(void *addr, void *buffer, size_t length, uint8_t tos, uint8_t set_df)
{
    (void)tos;
    (void)set_df;
    pthread_mutex_lock(&q.mu);
    if (q.count == QUEUE_SLOTS || length > US_PACKET_MAX) {
        q.overflows++;
    } else {
        slot_t *s = &q.slots[(q.head + q.count++) % QUEUE_SLOTS];
        s->addr = addr;
        s->len = length;
        memcpy(s->data, buffer, length);
        pthread_cond_signal(&q.cv);
    }
    pthread_mutex_unlock(&q.mu);
    return 0; /* a lost packet is the network's business: never an error to usrsctp */
}

bool us_pop(void **addr, uint8_t *buf, size_t *len)
{
    pthread_mutex_lock(&q.mu);
    bool any = q.count > 0;
    if (any) {
        const slot_t *s = &q.slots[q.head];
        *addr = s->addr;
        *len = s->len;
        memcpy(buf, s->data, s->len);
        q.head = (q.head + 1) % QUEUE_SLOTS;
        q.count--;
    }
    pthread_mutex_unlock(&q.mu);
    return any;
}

void us_wait(unsigned us)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ts.tv_nsec += (long)us * 1000;
    ts.tv_sec += ts.tv_nsec / 1000000000;
    ts.tv_nsec %= 1000000000;
    pthread_mutex_lock(&q.mu);
    if (q.count == 0) {
        (void)pthread_cond_timedwait(&q.cv, &q.mu, &ts);
    }
    pthread_mutex_unlock(&q.mu);
}

void us_clear(void)
{
    pthread_mutex_lock(&q.mu);
    q.count = 0;
    pthread_mutex_unlock(&q.mu);
}

unsigned long us_overflows(void)
{
    pthread_mutex_lock(&q.mu);
    unsigned long n = q.overflows;
    pthread_mutex_unlock(&q.mu);
    return n;
}

/* ---- Process-wide setup ---------------------------------------------------------------------- */

void us_set_browser_sysctls(bool on)
{
    /* What Chrome's and Firefox's usrsctp transports set: no ECN, AUTH or ASCONF (WebRTC
     * uses none of them). PR-SCTP and RE-CONFIG stay on (usrsctp's defaults). */
    usrsctp_sysctl_set_sctp_ecn_enable(on ? 0 : 1);
    usrsctp_sysctl_set_sctp_auth_enable(on ? 0 : 1);
    usrsctp_sysctl_set_sctp_asconf_enable(on ? 0 : 1);
    usrsctp_sysctl_set_sctp_pr_enable(1);
    usrsctp_sysctl_set_sctp_reconfig_enable(1);
}

void us_global_init(bool browser_sysctls)
{
    if (initialised) {
        return;
    }
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&q.cv, &attr);
    pthread_condattr_destroy(&attr);
    usrsctp_init(0, conn_output, NULL);
    us_set_browser_sysctls(browser_sysctls);
    initialised = true;
}

void us_global_finish(void)
{
    if (!initialised) {
        return;
    }
    for (int i = 0; i < 3000 && usrsctp_finish() != 0; i++) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    initialised = false;
}

/* ---- Sockets --------------------------------------------------------------------------------- */

static struct sockaddr_conn conn_addr(const us_endpoint_t *e)
{
    struct sockaddr_conn s;
    memset(&s, 0, sizeof s);
    s.sconn_family = AF_CONN;
    s.sconn_port = htons(e->opt.port);
    s.sconn_addr = e->addr;
    return s;
}

static bool set_int(struct socket *s, int level, int name, int value)
{
    return usrsctp_setsockopt(s, level, name, &value, sizeof value) == 0;
}

static bool subscribe(struct socket *s)
{
    static const uint16_t types[] = {SCTP_ASSOC_CHANGE, SCTP_STREAM_RESET_EVENT,
                                     SCTP_SEND_FAILED_EVENT, SCTP_PARTIAL_DELIVERY_EVENT,
                                     SCTP_SHUTDOWN_EVENT};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        struct sctp_event ev;
        memset(&ev, 0, sizeof ev);
        ev.se_assoc_id = SCTP_ALL_ASSOC;
        ev.se_type = types[i];
        ev.se_on = 1;
        if (usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_EVENT, &ev, sizeof ev) != 0) {
            return false;
        }
    }
    return true;
}

static bool set_mtu(struct socket *s, const us_endpoint_t *e, bool future)
{
    if (e->opt.mtu == 0) {
        return true;
    }
    struct sctp_paddrparams p;
    memset(&p, 0, sizeof p);
    if (future) {
        p.spp_assoc_id = SCTP_FUTURE_ASSOC; /* the endpoint's default, for INIT time */
    } else {
        struct sockaddr_conn remote = conn_addr(e); /* as Chrome did, once connected */
        memcpy(&p.spp_address, &remote, sizeof remote);
    }
    p.spp_flags = SPP_PMTUD_DISABLE;
    p.spp_pathmtu = e->opt.mtu;
    return usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_PEER_ADDR_PARAMS, &p, sizeof p) == 0;
}

/* The options Chrome's and Firefox's transports set, on a @p fresh socket before it associates
 * (a listener passes most of them to the socket it accepts; they are set again there). */
static bool configure(struct socket *s, const us_endpoint_t *e, bool fresh)
{
    const us_options_t *o = &e->opt;
    struct linger lg = {1, 0}; /* close() sends ABORT, as browsers do */
    struct sctp_assoc_value reset = {SCTP_ALL_ASSOC, SCTP_ENABLE_RESET_STREAM_REQ};
    struct sctp_initmsg init;
    memset(&init, 0, sizeof init);
    init.sinit_num_ostreams = o->streams;
    init.sinit_max_instreams = o->streams;
    int step = 0;
    bool ok = ++step && usrsctp_set_non_blocking(s, 1) == 0 && ++step &&
              usrsctp_setsockopt(s, SOL_SOCKET, SO_LINGER, &lg, sizeof lg) == 0 && ++step &&
              usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_ENABLE_STREAM_RESET, &reset,
                                 sizeof reset) == 0 &&
              ++step && set_int(s, IPPROTO_SCTP, SCTP_RECVRCVINFO, 1) && ++step &&
              set_int(s, IPPROTO_SCTP, SCTP_NODELAY, 1) && ++step &&
              set_int(s, IPPROTO_SCTP, SCTP_EXPLICIT_EOR, 0) && ++step &&
              usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_INITMSG, &init, sizeof init) == 0 &&
              ++step && subscribe(s) && ++step && (!fresh || set_mtu(s, e, true));
    if (ok && o->rto_initial_ms != 0) {
        struct sctp_rtoinfo rto = {SCTP_FUTURE_ASSOC, o->rto_initial_ms, o->rto_max_ms,
                                   o->rto_min_ms};
        ok = usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_RTOINFO, &rto, sizeof rto) == 0;
    }
    if (ok && o->sndbuf != 0) {
        ok = set_int(s, SOL_SOCKET, SO_SNDBUF, (int)o->sndbuf);
    }
    if (ok && o->rcvbuf != 0) {
        ok = set_int(s, SOL_SOCKET, SO_RCVBUF, (int)o->rcvbuf);
    }
    if (!ok) {
        fprintf(stderr, "usrsctp: socket option %d failed: %s\n", step, strerror(errno));
    }
    return ok;
}

bool us_open(us_endpoint_t *e, void *addr, const us_options_t *opt, bool connect)
{
    memset(e, 0, sizeof *e);
    e->addr = addr;
    e->opt = *opt;
    usrsctp_register_address(addr);
    struct socket *s = usrsctp_socket(AF_CONN, SOCK_STREAM, IPPROTO_SCTP, NULL, NULL, 0, NULL);
    if (s == NULL || !configure(s, e, true)) {
        fprintf(stderr, "usrsctp: socket failed: %s\n", strerror(errno));
        return false;
    }
    struct sockaddr_conn local = conn_addr(e);
    if (usrsctp_bind(s, (struct sockaddr *)&local, sizeof local) != 0) {
        fprintf(stderr, "usrsctp: bind failed: %s\n", strerror(errno));
        return false;
    }
    if (connect) {
        e->sock = s;
        return us_connect(e);
    }
    if (usrsctp_listen(s, 1) != 0) {
        fprintf(stderr, "usrsctp: listen failed: %s\n", strerror(errno));
        return false;
    }
    e->listener = s;
    return true;
}

bool us_connect(us_endpoint_t *e)
{
    if (e->sock == NULL) {
        return false; /* a listening endpoint stays one */
    }
    struct sockaddr_conn remote = conn_addr(e);
    int rc = usrsctp_connect(e->sock, (struct sockaddr *)&remote, sizeof remote);
    if (rc != 0 && errno != EINPROGRESS) {
        fprintf(stderr, "usrsctp: connect failed: %s\n", strerror(errno));
        return false;
    }
    return true;
}

static void accept_if_ready(us_endpoint_t *e)
{
    if (e->sock != NULL || e->listener == NULL) {
        return;
    }
    struct socket *s = usrsctp_accept(e->listener, NULL, NULL);
    if (s == NULL) {
        return; /* EWOULDBLOCK until the association is up */
    }
    e->sock = s;
    /* The association exists: its MTU is set when COMM_UP is read (us_recv). */
    (void)configure(s, e, false);
    usrsctp_close(e->listener); /* one association per endpoint, as in WebRTC */
    e->listener = NULL;
}

void us_input(us_endpoint_t *e, const uint8_t *packet, size_t len)
{
    usrsctp_conninput(e->addr, packet, len, 0);
}

static void read_note(const union sctp_notification *n, us_note_t *out)
{
    memset(out, 0, sizeof *out);
    out->type = US_NOTE_OTHER;
    switch (n->sn_header.sn_type) {
    case SCTP_ASSOC_CHANGE: {
        const struct sctp_assoc_change *c = &n->sn_assoc_change;
        out->error = c->sac_error;
        out->in_streams = c->sac_inbound_streams;
        out->out_streams = c->sac_outbound_streams;
        out->type = c->sac_state == SCTP_COMM_UP         ? US_NOTE_COMM_UP
                    : c->sac_state == SCTP_COMM_LOST     ? US_NOTE_COMM_LOST
                    : c->sac_state == SCTP_RESTART       ? US_NOTE_RESTART
                    : c->sac_state == SCTP_SHUTDOWN_COMP ? US_NOTE_SHUTDOWN_COMP
                    : c->sac_state == SCTP_CANT_STR_ASSOC ? US_NOTE_CANT_START
                                                          : US_NOTE_OTHER;
        break;
    }
    case SCTP_STREAM_RESET_EVENT: {
        const struct sctp_stream_reset_event *r = &n->sn_strreset_event;
        out->type = US_NOTE_STREAM_RESET;
        out->flags = r->strreset_flags;
        size_t count = (r->strreset_length - sizeof *r) / sizeof(uint16_t);
        for (size_t i = 0; i < count && i < US_NOTE_MAX_STREAMS; i++) {
            out->streams[out->n_streams++] = r->strreset_stream_list[i];
        }
        break;
    }
    case SCTP_SEND_FAILED_EVENT:
        out->type = US_NOTE_SEND_FAILED;
        out->flags = n->sn_send_failed_event.ssfe_flags;
        out->stream = n->sn_send_failed_event.ssfe_info.snd_sid;
        break;
    case SCTP_PARTIAL_DELIVERY_EVENT:
        if (n->sn_pdapi_event.pdapi_indication == SCTP_PARTIAL_DELIVERY_ABORTED) {
            out->type = US_NOTE_PD_ABORTED;
            out->stream = (uint16_t)n->sn_pdapi_event.pdapi_stream;
        }
        break;
    case SCTP_SHUTDOWN_EVENT:
        out->type = US_NOTE_SHUTDOWN;
        break;
    default:
        break;
    }
}

int us_recv(us_endpoint_t *e, uint8_t *buf, size_t cap, us_data_t *d, us_note_t *n)
{
    accept_if_ready(e);
    if (e->sock == NULL) {
        return US_RECV_NONE;
    }
    struct sctp_rcvinfo info;
    struct sockaddr_conn from;
    socklen_t fromlen = sizeof from;
    socklen_t infolen = sizeof info;
    unsigned int infotype = 0;
    int flags = 0;
    memset(&info, 0, sizeof info);
    ssize_t got = usrsctp_recvv(e->sock, buf, cap, (struct sockaddr *)&from, &fromlen, &info,
                                &infolen, &infotype, &flags);
    if (got < 0) {
        return errno == EAGAIN || errno == EWOULDBLOCK ? US_RECV_NONE : US_RECV_CLOSED;
    }
    if (got == 0 && !(flags & MSG_NOTIFICATION)) {
        return US_RECV_CLOSED;
    }
    if (flags & MSG_NOTIFICATION) {
        read_note((const union sctp_notification *)(const void *)buf, n);
        if (n->type == US_NOTE_COMM_UP && !e->tuned) {
            e->tuned = set_mtu(e->sock, e, false);
        }
        return US_RECV_NOTE;
    }
    d->stream = infotype == SCTP_RECVV_RCVINFO ? info.rcv_sid : 0xFFFF;
    d->ppid = ntohl(info.rcv_ppid);
    d->unordered = (info.rcv_flags & SCTP_UNORDERED) != 0;
    d->eor = (flags & MSG_EOR) != 0;
    d->data = buf;
    d->len = (size_t)got;
    return US_RECV_DATA;
}

int us_send(us_endpoint_t *e, uint16_t stream, uint32_t ppid, const uint8_t *data, size_t len,
            bool unordered, int pr_rtx)
{
    if (e->sock == NULL) {
        accept_if_ready(e);
        if (e->sock == NULL) {
            return US_SEND_BLOCKED;
        }
    }
    struct sctp_sendv_spa spa;
    memset(&spa, 0, sizeof spa);
    spa.sendv_flags = SCTP_SEND_SNDINFO_VALID;
    spa.sendv_sndinfo.snd_sid = stream;
    spa.sendv_sndinfo.snd_ppid = htonl(ppid);
    spa.sendv_sndinfo.snd_flags = unordered ? SCTP_UNORDERED : 0;
    if (pr_rtx >= 0) {
        spa.sendv_flags |= SCTP_SEND_PRINFO_VALID;
        spa.sendv_prinfo.pr_policy = SCTP_PR_SCTP_RTX;
        spa.sendv_prinfo.pr_value = (uint32_t)pr_rtx;
    }
    ssize_t n = usrsctp_sendv(e->sock, data, len, NULL, 0, &spa, sizeof spa, SCTP_SENDV_SPA, 0);
    if (n >= 0 && (size_t)n == len) {
        return US_SEND_OK;
    }
    if (n < 0 && (errno == EWOULDBLOCK || errno == EAGAIN || errno == ENOBUFS)) {
        return US_SEND_BLOCKED;
    }
    fprintf(stderr, "usrsctp: sendv(%zu bytes) returned %zd: %s\n", len, n,
            n < 0 ? strerror(errno) : "short");
    return US_SEND_ERROR;
}

bool us_reset_stream(us_endpoint_t *e, uint16_t stream)
{
    uint8_t mem[sizeof(struct sctp_reset_streams) + sizeof(uint16_t)];
    struct sctp_reset_streams *r = (struct sctp_reset_streams *)(void *)mem;
    memset(mem, 0, sizeof mem);
    r->srs_assoc_id = SCTP_ALL_ASSOC;
    r->srs_flags = SCTP_STREAM_RESET_OUTGOING;
    r->srs_number_streams = 1;
    r->srs_stream_list[0] = stream;
    if (e->sock == NULL ||
        usrsctp_setsockopt(e->sock, IPPROTO_SCTP, SCTP_RESET_STREAMS, r, (socklen_t)sizeof mem) !=
            0) {
        fprintf(stderr, "usrsctp: SCTP_RESET_STREAMS failed: %s\n", strerror(errno));
        return false;
    }
    return true;
}

void us_abort(us_endpoint_t *e)
{
    us_close(e); /* SO_LINGER {1, 0} is set on every socket: close sends ABORT */
}

bool us_shutdown(us_endpoint_t *e)
{
    return e->sock != NULL && usrsctp_shutdown(e->sock, SHUT_WR) == 0;
}

void us_close(us_endpoint_t *e)
{
    if (e->sock != NULL) {
        usrsctp_close(e->sock);
        e->sock = NULL;
    }
    if (e->listener != NULL) {
        usrsctp_close(e->listener);
        e->listener = NULL;
    }
    if (e->addr != NULL) {
        usrsctp_deregister_address(e->addr);
        e->addr = NULL;
    }
}

static bool status(us_endpoint_t *e, struct sctp_status *st)
{
    if (e->sock == NULL) {
        return false;
    }
    socklen_t len = sizeof *st;
    memset(st, 0, sizeof *st);
    return usrsctp_getsockopt(e->sock, IPPROTO_SCTP, SCTP_STATUS, st, &len) == 0;
}

int us_state(us_endpoint_t *e)
{
    struct sctp_status st;
    return status(e, &st) ? st.sstat_state : -1;
}

int us_pending_chunks(us_endpoint_t *e)
{
    struct sctp_status st;
    return status(e, &st) ? st.sstat_penddata + st.sstat_unackdata : -1;
}

void us_describe(us_endpoint_t *e, char *out, size_t cap)
{
    struct sctp_status st;
    if (!status(e, &st)) {
        snprintf(out, cap, "no association");
        return;
    }
    snprintf(out, cap,
             "state 0x%x, peer rwnd %u, unacked %u, pending %u, cwnd %u, srtt %u, rto %u, mtu %u",
             (unsigned)st.sstat_state, st.sstat_rwnd, st.sstat_unackdata, st.sstat_penddata,
             st.sstat_primary.spinfo_cwnd, st.sstat_primary.spinfo_srtt,
             st.sstat_primary.spinfo_rto, st.sstat_primary.spinfo_mtu);
}

void us_stats(us_stats_t *out)
{
    struct sctpstat st;
    memset(&st, 0, sizeof st);
    usrsctp_get_stat(&st);
    out->t3_timeouts = st.sctps_timodata;
    out->window_probes = st.sctps_timowindowprobe;
    out->fast_retransmits = st.sctps_sendfastretrans;
    out->retransmitted_chunks = st.sctps_sendretransdata;
    out->sack_timeouts = st.sctps_timosack;
    out->dup_data_in = st.sctps_recvdupdata;
}

char *us_dump(const uint8_t *packet, size_t len, bool outbound)
{
    return usrsctp_dumppacket(packet, len, outbound ? SCTP_DUMP_OUTBOUND : SCTP_DUMP_INBOUND);
}

void us_dump_free(char *text)
{
    usrsctp_freedumpbuffer(text);
}
