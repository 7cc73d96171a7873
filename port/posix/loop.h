/**
 * @file loop.h
 * @brief A poll() event loop that drives sans-IO objects by their deadlines.
 *
 * Each object the loop drives (an ICE agent, a peer connection, the STUN tool) is a *driver*:
 * a pointer to the object plus a zq_driver_t table of functions over it. The loop owns no
 * protocol state; it turns the OS's events into the sans-IO contract of docs/design.md:
 *
 * - a datagram arrives on a driver's socket: handle_datagram(now, local, remote, bytes);
 * - a driver's next_timeout() has come: handle_timeout(now);
 * - after EVERY input (datagram, timeout, extra-fd callback), the loop *settles* every driver
 *   before the next input: it drains poll_transmit() and sends each datagram, calls after_io(),
 *   and drains poll_transmit() again (after_io may react to events with new output);
 * - `now` comes from zq_port_now_ms() and never goes backwards across calls.
 *
 * @code
 * static zq_loop_t loop;                       // holds a datagram buffer: make it static
 * zq_loop_init(&loop);
 * size_t id;
 * zq_loop_add_driver(&loop, &my_ops, &my_obj, &id);
 * zq_loop_add_socket(&loop, id, sock, &bound);
 * zq_loop_run(&loop, ZQ_TIME_NEVER);           // until zq_loop_stop(), e.g. from SIGINT
 * @endcode
 *
 * The loop installs no signal handlers by itself: a program that wants Ctrl-C to end run()
 * asks for them (zq_loop_stop_on_signals()).
 */
#ifndef ZQ_PORT_POSIX_LOOP_H
#define ZQ_PORT_POSIX_LOOP_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "port/zq_port.h"
#include "zq/addr.h"
#include "zq/config.h"
#include "zq/err.h"
#include "zq/time.h"

/**
 * The functions the loop calls on a driven object @p obj. Every member may be NULL (a pure
 * timer needs no datagrams; a pure responder needs no timeouts). Pointers the loop passes are
 * borrowed for the duration of the call only.
 */
typedef struct {
    /** A datagram arrived on the socket bound to @p local. @p data lives during the call. */
    void (*handle_datagram)(void *obj, uint64_t now, const zq_addr_t *local,
                            const zq_addr_t *remote, const uint8_t *data, size_t len);
    /** Called once next_timeout() is <= now; it must move next_timeout() past now, or the
     *  loop calls it again at once. */
    void (*handle_timeout)(void *obj, uint64_t now);
    /** The earliest `now` at which handle_timeout() has work, or ZQ_TIME_NEVER. */
    uint64_t (*next_timeout)(void *obj);
    /** Pops one datagram to send from @p local (which selects the socket) to @p remote; false
     *  when none is left. @p data must stay valid until the driver's next call. */
    bool (*poll_transmit)(void *obj, zq_addr_t *local, zq_addr_t *remote, const uint8_t **data,
                          size_t *len);
    /** After each input and its transmits: drain events, react, maybe zq_loop_stop(). */
    void (*after_io)(void *obj, uint64_t now);
} zq_driver_t;

/** Called when an extra fd is readable or hung up (or writable, with writable interest). It
 *  must read (or remove) the fd, or the loop calls it again at once. Driver API calls made
 *  here are settled right after. */
typedef void (*zq_loop_fd_fn)(void *ctx, int fd, uint64_t now);

/** What the loop did, and every datagram it could not deliver or send. */
typedef struct {
    uint32_t rx_datagrams; /**< handed to a driver */
    uint32_t rx_oversize;  /**< longer than ZQ_UDP_MAX_DATAGRAM: dropped */
    uint32_t rx_errors;    /**< recvfrom() failed */
    uint32_t tx_datagrams; /**< sent */
    uint32_t tx_dropped;   /**< socket buffer full (UDP: the protocol above retransmits) */
    uint32_t tx_errors;    /**< sendto() failed, or the driver has no socket to send from */
} zq_loop_stats_t;

/* Private bookkeeping, in the header only so callers can allocate the loop. */
typedef struct {
    const zq_driver_t *ops;
    void *obj;
} zq_loop_driver_t;

typedef struct {
    zq_socket_t sock;
    zq_addr_t local;
    uint8_t driver;
} zq_loop_socket_t;

typedef struct {
    int fd; /* -1: free slot */
    zq_loop_fd_fn fn;
    void *ctx;
    bool want_write; /* also poll for POLLOUT */
    bool no_read;    /* do not poll for POLLIN */
} zq_loop_fd_t;

/** A loop: caller-allocated (1.9 KiB with the defaults, mostly the datagram buffer); one
 *  thread uses it. */
