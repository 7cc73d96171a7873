/* zq's MQTT client (stack/mqtt) against a real mosquitto, over TCP on 127.0.0.1, for 3.1.1
 * and 5.0. The program starts the broker itself (argv[1]: the mosquitto binary) on a free
 * port with its own configuration in a temporary directory (anonymous, persistence on), then
 * for each version:
 *   1. connects with a persistent session (clean start 0; v5: session expiry 300 s),
 *      subscribes with QoS 1, publishes QoS 1 to itself: PUBACK and the message both arrive;
 *   2. publishes another and receives it, but does NOT ack it, disconnects, reconnects with
 *      clean start 0: session present 1, and the message comes again with DUP and flagged as
 *      a redelivery of a pending id; acked now, it is not sent a third time;
 *   3. (v5) a request with Response Topic, Correlation Data and a User Property arrives with
 *      them intact;
 *   4. a retained message reaches a subscription made afterwards, with RETAIN 1.
 * Exit 0 when every step held; each failure is printed with its step. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "stack/mqtt/mqtt.h"

/* ---- What the client reported ---------------------------------------------------------------- */

#define MAX_SEEN 64
#define TEXT 128

typedef struct {
    mqtt_event_type_t type;
    bool accepted, session_present, dup, retain, redelivery, refused;
    uint8_t qos, reason;
    uint16_t packet_id;
    char topic[TEXT], payload[TEXT], response_topic[TEXT], user[TEXT];
    uint8_t corr[TEXT];
    size_t corr_len;
    uint8_t reasons[8];
    size_t count;
} seen_t;

static seen_t seen[MAX_SEEN];
static size_t n_seen;
static int failures;

static void copy_text(char *dst, mqtt_bytes_t b)
{
    size_t n = b.data == NULL ? 0 : b.len < TEXT - 1 ? b.len : TEXT - 1;
    if (n > 0) {
        memcpy(dst, b.data, n);
    }
    dst[n] = '\0';
}

static void record_publish(seen_t *s, const mqtt_message_t *m)
{
    s->qos = m->qos;
    s->dup = m->dup;
    s->retain = m->retain;
    s->packet_id = m->packet_id;
    s->redelivery = m->redelivery_pending;
    copy_text(s->topic, m->topic);
    copy_text(s->payload, m->payload);
    copy_text(s->response_topic, m->response_topic);
    s->corr_len = m->correlation_data.data != NULL ? m->correlation_data.len : 0;
    if (s->corr_len > 0 && s->corr_len <= TEXT) {
        memcpy(s->corr, m->correlation_data.data, s->corr_len);
    }
    size_t pos = 0;
    mqtt_bytes_t name, value;
    if (mqtt_user_prop_next(&m->properties, &pos, &name, &value)) {
        char n[TEXT / 2], v[TEXT / 2];
        mqtt_bytes_t nb = {name.data, name.len < sizeof n - 1 ? name.len : sizeof n - 1};
        mqtt_bytes_t vb = {value.data, value.len < sizeof v - 1 ? value.len : sizeof v - 1};
        memcpy(n, nb.data, nb.len);
        n[nb.len] = '\0';
        memcpy(v, vb.data, vb.len);
        v[vb.len] = '\0';
        snprintf(s->user, sizeof s->user, "%s=%s", n, v);
    }
}

static void on_event(void *user, const mqtt_event_t *ev)
{
    (void)user;
    if (n_seen == MAX_SEEN) {
        return;
    }
    seen_t *s = &seen[n_seen++];
    memset(s, 0, sizeof *s);
    s->type = ev->type;
    switch (ev->type) {
    case MQTT_EV_CONNACK:
        s->accepted = ev->connack.accepted;
        s->session_present = ev->connack.session_present;
        s->reason = ev->connack.reason;
        break;
    case MQTT_EV_PUBLISH: record_publish(s, &ev->publish); break;
    case MQTT_EV_PUBACK:
        s->packet_id = ev->puback.packet_id;
        s->reason = ev->puback.reason;
        s->refused = ev->puback.refused;
        break;
    case MQTT_EV_SUBACK:
    case MQTT_EV_UNSUBACK:
        s->packet_id = ev->ack.packet_id;
        s->count = ev->ack.count < 8 ? ev->ack.count : 8;
        memcpy(s->reasons, ev->ack.reasons, s->count);
        break;
    default:
        s->reason = ev->type == MQTT_EV_DISCONNECT ? ev->disconnect.reason : ev->error.reason;
        fprintf(stderr, "  event %d reason 0x%02x %s\n", ev->type, s->reason,
                ev->type == MQTT_EV_DISCONNECT ? "" : ev->error.what);
        break;
    }
}

