/**
 * @file cmd_brk.h
 * @brief Between cmd_broker.c (the command line of every broker command: options, help) and
 *        the commands themselves (cmd_brk_topic.c, cmd_brk_queue.c, cmd_brk_rpc.c). Not used
 *        elsewhere: main.c knows only cmd_broker.h.
 */
#ifndef ZQ_PORT_POSIX_CMD_BRK_H
#define ZQ_PORT_POSIX_CMD_BRK_H

#include <stdbool.h>
#include <stdint.h>

#include "broker/brk.h"
#include "cli/brk_runner.h"

/** A broker command's command line, parsed and checked. */
typedef struct {
    const char *cmd;           /**< "pub" */
    zq_brk_net_options_t net;  /**< --signal, --room, --verbose */
    const char *name;          /**< TOPIC, PATTERN, QUEUE or SERVICE */
    const char *msg;           /**< MSG: a JSON value, or text; "-" reads lines of stdin */
    uint32_t qos;              /**< pub --qos */
    uint32_t count;            /**< pub: times each message (1); sub, work: then exit (0: no
                                    end) */
    uint32_t wait_peers;       /**< pub --wait-peers (1) */
    uint32_t credit;           /**< work --credit (1) */
    uint32_t timeout_ms;       /**< req --timeout (5000) */
    uint32_t retries;          /**< req --retries (2) */
    const char *exec;          /**< work, rep --exec CMD */
    brk_dlq_op_t dlq_op;       /**< dlq: list, --requeue, --purge */
    uint8_t dlq_ops;           /**< how many of --requeue and --purge were given */
    bool keep_dead;            /**< put --keep-dead */
    zq_brk_form_t form;        /**< sub, work, req, rep, dlq: payloads as text, or --json */
} zq_brk_options_t;

/** Whether MSG says "read stdin". */
static inline bool zq_brk_from_stdin(const zq_brk_options_t *o)
{
    return o->msg != NULL && o->msg[0] == '-' && o->msg[1] == '\0';
}

int zq_brk_pub(const zq_brk_options_t *o, zq_brk_runner_t *r);
int zq_brk_sub(const zq_brk_options_t *o, zq_brk_runner_t *r);
int zq_brk_put(const zq_brk_options_t *o, zq_brk_runner_t *r);
int zq_brk_work(const zq_brk_options_t *o, zq_brk_runner_t *r);
int zq_brk_dlq(const zq_brk_options_t *o, zq_brk_runner_t *r);
int zq_brk_req(const zq_brk_options_t *o, zq_brk_runner_t *r);
int zq_brk_rep(const zq_brk_options_t *o, zq_brk_runner_t *r);

#endif /* ZQ_PORT_POSIX_CMD_BRK_H */
