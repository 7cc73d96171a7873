/* `zq bridge` (the zq-bridge program, built with config/zq_bridge_config.h's capacities): a
 * room's topics on an MQTT broker. The mapping and its guarantees are bridge/bridge.h's; here
 * are the command line, the MQTT connection (port/posix/tcp_link.h), the node and broker
 * (cli/brk_runner.h, with hold_qos1) and what --state keeps across a restart. */
#include "cli/cmd_bridge.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "bridge/bridge.h"
#include "cli/brk_runner.h"
#include "cli/cli.h"
#include "port/posix/read_file.h"
#include "port/posix/tcp_link.h"
#include "port/posix/ws_tls.h"
#include "zq/hex.h"
#include "zq/json.h"
#include "zq/text.h"

#define MQTT_DEFAULT_PORT 1883
#define MQTTS_DEFAULT_PORT 8883 /* IANA's secure-mqtt, MQTT 5 §4.8 names it */
#define KEEPALIVE_S 30
#define DEFAULT_SESSION_EXPIRY_S 86400u
#define SAVE_EVERY_MS 200u   /* resume points reach the disk this often at most */
#define RETRY_FIRST_MS 500u
#define RETRY_MAX_MS 10000u
#define PATH_MAX_LEN 512

typedef struct {
    const char *mqtt;
    const char *signal;
    const char *room;
    const char *prefix;
    const char *client_id;
    const char *state;
    const char *version;
    const char *session_expiry;
    zq_posix_tls_files_t tls; /* --cafile, --cert, --key */
    const char *to_mqtt[BRIDGE_FILTERS_MAX];
    size_t n_to;
    const char *from_mqtt[BRIDGE_FILTERS_MAX];
    size_t n_from;
    bool no_retain;
    bool verbose;
} bridge_options_t;

typedef struct {
    bridge_options_t o;
    zq_brk_runner_t runner;
    mqtt_client_t mqtt;
    mqtt_options_t mopt;
    bridge_config_t cfg;
    bridge_t bridge;
    zq_tcp_link_t link;
    char user[128];
    char pass[128];
    char host[ZQ_TCP_LINK_HOST_MAX];
    uint16_t port;
    bool tls; /* mqtts:// */
    tls_client_config_t *trust; /* whom mqtts:// trusts */
    char prefix[BRIDGE_PREFIX_MAX + 1];
    char from_default[BRIDGE_PREFIX_MAX + 3];
    char client_id[64];
    char identity_path[PATH_MAX_LEN];
    char resume_path[PATH_MAX_LEN];
    char receivers_path[PATH_MAX_LEN];
    char receivers_saved[ZQ_BRK_MAX_RECEIVERS * 512];
    size_t receivers_len;
    brk_resume_point_t saved[ZQ_BRK_MAX_PUBLISHERS];
    size_t n_saved;
    uint64_t next_save;
    uint64_t now;
} bridge_app_t;

static bridge_app_t app;

