/* usrsctp in this process, driven as browsers drive it: AF_CONN sockets, non-blocking, an
 * output callback that queues packets for the caller to carry. Nothing here includes zq's SCTP
 * headers, because usrsctp.h and stack/sctp/sctp.h both name a type sctp_assoc_t; sctp_link.c
 * puts the two side by side.
 *
 * usrsctp_conninput(addr, ...) uses addr as both the source and the destination address, so
 * each endpoint binds and connects to its own address pointer (interop.md), and the pointer
 * the output callback gets says which endpoint sent a packet. */
#ifndef ZQ_USRSCTP_SIDE_H
#define ZQ_USRSCTP_SIDE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Largest packet the queue keeps: usrsctp's INIT ACK and its packets before the path MTU is
 * set stay well below this. A larger one is counted and dropped. */
#define US_PACKET_MAX 2048

typedef struct {
    uint16_t streams;  /* SCTP_INITMSG, both directions */
    uint16_t mtu;      /* SCTP_PEER_ADDR_PARAMS path MTU, PMTUD off; 0 leaves usrsctp's */
    uint16_t port;     /* bound and connected to (both ends of AF_CONN use one address) */
    uint32_t rto_initial_ms, rto_min_ms, rto_max_ms; /* 0: usrsctp's (3000, 1000, 60000) */
    uint32_t sndbuf;   /* SO_SNDBUF; 0: usrsctp's (256 KiB) */
    uint32_t rcvbuf;   /* SO_RCVBUF; 0: usrsctp's (128 KiB) */
    bool browser_sysctls; /* ECN, AUTH and ASCONF off (Chrome's and Firefox's settings) */
} us_options_t;

/* One endpoint: a listening socket until the association is accepted, or a connecting one. */
typedef struct {
    void *listener;  /* struct socket * */
    void *sock;      /* struct socket *: the association's */
    void *addr;      /* the AF_CONN address: a unique pointer of the caller's */
    us_options_t opt;
    bool tuned;      /* per-association options applied after COMM_UP */
} us_endpoint_t;

typedef struct {
    uint16_t stream;
    uint32_t ppid;
    bool unordered;
    bool eor; /* MSG_EOR: this read ends a message */
    const uint8_t *data;
    size_t len;
} us_data_t;

typedef enum {
    US_NOTE_COMM_UP,
    US_NOTE_COMM_LOST,
    US_NOTE_RESTART,
    US_NOTE_SHUTDOWN_COMP,
    US_NOTE_CANT_START,
    US_NOTE_STREAM_RESET,  /* flags: SCTP_STREAM_RESET_INCOMING_SSN / _OUTGOING_SSN / ... */
    US_NOTE_SEND_FAILED,   /* flags: SCTP_DATA_SENT or SCTP_DATA_UNSENT; stream */
    US_NOTE_PD_ABORTED,    /* a partially delivered message was abandoned; stream */
    US_NOTE_SHUTDOWN,      /* the peer sent SHUTDOWN */
    US_NOTE_OTHER,
} us_note_type_t;

#define US_NOTE_MAX_STREAMS 16

typedef struct {
    us_note_type_t type;
    uint16_t flags;
    uint16_t error;
    uint16_t stream;
    uint16_t n_streams;
    uint16_t streams[US_NOTE_MAX_STREAMS];
    uint16_t in_streams, out_streams; /* COMM_UP */
} us_note_t;

/* Flag values of usrsctp.h, for callers that cannot include it. */
extern const uint16_t US_RESET_INCOMING_SSN;
extern const uint16_t US_RESET_OUTGOING_SSN;
extern const uint16_t US_RESET_DENIED;
extern const uint16_t US_RESET_FAILED;
extern const uint16_t US_DATA_SENT;

enum { US_RECV_NONE = 0, US_RECV_DATA, US_RECV_NOTE, US_RECV_CLOSED };
enum { US_SEND_OK = 0, US_SEND_BLOCKED, US_SEND_ERROR };

/** usrsctp_init() once per process, with its timer thread. */
void us_global_init(bool browser_sysctls);
/** Closes what is left and waits for usrsctp_finish(). */
void us_global_finish(void);
/** Switches ECN/AUTH/ASCONF for sockets created from now on (sysctls apply at creation). */
void us_set_browser_sysctls(bool on);

/** Creates the socket(s): @p connect calls usrsctp_connect, otherwise it listens. */
bool us_open(us_endpoint_t *e, void *addr, const us_options_t *opt, bool connect);
/** usrsctp_connect to the endpoint's own address (us_open does it when asked to). */
bool us_connect(us_endpoint_t *e);
/** Hands a packet from the peer to this endpoint. */
void us_input(us_endpoint_t *e, const uint8_t *packet, size_t len);
/** One read: data (into @p buf), a notification, nothing, or the end of the association. */
int us_recv(us_endpoint_t *e, uint8_t *buf, size_t cap, us_data_t *d, us_note_t *n);
/** Sends one message; @p pr_rtx >= 0 makes it SCTP_PR_SCTP_RTX with that many retransmissions. */
int us_send(us_endpoint_t *e, uint16_t stream, uint32_t ppid, const uint8_t *data, size_t len,
            bool unordered, int pr_rtx);
/** SCTP_RESET_STREAMS, SCTP_STREAM_RESET_OUTGOING, for one stream. */
bool us_reset_stream(us_endpoint_t *e, uint16_t stream);
/** SO_LINGER 0 and close: an ABORT. */
void us_abort(us_endpoint_t *e);
/** Graceful: usrsctp_shutdown(SHUT_WR). */
bool us_shutdown(us_endpoint_t *e);
/** Closes whatever sockets are left (with SO_LINGER 0: an ABORT if still associated). */
void us_close(us_endpoint_t *e);
/** SCTP_STATUS: the association's state (SCTP_ESTABLISHED = 8), -1 without one. */
int us_state(us_endpoint_t *e);
/** Bytes queued and unacknowledged (SCTP_STATUS penddata + unackdata, in chunks). */
int us_pending_chunks(us_endpoint_t *e);

/* ---- The packets usrsctp sent (from any thread): a bounded queue ----------------------------- */

/** Takes the oldest packet; @p addr says which endpoint sent it. */
bool us_pop(void **addr, uint8_t *buf, size_t *len);
/** Waits until a packet is queued or @p us microseconds pass. */
void us_wait(unsigned us);
/** Forgets every queued packet (between cases). */
void us_clear(void);
/** Packets dropped because the queue was full or they were too large. */
unsigned long us_overflows(void);

/** SCTP_STATUS in words, for a report. */
void us_describe(us_endpoint_t *e, char *out, size_t cap);

/** usrsctp's process-wide counters (usrsctp_get_stat): take a difference around a case. */
typedef struct {
    unsigned long t3_timeouts, window_probes, fast_retransmits, retransmitted_chunks;
    unsigned long sack_timeouts, dup_data_in;
} us_stats_t;
void us_stats(us_stats_t *out);

/** usrsctp_dumppacket: text2pcap lines for one packet (outbound or not), or NULL. */
char *us_dump(const uint8_t *packet, size_t len, bool outbound);
void us_dump_free(char *text);

#endif
