/* The cluster's messages from other servers (signal/cluster.c), as a NATS subscription would
 * hand them to a server that has members of its own.
 *
 * The input is a script of messages separated by NUL bytes. In each, "$S" stands for the id of
 * another server, "$0" and "$1" for this server's two members (both in room kitchen, one id
 * each a fuzzer could never guess), and the byte 0x01 for "now + 1 s" (the clock moves, the
 * timers run). Checked after each message: the remote table holds what its count says, within
 * ZQ_SIG_REMOTE_MAX; every frame the router sends a member is one JSON object with a string
 * "type", and a relayed frame never names the member it is sent to as its sender; the members
 * stay. At the end, the clock runs past the dead time: every remote member is gone. */
#include <stdint.h>
#include <string.h>

#include "fuzz_support.h"
#include "signal/cluster.h"
#include "signal/router.h"
#include "zq/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static sig_router_t router;
static sig_cluster_t cluster;
static unsigned members[2];
static uint64_t now;

static void check_sent(void *ctx, unsigned to, const char *frame, size_t len)
{
    (void)ctx;
    json_value_t doc;
    json_value_t type;
    json_value_t peer;
    check(json_parse(frame, len, &doc) == ZQ_OK && json_type(doc) == JSON_OBJECT);
    check(json_object_get(doc, "type", &type) == ZQ_OK && json_type(type) == JSON_STRING);
    if (json_object_get(doc, "peerId", &peer) == ZQ_OK && !json_string_equals(type, "welcome")) {
        check(!json_string_equals(peer, router.clients[to].id)); /* nobody hears of itself */
    }
}

static void published(void *ctx, const char *subject, const char *payload, size_t len)
{
    (void)ctx;
    json_value_t doc;
    check(subject[0] != '\0');
    check(json_parse(payload, len, &doc) == ZQ_OK && json_type(doc) == JSON_OBJECT);
}

/* @p in[0..n) with the placeholders replaced, into @p out. */
static size_t expand(const uint8_t *in, size_t n, char *out, size_t cap)
{
    static const char other[] = "OtherServerId000000000";
    size_t len = 0;
    for (size_t i = 0; i < n && len + SIG_ID_LEN + 1 < cap; i++) {
        const char *sub = NULL;
        if (in[i] == '$' && i + 1 < n && (in[i + 1] == 'S' || in[i + 1] == '0' || in[i + 1] == '1')) {
            sub = in[i + 1] == 'S' ? other : router.clients[members[in[i + 1] - '0']].id;
            i++;
        }
        if (sub != NULL) {
            memcpy(out + len, sub, strlen(sub));
            len += strlen(sub);
        } else {
            out[len++] = (char)in[i];
        }
    }
    return len;
}

static void check_tables(void)
{
    check(sig_cluster_remote_count(&cluster) <= ZQ_SIG_REMOTE_MAX);
    check(sig_router_client_count(&router) == 2);
    check(router.clients[members[0]].joined && router.clients[members[1]].joined);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char msg[ZQ_SIG_FRAME_MAX + 1024];
    uint32_t seed = 7;
    zq_rand_t rand = {fuzz_counter_rand, &seed};
    now = 1000;
    sig_router_init(&router, &rand, check_sent, NULL);
    (void)sig_cluster_init(&cluster, &rand, "zq.fuzz", published, NULL);
    sig_router_attach_cluster(&router, &cluster);
    sig_cluster_link_up(&router, now);
    static const char join[] = "{\"type\":\"join\",\"topicId\":\"kitchen\"}";
    for (int i = 0; i < 2; i++) {
        check(sig_router_connect(&router, now, 1800000000u, NULL, &members[i]) == ZQ_OK);
        sig_router_frame(&router, now, members[i], join, sizeof join - 1);
    }
    size_t start = 0;
    for (size_t i = 0; i <= size; i++) {
        if (i < size && data[i] != 0) {
            continue;
        }
        const uint8_t *m = data + start;
        size_t n = i - start;
        start = i + 1;
        if (n == 1 && m[0] == 0x01) {
            now += 1000;
            sig_cluster_timeout(&router, now);
        } else {
            sig_cluster_message(&router, now, msg, expand(m, n, msg, sizeof msg));
        }
        check_tables();
    }
    now += 4 * SIG_CLUSTER_ROSTER_MS;
    sig_cluster_timeout(&router, now);
    check(sig_cluster_remote_count(&cluster) == 0);
    return 0;
}