void zq_cmd_bridge_help(FILE *out)
{
    (void)fputs(
        "usage: zq bridge --mqtt mqtt[s]://[USER:PASS@]HOST[:PORT] [--cafile FILE]\n"
        "                 [--cert FILE --key FILE] [--room NAME] [--signal URL]\n"
        "                 [--prefix P] [--to-mqtt PATTERN]... [--from-mqtt FILTER]...\n"
        "                 [--mqtt-version 5|3.1.1] [--client-id ID] [--session-expiry S]\n"
        "                 [--no-retain] [--state DIR] [--verbose]\n"
        "\n"
        "Joins a room as one peer of all its members (up to 64) and carries its topics to\n"
        "and from an MQTT broker: room topic sensors.kitchen is MQTT P/sensors/kitchen (P\n"
        "is zq/ROOM by default), and MQTT P/cmd/led is the room's cmd.led. A JSON string\n"
        "goes to MQTT as its text, other payloads as their JSON; MQTT payloads that are no\n"
        "JSON come into the room as strings.\n"
        "\n"
        "QoS 1 holds both ways: a room message is acknowledged to its publisher only once\n"
        "the MQTT broker acknowledged it, and an MQTT message only once every member that\n"
        "subscribed to it acknowledged it. The MQTT session is persistent (clean start off),\n"
        "and with --state DIR the bridge keeps its identity and its resume points there, so\n"
        "that after a restart the room's publishers send again what MQTT had not\n"
        "acknowledged. A message on P/rpc/SERVICE with an MQTT 5 response topic is a request\n"
        "to the room's SERVICE; the reply goes to the response topic with its correlation\n"
        "data. Every message to MQTT is retained (the room's last values), unless --no-retain.\n"
        "\n"
        "options:\n"
        "  --mqtt URL           the MQTT broker (port 1883 if left out); mqtts:// for\n"
        "                       TLS 1.2 (port 8883), its certificate checked as for wss://\n"
        "  --cafile FILE        with mqtts://: trust the CAs in FILE (PEM), as\n"
        "                       mosquitto_sub's --cafile (default: SSL_CERT_FILE, or the\n"
        "                       system's bundle)\n"
        "  --cert FILE          with mqtts://: the certificate (PEM) and its key the\n"
        "  --key FILE           bridge shows when the broker asks for one (mosquitto's\n"
        "                       require_certificate), as mosquitto_sub's --cert, --key\n"
        "  --signal URL         the signalling server (default ws://127.0.0.1:8080/ws)\n"
        "  --room NAME          the room (default default-topic)\n"
        "  --prefix P           the MQTT topics' prefix (default zq/ROOM)\n"
        "  --to-mqtt PATTERN    room topics carried to MQTT, zq's patterns (repeatable;\n"
        "                       default #, every topic)\n"
        "  --from-mqtt FILTER   MQTT topics carried into the room, MQTT's filters\n"
        "                       (repeatable; default P/#)\n"
        "  --mqtt-version V     5 (default) or 3.1.1 (no No Local: the bridge drops its\n"
        "                       own messages when MQTT hands them back; no requests)\n"
        "  --client-id ID       the MQTT client id, the session's name (default\n"
        "                       zq-bridge-ROOM)\n"
        "  --session-expiry S   how long the broker keeps the session after a disconnect\n"
        "                       (MQTT 5; default 86400)\n"
        "  --no-retain          messages to MQTT without RETAIN\n"
        "  --state DIR          keep the identity and resume points in DIR (made if\n"
        "                       missing); without it a restart is a new peer to the room\n"
        "  --verbose            connections, peers and counts on stderr\n"
        "  --help               show this help\n"
        "\n"
        "exit status: 0 stopped by SIGINT or SIGTERM, 1 a failure (said on stderr), 2 usage.\n",
        out);
}

/* ---- The command line ---------------------------------------------------------------------- */

static int add_filter(const char **list, size_t *n, const char *value, const char *name)
{
    if (*n == BRIDGE_FILTERS_MAX) {
        return zq_cli_usage_error("bridge", "at most %d %s", BRIDGE_FILTERS_MAX, name);
    }
    list[(*n)++] = value;
    return -1;
}

static int store(bridge_options_t *o, const char *name, const char *value)
{
    const char **fields[] = {&o->mqtt, &o->signal, &o->room, &o->prefix, &o->client_id,
                             &o->state, &o->version, &o->session_expiry,
                             &o->tls.ca_file, &o->tls.cert_file, &o->tls.key_file};
    static const char *const names[] = {"--mqtt", "--signal", "--room", "--prefix",
                                        "--client-id", "--state", "--mqtt-version",
                                        "--session-expiry", "--cafile", "--cert", "--key"};
    if (value == NULL) {
        return zq_cli_usage_error("bridge", "%s needs a value", name);
    }
    if (strcmp(name, "--to-mqtt") == 0) {
        return add_filter(o->to_mqtt, &o->n_to, value, name);
    }
    if (strcmp(name, "--from-mqtt") == 0) {
        return add_filter(o->from_mqtt, &o->n_from, value, name);
    }
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        if (strcmp(name, names[k]) == 0) {
            *fields[k] = value;
        }
    }
    return -1;
}