typedef struct {
    zq_loop_driver_t drivers[ZQ_LOOP_MAX_DRIVERS];
    zq_loop_socket_t sockets[ZQ_LOOP_MAX_SOCKETS];
    zq_loop_fd_t fds[ZQ_LOOP_MAX_FDS];
    uint8_t driver_count;
    uint8_t socket_count;
    uint64_t now;                 /* latest `now` handed out: never decreases */
    volatile sig_atomic_t stop;   /* set by zq_loop_stop(), possibly from a signal handler */
    zq_loop_stats_t stats;
    uint8_t rx_buf[ZQ_UDP_MAX_DATAGRAM];
} zq_loop_t;

/** Empties @p loop: no drivers, sockets or fds. */
void zq_loop_init(zq_loop_t *loop);

/**
 * Adds a driver. @p ops and @p obj are borrowed and must outlive the loop's use of them.
 * @param[out] id  the driver's index, for zq_loop_add_socket()
 * @return ZQ_OK, ZQ_ERR_CAPACITY (ZQ_LOOP_MAX_DRIVERS), ZQ_ERR_INVALID_ARG (ops NULL)
 */
zq_err_t zq_loop_add_driver(zq_loop_t *loop, const zq_driver_t *ops, void *obj, size_t *id);

/**
 * Gives driver @p id a bound UDP socket. Datagrams arriving on it go to that driver with
 * @p local; the driver's transmits whose `local` equals @p local leave from it. A transmit
 * with a `local` the driver has no socket for leaves from the driver's first socket of the
 * remote's family (then its first socket at all): drivers that do not track local addresses
 * can leave `local` zeroed. The socket stays the caller's: the loop never closes it.
 * @return ZQ_OK, ZQ_ERR_CAPACITY (ZQ_LOOP_MAX_SOCKETS), ZQ_ERR_INVALID_ARG (unknown id)
 */
zq_err_t zq_loop_add_socket(zq_loop_t *loop, size_t id, zq_socket_t sock, const zq_addr_t *local);

/** Forgets @p sock (the caller closes it). Not from inside a datagram callback: call it from a
 *  driver's timeout or after_io, where no socket is being read. */
void zq_loop_remove_socket(zq_loop_t *loop, zq_socket_t sock);

/**
 * Watches @p fd for reading; @p fn is called with @p ctx (borrowed) when it is readable or
 * hung up. The fd stays the caller's. @return ZQ_OK, ZQ_ERR_CAPACITY, ZQ_ERR_INVALID_ARG.
 */
zq_err_t zq_loop_add_fd(zq_loop_t *loop, int fd, zq_loop_fd_fn fn, void *ctx);

/** Stops watching @p fd (safe from inside its own callback). */
void zq_loop_remove_fd(zq_loop_t *loop, int fd);

/**
 * Also calls @p fd's callback when it is writable, while @p on: for a TCP stream whose output
 * did not fit the socket buffer. The callback must then write (or clear the interest once it
 * has nothing left to write), or the loop calls it again at once. Off when the fd is added.
 * @return ZQ_OK, ZQ_ERR_NOT_FOUND if @p fd is not watched.
 */
zq_err_t zq_loop_set_fd_writable_interest(zq_loop_t *loop, int fd, bool on);

/** Whether the loop waits for @p fd to be readable (on by default): off, a program that cannot
 *  take more leaves the bytes in the socket (TCP's flow control slows the sender).
 *  @return ZQ_OK or ZQ_ERR_NOT_FOUND. */
zq_err_t zq_loop_set_fd_readable_interest(zq_loop_t *loop, int fd, bool on);

/**
 * Runs until zq_loop_stop() or until `now` reaches @p stop_at (ZQ_TIME_NEVER: no limit).
 * Settles every driver first, so outputs produced by API calls made before run() are sent.
 * @return ZQ_OK when stopped (the stop request is then consumed), ZQ_ERR_TIMEOUT when
 *         @p stop_at came, ZQ_ERR_IO if poll() failed.
 */
zq_err_t zq_loop_run(zq_loop_t *loop, uint64_t stop_at);

/** Makes run() return after the current input. Async-signal-safe; sticky until run() sees it. */
void zq_loop_stop(zq_loop_t *loop);

/** The loop's clock: zq_port_now_ms(), never less than a value it returned before. */
uint64_t zq_loop_now(zq_loop_t *loop);

/** Makes SIGINT and SIGTERM call zq_loop_stop(@p loop); NULL restores their default action.
 *  @p loop must stay valid while the handlers are installed (make it static). */
void zq_loop_stop_on_signals(zq_loop_t *loop);

#endif /* ZQ_PORT_POSIX_LOOP_H */