static void expect(bool ok, const char *step, const char *what)
{
    printf("  %s %s: %s\n", ok ? "ok  " : "FAIL", step, what);
    if (!ok) {
        failures++;
    }
}

/* The first event of @p type after index @p from matching @p topic (NULL: any), or NULL. */
static const seen_t *find(size_t from, mqtt_event_type_t type, const char *topic)
{
    for (size_t i = from; i < n_seen; i++) {
        if (seen[i].type == type && (topic == NULL || strcmp(seen[i].topic, topic) == 0)) {
            return &seen[i];
        }
    }
    return NULL;
}

static size_t count(size_t from, mqtt_event_type_t type, const char *topic)
{
    size_t n = 0;
    for (size_t i = from; i < n_seen; i++) {
        n += seen[i].type == type && (topic == NULL || strcmp(seen[i].topic, topic) == 0);
    }
    return n;
}

/* ---- The broker ----------------------------------------------------------------------------- */

static pid_t broker;
static char dir[] = "/tmp/zq-mqtt-XXXXXX";

static int free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &len) != 0) {
        perror("free port");
        exit(2);
    }
    close(fd);
    return ntohs(a.sin_port);
}

static void start_broker(const char *mosquitto, int port)
{
    if (mkdtemp(dir) == NULL) {
        perror("mkdtemp");
        exit(2);
    }
    char conf[256], log[256];
    snprintf(conf, sizeof conf, "%s/mosquitto.conf", dir);
    snprintf(log, sizeof log, "%s/mosquitto.log", dir);
    FILE *f = fopen(conf, "w");
    if (f == NULL) {
        perror(conf);
        exit(2);
    }
    fprintf(f, "listener %d 127.0.0.1\nallow_anonymous true\npersistence true\n"
               "persistence_location %s/\nlog_dest file %s\nlog_type all\n",
            port, dir, log);
    fclose(f);
    broker = fork();
    if (broker == 0) {
        execl(mosquitto, mosquitto, "-c", conf, (char *)NULL);
        perror(mosquitto);
        _exit(127);
    }
}

static void stop_broker(void)
{
    if (broker > 0) {
        kill(broker, SIGTERM);
        waitpid(broker, NULL, 0);
        broker = 0;
    }
    char cmd[300];
    if (failures > 0) {
        snprintf(cmd, sizeof cmd, "tail -n 40 %s/mosquitto.log", dir);
        if (system(cmd) != 0) {
            fprintf(stderr, "(no broker log)\n");
        }
    }
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) {
        fprintf(stderr, "could not remove %s\n", dir);
    }
}

/* ---- Driving the client over a socket ------------------------------------------------------- */

static mqtt_client_t mq;
static int sock = -1;

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static int dial(int port)
{
    for (int tries = 0; tries < 100; tries++) {
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                                .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0) {
            int one = 1;
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            return fd;
        }
        close(fd);
        usleep(50000); /* the broker is still starting */
    }
    fprintf(stderr, "cannot connect to 127.0.0.1:%d\n", port);
    exit(2);
}

static void flush_output(void)
{
    const uint8_t *p;
    size_t n;
    while ((n = mqtt_client_pending(&mq, &p)) > 0) {
        ssize_t w = send(sock, p, n, MSG_NOSIGNAL);
        if (w <= 0) {
            return;
        }
        mqtt_client_sent(&mq, (size_t)w);
    }
}

/* Runs the connection for @p ms, or until @p done says so (checked after each read). */
static bool run(int ms, bool (*done)(void))
{
    uint64_t end = now_ms() + (uint64_t)ms;
    while (now_ms() < end) {
        flush_output();
        if (done != NULL && done()) {
            return true;
        }
        struct pollfd pfd = {.fd = sock, .events = POLLIN};
        if (poll(&pfd, 1, 20) > 0) {
            uint8_t buf[1500];
            ssize_t r = recv(sock, buf, sizeof buf, 0);
            if (r <= 0) {
                return done != NULL && done();
            }
            /* in pieces of 7: the client must not care where TCP cuts */
            for (ssize_t off = 0; off < r; off += 7) {
                size_t piece = (size_t)(r - off < 7 ? r - off : 7);
                (void)mqtt_client_feed(&mq, now_ms(), buf + off, piece);
            }
        }
        mqtt_client_timeout(&mq, now_ms());
    }
    return done != NULL && done();
}

static mqtt_event_type_t want_type;
static const char *want_topic;
static size_t want_from, want_n;