static int parse_options(int argc, char **argv, bridge_options_t *o)
{
    static const char *const with_value[] = {"--mqtt", "--signal", "--room", "--prefix",
                                             "--client-id", "--state", "--mqtt-version",
                                             "--session-expiry", "--to-mqtt", "--from-mqtt",
                                             "--cafile", "--cert", "--key"};
    memset(o, 0, sizeof *o);
    for (int i = 1; i < argc; i++) {
        const char *value;
        bool taken = false;
        for (size_t k = 0; !taken && k < sizeof with_value / sizeof with_value[0]; k++) {
            if (zq_cli_take_value(argc, argv, &i, with_value[k], &value)) {
                int rc = store(o, with_value[k], value);
                if (rc >= 0) {
                    return rc;
                }
                taken = true;
            }
        }
        if (taken) {
            continue;
        }
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            zq_cmd_bridge_help(stdout);
            return ZQ_CLI_EXIT_OK;
        }
        if (strcmp(argv[i], "--no-retain") == 0 || strcmp(argv[i], "--verbose") == 0) {
            *(argv[i][2] == 'n' ? &o->no_retain : &o->verbose) = true;
            continue;
        }
        return zq_cli_usage_error("bridge", "%s '%s'",
                                  argv[i][0] == '-' ? "unknown option" : "unexpected argument",
                                  argv[i]);
    }
    return o->mqtt == NULL ? zq_cli_usage_error("bridge", "--mqtt URL is needed") : -1;
}

/* mqtt[s]://[USER[:PASS]@]HOST[:PORT]. @return NULL, or why not. */
static const char *parse_mqtt_url(bridge_app_t *a, const char *url)
{
    a->tls = strncmp(url, "mqtts://", 8) == 0;
    if (!a->tls && strncmp(url, "mqtt://", 7) != 0) {
        return "the URL starts mqtt:// or mqtts://";
    }
    const char *p = url + (a->tls ? 8 : 7);
    const char *at = strrchr(p, '@');
    if (at != NULL) {
        const char *colon = memchr(p, ':', (size_t)(at - p));
        size_t user_len = colon != NULL ? (size_t)(colon - p) : (size_t)(at - p);
        size_t pass_len = colon != NULL ? (size_t)(at - colon - 1) : 0;
        if (user_len == 0 || user_len >= sizeof a->user || pass_len >= sizeof a->pass) {
            return "its credentials are empty or too long";
        }
        memcpy(a->user, p, user_len);
        if (colon != NULL) {
            memcpy(a->pass, colon + 1, pass_len);
        }
        p = at + 1;
    }
    const char *colon = strrchr(p, ':');
    size_t host_len = colon != NULL ? (size_t)(colon - p) : strlen(p);
    uint32_t port = a->tls ? MQTTS_DEFAULT_PORT : MQTT_DEFAULT_PORT;
    if (colon != NULL && zq_cli_parse_u32(colon + 1, 1, 65535, &port) != ZQ_OK) {
        return "its port is not 1 to 65535";
    }
    if (host_len == 0 || host_len >= sizeof a->host) {
        return "it has no host, or one too long";
    }
    memcpy(a->host, p, host_len);
    a->port = (uint16_t)port;
    return NULL;
}

