/**
 * @file cmd_broker.h
 * @brief The broker commands of the zq program: `zq pub`, `sub`, `put`, `work`, `req`, `rep`
 *        and `dlq`, each a node in a signalling room with the broker on it (broker/brk.h),
 *        speaking zq's protocol to zq peers and ZeroQ's to browsers.
 */
#ifndef ZQ_PORT_POSIX_CMD_BROKER_H
#define ZQ_PORT_POSIX_CMD_BROKER_H

#include <stdio.h>

int zq_cmd_pub(int argc, char **argv);
void zq_cmd_pub_help(FILE *out);
int zq_cmd_sub(int argc, char **argv);
void zq_cmd_sub_help(FILE *out);
int zq_cmd_put(int argc, char **argv);
void zq_cmd_put_help(FILE *out);
int zq_cmd_work(int argc, char **argv);
void zq_cmd_work_help(FILE *out);
int zq_cmd_req(int argc, char **argv);
void zq_cmd_req_help(FILE *out);
int zq_cmd_rep(int argc, char **argv);
void zq_cmd_rep_help(FILE *out);
int zq_cmd_dlq(int argc, char **argv);
void zq_cmd_dlq_help(FILE *out);

#endif /* ZQ_PORT_POSIX_CMD_BROKER_H */