static bool have_wanted(void)
{
    return count(want_from, want_type, want_topic) >= want_n;
}

/* Runs until @p n events of @p type (for @p topic) arrived since @p from, or 5 s. */
static bool wait_for(size_t from, mqtt_event_type_t type, const char *topic, size_t n)
{
    want_from = from;
    want_type = type;
    want_topic = topic;
    want_n = n;
    return run(5000, have_wanted);
}

static uint8_t version;
static int port;

static bool open_session(const char *client_id)
{
    mqtt_options_t o;
    mqtt_options_default(&o, version, client_id);
    o.clean_start = false;
    o.session_expiry_s = 300;
    o.keepalive_s = 10;
    sock = dial(port);
    size_t from = n_seen;
    if (mqtt_client_connect(&mq, now_ms(), &o) != ZQ_OK) {
        return false;
    }
    return wait_for(from, MQTT_EV_CONNACK, NULL, 1);
}

static void close_session(bool clean)
{
    if (clean) {
        (void)mqtt_client_disconnect(&mq, MQTT_RC_SUCCESS);
        flush_output();
    }
    close(sock);
    sock = -1;
    mqtt_client_reset_connection(&mq);
}

static uint16_t publish(const char *topic, const char *payload, bool retain)
{
    mqtt_publish_t m = {.topic = topic, .payload = (const uint8_t *)payload,
                        .payload_len = strlen(payload), .qos = 1, .retain = retain};
    uint16_t id = 0;
    zq_err_t err = mqtt_client_publish(&mq, &m, &id);
    if (err != ZQ_OK) {
        fprintf(stderr, "  publish: %s\n", zq_strerror(err));
    }
    return id;
}

static bool subscribe(const char *filter)
{
    mqtt_subscription_t s = {.filter = filter, .qos = 1};
    size_t from = n_seen;
    if (mqtt_client_subscribe(&mq, &s, 1, NULL) != ZQ_OK) {
        return false;
    }
    const seen_t *ack = wait_for(from, MQTT_EV_SUBACK, NULL, 1) ? find(from, MQTT_EV_SUBACK, NULL)
                                                                 : NULL;
    return ack != NULL && ack->count == 1 && ack->reasons[0] == 1;
}

/* ---- The steps ------------------------------------------------------------------------------ */

static char topic_a[64], topic_b[64], topic_req[64], topic_retained[64], filter[64], id[64];

static void step_connect_subscribe_publish(void)
{
    bool up = open_session(id);
    const seen_t *ack = find(0, MQTT_EV_CONNACK, NULL);
    expect(up && ack != NULL && ack->accepted, "1", "CONNACK accepted");
    expect(ack != NULL && !ack->session_present, "1", "a new session: session present 0");
    expect(subscribe(filter), "1", "SUBACK grants QoS 1");
    size_t from = n_seen;
    uint16_t pid = publish(topic_a, "hello", false);
    bool both = wait_for(from, MQTT_EV_PUBACK, NULL, 1) &&
                wait_for(from, MQTT_EV_PUBLISH, topic_a, 1);
    const seen_t *pa = find(from, MQTT_EV_PUBACK, NULL);
    const seen_t *msg = find(from, MQTT_EV_PUBLISH, topic_a);
    expect(both && pa->packet_id == pid && !pa->refused, "1", "PUBACK for our QoS 1 publish");
    expect(msg != NULL && msg->qos == 1 && strcmp(msg->payload, "hello") == 0, "1",
           "our message back at QoS 1");
    if (msg != NULL) {
        (void)mqtt_client_puback(&mq, msg->packet_id, MQTT_RC_SUCCESS);
    }
    run(200, NULL);
}

static void step_redelivery_after_reconnect(void)
{
    size_t from = n_seen;
    (void)publish(topic_b, "keep", false);
    bool got = wait_for(from, MQTT_EV_PUBACK, NULL, 1) &&
               wait_for(from, MQTT_EV_PUBLISH, topic_b, 1);
    const seen_t *first = find(from, MQTT_EV_PUBLISH, topic_b);
    expect(got && first->qos == 1 && !first->dup, "2", "received, not acked");
    uint16_t first_id = first != NULL ? first->packet_id : 0;
    expect(mqtt_client_unacked(&mq) == 1, "2", "one incoming QoS 1 awaits our PUBACK");
    close_session(true);

    from = n_seen;
    bool up = open_session(id);
    const seen_t *ack = find(from, MQTT_EV_CONNACK, NULL);
    expect(up && ack->accepted && ack->session_present, "2", "reconnect: session present 1");
    bool again = wait_for(from, MQTT_EV_PUBLISH, topic_b, 1);
    const seen_t *re = find(from, MQTT_EV_PUBLISH, topic_b);
    expect(again && re->dup, "2", "the unacked message is redelivered with DUP");
    expect(re != NULL && re->packet_id == first_id && re->redelivery &&
               strcmp(re->payload, "keep") == 0,
           "2", "same packet id, flagged as a redelivery of a pending id");
    if (re != NULL) {
        (void)mqtt_client_puback(&mq, re->packet_id, MQTT_RC_SUCCESS);
    }
    run(300, NULL);
    close_session(true);
    from = n_seen;
    up = open_session(id);
    run(500, NULL);
    expect(up && count(from, MQTT_EV_PUBLISH, topic_b) == 0, "2",
           "acked: not delivered a third time");
}