/* "zq-bridge-ROOM", with what is not a letter, digit, '-' or '_' made '_'. */
static void default_client_id(bridge_app_t *a, const char *room)
{
    int n = snprintf(a->client_id, sizeof a->client_id, "zq-bridge-%s", room);
    for (int i = 10; i < n && a->client_id[i] != '\0'; i++) {
        char c = a->client_id[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '-' || c == '_';
        a->client_id[i] = ok ? c : '_';
    }
}

static int configure_mqtt(bridge_app_t *a, const char *room)
{
    const bridge_options_t *o = &a->o;
    const char *why = parse_mqtt_url(a, o->mqtt);
    if (why != NULL) {
        return zq_cli_usage_error("bridge", "--mqtt '%s': %s", o->mqtt, why);
    }
    if ((o->tls.ca_file != NULL || o->tls.cert_file != NULL || o->tls.key_file != NULL) &&
        !a->tls) {
        return zq_cli_usage_error("bridge", "--cafile, --cert and --key go with an mqtts:// URL");
    }
    if ((o->tls.cert_file == NULL) != (o->tls.key_file == NULL)) {
        return zq_cli_usage_error("bridge", "--cert goes with --key");
    }
    if (a->tls && zq_posix_tls_config(&o->tls, &a->trust, &why) != ZQ_OK) {
        return zq_cli_fail("bridge", "mqtts://: %s", why);
    }
    uint8_t version = MQTT_V5;
    if (o->version != NULL && strcmp(o->version, "5") != 0) {
        if (strcmp(o->version, "3.1.1") != 0) {
            return zq_cli_usage_error("bridge", "--mqtt-version is 5 or 3.1.1, not '%s'",
                                      o->version);
        }
        version = MQTT_V311;
    }
    uint32_t expiry = DEFAULT_SESSION_EXPIRY_S;
    if (o->session_expiry != NULL &&
        zq_cli_parse_u32(o->session_expiry, 1, UINT32_MAX, &expiry) != ZQ_OK) {
        return zq_cli_usage_error("bridge", "--session-expiry wants seconds, not '%s'",
                                  o->session_expiry);
    }
    if (o->client_id != NULL) {
        (void)snprintf(a->client_id, sizeof a->client_id, "%s", o->client_id);
    } else {
        default_client_id(a, room);
    }
    mqtt_options_default(&a->mopt, version, a->client_id);
    a->mopt.clean_start = false; /* the session outlives the connection (and the bridge) */
    a->mopt.session_expiry_s = expiry;
    a->mopt.keepalive_s = KEEPALIVE_S;
    /* Half the table granted, and the rest held should the broker go over it (mosquitto
     * 2.0.11 does when it resumes a session with messages unacked). */
    a->mopt.receive_maximum = ZQ_MQTT_RX_INFLIGHT_MAX / 2;
    a->mopt.lenient_receive_maximum = true;
    a->mopt.username = a->user[0] != '\0' ? a->user : NULL;
    a->mopt.password = a->pass[0] != '\0' ? (const uint8_t *)a->pass : NULL;
    a->mopt.password_len = strlen(a->pass);
    return -1;
}

static int configure_bridge(bridge_app_t *a, const char *room)
{
    const bridge_options_t *o = &a->o;
    static const char *const every_topic[] = {"#"};
    int n = snprintf(a->prefix, sizeof a->prefix, "%s", o->prefix != NULL ? o->prefix : "zq/");
    if (o->prefix == NULL) {
        n = snprintf(a->prefix, sizeof a->prefix, "zq/%s", room);
    }
    if (n <= 0 || (size_t)n >= sizeof a->prefix || a->prefix[n - 1] == '/' ||
        !mqtt_topic_name_valid(a->prefix, (size_t)n)) {
        return zq_cli_usage_error("bridge", "--prefix '%s' is no MQTT topic name of 1 to %d "
                                            "characters (without a trailing /)",
                                  a->prefix, BRIDGE_PREFIX_MAX);
    }
    (void)snprintf(a->from_default, sizeof a->from_default, "%s/#", a->prefix);
    a->cfg.prefix = a->prefix;
    a->cfg.to_mqtt = o->n_to > 0 ? o->to_mqtt : every_topic;
    a->cfg.n_to_mqtt = o->n_to > 0 ? o->n_to : 1;
    static const char *from_default[1];
    from_default[0] = a->from_default;
    a->cfg.from_mqtt = o->n_from > 0 ? o->from_mqtt : from_default;
    a->cfg.n_from_mqtt = o->n_from > 0 ? o->n_from : 1;
    a->cfg.retain = !o->no_retain;
    a->cfg.version = a->mopt.version;
    for (size_t i = 0; i < a->cfg.n_from_mqtt; i++) {
        if (!mqtt_topic_filter_valid(a->cfg.from_mqtt[i], strlen(a->cfg.from_mqtt[i]))) {
            return zq_cli_usage_error("bridge", "--from-mqtt '%s' is no MQTT topic filter",
                                      a->cfg.from_mqtt[i]);
        }
    }
    return -1;
}

/* ---- --state: the identity and the resume points -------------------------------------------- */

static int configure_state(bridge_app_t *a)
{
    const char *dir = a->o.state;
    if (dir == NULL) {
        return -1;
    }
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
        return zq_cli_fail("bridge", "--state '%s': %s", dir, strerror(errno));
    }
    if (snprintf(a->identity_path, sizeof a->identity_path, "%s/identity", dir) >=
            (int)sizeof a->identity_path ||
        snprintf(a->resume_path, sizeof a->resume_path, "%s/resume", dir) >=
            (int)sizeof a->resume_path ||
        snprintf(a->receivers_path, sizeof a->receivers_path, "%s/receivers", dir) >=
            (int)sizeof a->receivers_path) {
        return zq_cli_usage_error("bridge", "--state '%s' is too long a path", dir);
    }
    return -1;
}

/* The resume file: a line "FP EPOCH SEQ" per publisher, FP its 16 hex digits, EPOCH 8. */
static size_t write_points(const brk_resume_point_t *p, size_t n, char *out, size_t cap)
{
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        char fp[2 * sizeof p[i].fp + 1];
        fp[zq_hex_encode(fp, p[i].fp, sizeof p[i].fp)] = '\0';
        int w = snprintf(out + len, cap - len, "%s %08" PRIx32 " %" PRIu64 "\n", fp, p[i].epoch,
                         p[i].seq);
        if (w < 0 || (size_t)w >= cap - len) {
            break;
        }
        len += (size_t)w;
    }
    return len;
}

/* The receivers file: a JSON object a line, {"fp":HEX,"all":BOOL,"topics":[PATTERN...]}: the
 * room members that take QoS 1 from us, so that after a restart what MQTT sends before they
 * are back waits for them (brk_receiver_restore()). */
static size_t write_receivers(const brk_t *brk, char *out, size_t cap)
{
    brk_receiver_info_t rs[ZQ_BRK_MAX_RECEIVERS];
    size_t n = brk_receivers(brk, rs, ZQ_BRK_MAX_RECEIVERS);
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        char fp[2 * sizeof rs[i].fp + 1];
        fp[zq_hex_encode(fp, rs[i].fp, sizeof rs[i].fp)] = '\0';
        json_writer_t w;
        json_writer_init(&w, out + len, cap - len - 1);
        json_object_begin(&w);
        json_key(&w, "fp");
        json_string(&w, fp, strlen(fp));
        json_key(&w, "all");
        json_bool(&w, rs[i].wants_all);
        json_key(&w, "topics");
        json_array_begin(&w);
        for (uint8_t k = 0; k < rs[i].n_topics; k++) {
            json_string(&w, rs[i].topics[k].text, rs[i].topics[k].len);
        }
        json_array_end(&w);
        json_object_end(&w);
        size_t n_line = json_finish(&w);
        if (n_line == 0) {
            break;
        }
        len += n_line;
        out[len++] = '\n';
    }
    return len;
}

static void save_receivers(bridge_app_t *a)
{
    static char text[sizeof a->receivers_saved];
    size_t len = write_receivers(&a->runner.brk, text, sizeof text);
    if (len == a->receivers_len && memcmp(text, a->receivers_saved, len) == 0) {
        return;
    }
    if (zq_posix_write_file(a->receivers_path, (const uint8_t *)text, len, 0600) != ZQ_OK) {
        (void)fprintf(stderr, "zq bridge: cannot write %s: %s\n", a->receivers_path,
                      strerror(errno));
        return;
    }
    memcpy(a->receivers_saved, text, len);
    a->receivers_len = len;
}

static bool read_receiver(bridge_app_t *a, const char *line)
{
    json_value_t doc;
    json_value_t fp;
    json_value_t all;
    json_value_t topics;
    json_value_t v;
    uint8_t id[BRK_FP_HEX / 2];
    char hex[2 * sizeof id + 1];
    bool wants_all = false;
    if (json_parse(line, strlen(line), &doc) != ZQ_OK ||
        json_object_get(doc, "fp", &fp) != ZQ_OK ||
        json_get_string(fp, hex, sizeof hex, NULL) != ZQ_OK || strlen(hex) != 2 * sizeof id ||
        json_object_get(doc, "all", &all) != ZQ_OK || !json_get_bool(all, &wants_all) ||
        json_object_get(doc, "topics", &topics) != ZQ_OK || json_type(topics) != JSON_ARRAY) {
        return false;
    }
    if (!zq_hex_decode(id, hex, sizeof id)) {
        return false;
    }
    static char text[ZQ_BRK_PEER_SUBS][ZQ_BRK_NAME_MAX + 1];
    const char *names[ZQ_BRK_PEER_SUBS];
    size_t n = 0;
    json_iter_t it;
    json_iter_init(&it, topics);
    while (json_iter_next(&it, NULL, &v)) {
        if (n == ZQ_BRK_PEER_SUBS || json_get_string(v, text[n], sizeof text[n], NULL) != ZQ_OK) {
            return false;
        }
        names[n] = text[n];
        n++;
    }
    return brk_receiver_restore(&a->runner.brk, zq_brk_runner_now(&a->runner), id, wants_all,
                                names, n) == ZQ_OK;
}