static void step_request_properties(void)
{
    static const uint8_t corr[] = {0x01, 0x00, 0xFF, 'c', 'o', 'r', 'r'};
    static const mqtt_user_prop_t user = {"trace", "zq-1"};
    mqtt_publish_t m = {.topic = topic_req, .payload = (const uint8_t *)"ping",
                        .payload_len = 4, .qos = 1, .response_topic = "zq/v5/reply",
                        .correlation_data = corr, .correlation_len = sizeof corr,
                        .user_props = &user, .n_user_props = 1};
    size_t from = n_seen;
    uint16_t pid = 0;
    expect(mqtt_client_publish(&mq, &m, &pid) == ZQ_OK, "3", "request published");
    bool got = wait_for(from, MQTT_EV_PUBLISH, topic_req, 1);
    const seen_t *req = find(from, MQTT_EV_PUBLISH, topic_req);
    expect(got && strcmp(req->response_topic, "zq/v5/reply") == 0, "3",
           "response topic intact");
    expect(req != NULL && req->corr_len == sizeof corr &&
               memcmp(req->corr, corr, sizeof corr) == 0,
           "3", "correlation data intact (with 00 and FF bytes)");
    expect(req != NULL && strcmp(req->user, "trace=zq-1") == 0, "3", "user property intact");
    if (req != NULL) {
        (void)mqtt_client_puback(&mq, req->packet_id, MQTT_RC_SUCCESS);
    }
    run(200, NULL);
}

static void step_retained(void)
{
    size_t from = n_seen;
    uint16_t pid = publish(topic_retained, "kept", true);
    bool acked = wait_for(from, MQTT_EV_PUBACK, NULL, 1);
    expect(acked && pid != 0, "4", "retained publish acknowledged");
    from = n_seen;
    expect(subscribe(topic_retained), "4", "a new subscription afterwards");
    bool got = wait_for(from, MQTT_EV_PUBLISH, topic_retained, 1);
    const seen_t *r = find(from, MQTT_EV_PUBLISH, topic_retained);
    expect(got && r->retain && strcmp(r->payload, "kept") == 0, "4",
           "the retained message arrives with RETAIN 1");
    if (r != NULL && r->qos == 1) {
        (void)mqtt_client_puback(&mq, r->packet_id, MQTT_RC_SUCCESS);
    }
    run(200, NULL);
}

static void run_version(uint8_t v)
{
    version = v;
    n_seen = 0;
    printf("MQTT %s against mosquitto\n", v == MQTT_V5 ? "5.0" : "3.1.1");
    snprintf(id, sizeof id, "zq-interop-v%u", v);
    snprintf(filter, sizeof filter, "zq/v%u/#", v);
    snprintf(topic_a, sizeof topic_a, "zq/v%u/a", v);
    snprintf(topic_b, sizeof topic_b, "zq/v%u/b", v);
    snprintf(topic_req, sizeof topic_req, "zq/v%u/request", v);
    snprintf(topic_retained, sizeof topic_retained, "zqr/v%u/state", v);
    mqtt_client_init(&mq, on_event, NULL);
    step_connect_subscribe_publish();
    step_redelivery_after_reconnect();
    if (v == MQTT_V5) {
        step_request_properties();
    }
    step_retained();
    expect(mqtt_client_inflight(&mq) == 0, "end", "nothing left in flight");
    close_session(true);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s /usr/sbin/mosquitto\n", argv[0]);
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    port = free_port();
    start_broker(argv[1], port);
    run_version(MQTT_V311);
    run_version(MQTT_V5);
    stop_broker();
    printf("%s: %d failure(s)\n", failures == 0 ? "PASS" : "FAIL", failures);
    return failures == 0 ? 0 : 1;
}