static int restore_receivers(bridge_app_t *a)
{
    static char text[sizeof a->receivers_saved + 1];
    size_t len = 0;
    zq_err_t err = zq_posix_read_file(a->receivers_path, (uint8_t *)text, sizeof text - 1, &len);
    if (err == ZQ_ERR_IO && errno == ENOENT) {
        return -1;
    }
    if (err != ZQ_OK) {
        return zq_cli_fail("bridge", "cannot read %s", a->receivers_path);
    }
    text[len] = '\0';
    memcpy(a->receivers_saved, text, len);
    a->receivers_len = len;
    size_t n = 0;
    for (char *line = strtok(text, "\n"); line != NULL; line = strtok(NULL, "\n"), n++) {
        if (!read_receiver(a, line)) {
            return zq_cli_fail("bridge", "%s: a line zq did not write: '%s'", a->receivers_path,
                               line);
        }
    }
    if (a->o.verbose) {
        (void)fprintf(stderr, "zq bridge: %zu receivers from %s, awaited as if just gone\n", n,
                      a->receivers_path);
    }
    return -1;
}

static void save_resume(bridge_app_t *a)
{
    brk_resume_point_t now[ZQ_BRK_MAX_PUBLISHERS];
    size_t n = brk_resume_points(&a->runner.brk, now, ZQ_BRK_MAX_PUBLISHERS);
    if (a->o.state == NULL || (n == a->n_saved && memcmp(now, a->saved, n * sizeof now[0]) == 0)) {
        return;
    }
    static char text[ZQ_BRK_MAX_PUBLISHERS * 48];
    size_t len = write_points(now, n, text, sizeof text);
    if (zq_posix_write_file(a->resume_path, (const uint8_t *)text, len, 0600) != ZQ_OK) {
        (void)fprintf(stderr, "zq bridge: cannot write %s: %s\n", a->resume_path,
                      strerror(errno));
        return;
    }
    memcpy(a->saved, now, n * sizeof now[0]);
    a->n_saved = n;
}

static bool read_point(const char *line, brk_resume_point_t *p)
{
    char fp[17];
    unsigned long epoch;
    unsigned long long seq;
    if (sscanf(line, "%16s %lx %llu", fp, &epoch, &seq) != 3 || strlen(fp) != 16) {
        return false;
    }
    if (!zq_hex_decode(p->fp, fp, sizeof p->fp)) {
        return false;
    }
    p->epoch = (uint32_t)epoch;
    p->seq = seq;
    return true;
}

static int restore_resume(bridge_app_t *a)
{
    static char text[ZQ_BRK_MAX_PUBLISHERS * 48 + 1];
    size_t len = 0;
    if (a->o.state == NULL) {
        return -1;
    }
    zq_err_t err = zq_posix_read_file(a->resume_path, (uint8_t *)text, sizeof text - 1, &len);
    if (err == ZQ_ERR_IO && errno == ENOENT) {
        return -1; /* a first run */
    }
    if (err != ZQ_OK) {
        return zq_cli_fail("bridge", "cannot read %s", a->resume_path);
    }
    text[len] = '\0';
    for (char *line = strtok(text, "\n"); line != NULL; line = strtok(NULL, "\n")) {
        brk_resume_point_t p;
        if (!read_point(line, &p)) {
            return zq_cli_fail("bridge", "%s: a line zq did not write: '%s'", a->resume_path,
                               line);
        }
        (void)brk_resume_restore(&a->runner.brk, zq_brk_runner_now(&a->runner), &p);
        if (a->n_saved < ZQ_BRK_MAX_PUBLISHERS) {
            a->saved[a->n_saved++] = p;
        }
    }
    if (a->o.verbose) {
        (void)fprintf(stderr, "zq bridge: %zu resume points from %s\n", a->n_saved,
                      a->resume_path);
    }
    return restore_receivers(a);
}

/* Both files, when they changed. */
static void save_state(bridge_app_t *a)
{
    if (a->o.state != NULL) {
        save_resume(a);
        save_receivers(a);
    }
}

/* ---- The MQTT link -------------------------------------------------------------------------- */

static void on_mqtt_event(void *user, const mqtt_event_t *ev)
{
    bridge_app_t *a = user;
    if (ev->type == MQTT_EV_CONNACK) {
        if (ev->connack.accepted) {
            zq_tcp_link_ready(&a->link);
        }
        (void)fprintf(stderr, "zq bridge: MQTT %s:%u %s (session %s)\n", a->host, a->port,
                      ev->connack.accepted ? "connected" : "refused the connection",
                      ev->connack.session_present ? "resumed" : "new");
    } else if (ev->type == MQTT_EV_ERROR || ev->type == MQTT_EV_DEAD) {
        (void)fprintf(stderr, "zq bridge: MQTT session ended: %s\n",
                      ev->type == MQTT_EV_DEAD ? "the broker went silent" : ev->error.what);
    } else if (ev->type == MQTT_EV_DISCONNECT) {
        (void)fprintf(stderr, "zq bridge: MQTT broker disconnected us (reason 0x%02x)\n",
                      ev->disconnect.reason);
    }
    bridge_on_mqtt_event(&a->bridge, a->now, ev);
}

static void link_open(void *ctx, uint64_t now)
{
    bridge_app_t *a = ctx;
    (void)mqtt_client_connect(&a->mqtt, now, &a->mopt);
}

/* The broker's bytes, as far as the bridge holds what they carry: a QoS 1 message the
 * incoming table has no room for stops the reading (3.1.1 has no other flow control), and
 * on_idle resumes it once PUBACKs free a place. */
static size_t link_bytes(void *ctx, uint64_t now, const uint8_t *data, size_t len)
{
    bridge_app_t *a = ctx;
    size_t used = 0;
    a->now = now;
    if (!mqtt_client_resume(&a->mqtt, now)) {
        return 0;
    }
    if (mqtt_client_feed_some(&a->mqtt, now, data, len, &used) == ZQ_ERR_CLOSED) {
        zq_tcp_link_flush(&a->link); /* a DISCONNECT saying why, in 5 */
        zq_tcp_link_drop(&a->link, now, "the MQTT session ended");
        return len;
    }
    zq_tcp_link_flush(&a->link);
    return used;
}

static void link_down(void *ctx, uint64_t now, const char *why)
{
    bridge_app_t *a = ctx;
    (void)now;
    mqtt_client_reset_connection(&a->mqtt); /* the session (in-flight QoS 1) stays */
    bridge_mqtt_down(&a->bridge);
    (void)fprintf(stderr, "zq bridge: MQTT %s:%u: %s\n", a->host, a->port, why);
}

static size_t link_pending(void *ctx, const uint8_t **data)
{
    return mqtt_client_pending(&((bridge_app_t *)ctx)->mqtt, data);
}

static void link_sent(void *ctx, size_t n)
{
    mqtt_client_sent(&((bridge_app_t *)ctx)->mqtt, n);
}

static const zq_tcp_link_ops_t link_ops = {
    .on_open = link_open,
    .on_bytes = link_bytes,
    .on_down = link_down,
    .pending = link_pending,
    .sent = link_sent,
};

/* ---- The room ------------------------------------------------------------------------------- */

static void on_event(void *ctx, zq_brk_runner_t *r, uint64_t now, const brk_event_t *ev)
{
    bridge_app_t *a = ctx;
    (void)r;
    a->now = now;
    bridge_on_brk_event(&a->bridge, now, ev);
    if (ev->type == BRK_EVENT_UNDELIVERED) {
        (void)fprintf(stderr, "zq bridge: %" PRIu32 " messages from MQTT never reached a member "
                              "that left the room (and did not come back in time)\n",
                      ev->count);
    }
}

static void on_idle(void *ctx, zq_brk_runner_t *r, uint64_t now)
{
    bridge_app_t *a = ctx;
    (void)r;
    a->now = now;
    zq_tcp_link_tick(&a->link, now);
    if (mqtt_client_state(&a->mqtt) == MQTT_STATE_CONNECTED) {
        mqtt_client_timeout(&a->mqtt, now);
        if (mqtt_client_state(&a->mqtt) == MQTT_STATE_CLOSED) {
            zq_tcp_link_flush(&a->link);
            zq_tcp_link_drop(&a->link, now, "the MQTT broker went silent");
        }
    }
    bridge_pump(&a->bridge, now);
    zq_tcp_link_flush(&a->link);
    zq_tcp_link_resume(&a->link, now); /* input stopped for a full table: PUBACKs made room */
    if (now >= a->next_save) {
        save_state(a);
        a->next_save = now + SAVE_EVERY_MS;
    }
}

static uint64_t next_timeout(void *ctx)
{
    bridge_app_t *a = ctx;
    uint64_t t = zq_time_min(zq_tcp_link_next_timeout(&a->link), a->next_save);
    return mqtt_client_state(&a->mqtt) == MQTT_STATE_CONNECTED
               ? zq_time_min(t, mqtt_client_next_timeout(&a->mqtt))
               : t;
}

static void print_counts(const bridge_app_t *a)
{
    const bridge_stats_t *s = &a->bridge.stats;
    const mqtt_stats_t *m = mqtt_client_stats(&a->mqtt);
    (void)fprintf(stderr,
                  "zq bridge: MQTT packets in %" PRIu32 "; over the receive maximum %" PRIu32
                  ", oversize %" PRIu32 ", topic too long %" PRIu32 ", unknown acks %" PRIu32
                  "\n",
                  m->rx_packets, m->rx_over_quota, m->rx_oversize, m->rx_topic_too_long,
                  m->rx_unknown_ack);
    (void)fprintf(stderr,
                  "zq bridge: to MQTT %" PRIu32 " (QoS 1 acked %" PRIu32 ", refused %" PRIu32
                  "), from MQTT %" PRIu32 " (QoS 1 acked once the room had them %" PRIu32
                  "), requests %" PRIu32 "; dropped: QoS 0 %" PRIu32 ", topics %" PRIu32
                  ", binary %" PRIu32 ", requests %" PRIu32 "; echoes %" PRIu32
                  ", redeliveries %" PRIu32 "\n",
                  s->to_mqtt, s->mqtt_acked, s->mqtt_refused, s->from_mqtt, s->room_acked,
                  s->requests, s->dropped_qos0, s->dropped_topic, s->dropped_binary,
                  s->dropped_request, s->echoes, s->redeliveries);
}

int zq_cmd_bridge(int argc, char **argv)
{
    bridge_app_t *a = &app;
    int rc = parse_options(argc, argv, &a->o);
    if (rc >= 0) {
        return rc;
    }
    const char *room = a->o.room != NULL ? a->o.room : ZQ_BRK_DEFAULT_ROOM;
    if ((rc = configure_mqtt(a, room)) >= 0 || (rc = configure_bridge(a, room)) >= 0 ||
        (rc = configure_state(a)) >= 0) {
        return rc;
    }
    static const zq_brk_runner_callbacks_t cb = {
        .on_event = on_event, .on_idle = on_idle, .next_timeout = next_timeout};
    zq_brk_net_options_t net = {
        .signal = a->o.signal != NULL ? a->o.signal : ZQ_BRK_DEFAULT_SIGNAL,
        .room = room,
        .verbose = a->o.verbose,
        .identity_file = a->o.state != NULL ? a->identity_path : NULL,
        .hold_qos1 = true,
    };
    if ((rc = zq_brk_runner_start(&a->runner, "bridge", &net, &cb, a)) >= 0 ||
        (rc = restore_resume(a)) >= 0) {
        return rc;
    }
    mqtt_client_init(&a->mqtt, on_mqtt_event, a);
    if (bridge_init(&a->bridge, &a->runner.brk, &a->mqtt, &a->cfg) != ZQ_OK) {
        return zq_cli_usage_error("bridge", "a --to-mqtt pattern zq cannot subscribe to");
    }
    zq_rand_t rand = zq_port_rand();
    zq_tcp_link_init(&a->link, &a->runner.loop, &link_ops, a, &rand, RETRY_FIRST_MS,
                     RETRY_MAX_MS);
    (void)zq_tcp_link_add_server(&a->link, a->host, a->port, NULL);
    zq_tcp_link_use_tls(&a->link, ZQ_TCP_LINK_TLS_FIRST, a->trust); /* NULL: mqtt:// */
    (void)fprintf(stderr, "zq bridge: room '%s' <-> MQTT %s://%s:%u under %s/\n", room,
                  a->tls ? "mqtts" : "mqtt", a->host, a->port, a->prefix);
    rc = zq_brk_runner_run(&a->runner);
    save_state(a);
    if (mqtt_client_disconnect(&a->mqtt, MQTT_RC_SUCCESS) == ZQ_OK) {
        zq_tcp_link_flush(&a->link);
    }
    zq_tcp_link_close(&a->link);
    print_counts(a);
    return rc;
}
