/* `zq signal` (see cmd_signal.h): its command line (options, help, --print-token), the server's
 * settings from it, and the run from start to stop. The server itself is in signal_*.c, whose
 * parts signal_server.h lists. */
#include "cli/cmd_signal.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "port/posix/read_file.h"
#include "server/signal.h"
#include "signal/cluster.h"
#include "signal/router.h"
#include "stack/nats/nats.h"

#define SIGNAL_DEFAULT_PORT 8080
#define DEFAULT_IDLE_S 45
#define MAX_ORIGINS 16
#define KEY_MAX 1024
#define DEFAULT_TOKEN_TTL_S 86400u
#define MAX_TOKEN_TTL_S (366u * 86400u)
#define DEFAULT_TURN_TTL_S 86400u
#define TLS_CHAIN_MAX (64 * 1024) /* a leaf and its intermediates, PEM: a few KiB */
#define TLS_KEY_MAX (16 * 1024)   /* RSA-8192 in PEM is 6.3 KiB */

typedef struct {
    const char *listen;
    const char *web;
    const char *origins[MAX_ORIGINS];
    size_t origin_count;
    const char *key_file;
    const char *idle;
    const char *print_token;
    const char *token_ttl;
    bool open; /* --open: a non-loopback address without a token key, on purpose */
    const char *turn_secret;
    const char *ice_urls[SIG_ICE_URLS_MAX]; /* --stun-url and --turn-url, in their order */
    size_t ice_url_count;
    size_t turn_url_count;
    const char *turn_ttl;
    const char *tls_cert;
    const char *tls_key;
    const char *cluster;
    const char *cluster_prefix;
    const char *nats_user;
    const char *nats_password;
    const char *nats_token;
    const char *nats_nkey;
    const char *nats_creds;
    zq_posix_tls_files_t nats_tls;
} signal_options_t;

void zq_cmd_signal_help(FILE *out)
{
    (void)fputs(
        "usage: zq signal [--listen ADDR] [--web DIR] [--allow-origin ORIGIN]...\n"
        "                 [--token-key-file FILE | --open] [--idle-timeout SECONDS]\n"
        "                 [--stun-url URL]... [--turn-secret FILE --turn-url URL...\n"
        "                 [--turn-ttl SECONDS]] [--tls-cert FILE --tls-key FILE]\n"
        "                 [--cluster URL[,URL]... [--cluster-prefix P] [--nats-user U\n"
        "                 --nats-password P | --nats-token T | --nats-nkey FILE |\n"
        "                 --nats-creds FILE] [--nats-tlsca FILE]\n"
        "                 [--nats-tlscert FILE --nats-tlskey FILE]]\n"
        "       zq signal --print-token ROOM --token-key-file FILE [--token-ttl SECONDS]\n"
        "\n"
        "Runs the signalling server where ZeroQ pages and zq devices find each other. On one\n"
        "port it serves:\n"
        "\n"
        "  /ws, and /     the WebSocket (RFC 6455): each client gets an id in a welcome frame;\n"
        "                 a join tells the room's earlier members peer_joined, so one side of\n"
        "                 each pair dials; offers, answers and candidates go to the addressed\n"
        "                 member with peerId rewritten to the sender; leaving says peer_left\n"
        "  /api/topics    JSON lists of the topic and queue names that members of a room\n"
        "  /api/queues    announced, gone when they leave: ?room=ROOM (&token=TOKEN with a\n"
        "                 token key); an open server without ?room= lists every room's.\n"
        "                 Same Origin rule as the WebSocket\n"
        "  anything else  a file under --web DIR (index.html for a directory), or 404\n"
        "\n"
        "It prints 'zq signal: listening on http://ADDR (WebSocket at /ws)' once it listens,\n"
        "logs each client's connect, join and leave to stderr, pings clients every third of\n"
        "the idle timeout, and runs until SIGINT or SIGTERM, when clients hear close 1001.\n"
        "With --tls-cert and --tls-key it speaks TLS 1.2 on that port (https:// and wss://,\n"
        "the line then says https://); without, plain http:// and ws://, for loopback, a\n"
        "LAN you trust, or a TLS reverse proxy in front.\n"
        "\n"
        "On an address other than loopback (127.0.0.0/8, ::1) it starts only with a token key,\n"
        "or with --open: anyone who reaches the port could otherwise join any room.\n"
        "\n"
        "options:\n"
        "  --listen ADDR          IP:PORT to listen on (default 127.0.0.1:8080, ZeroQ's\n"
        "                         ws://localhost:8080); port 0 picks a free one\n"
        "  --web DIR              serve static files from DIR (default: none)\n"
        "  --allow-origin ORIGIN  accept WebSocket upgrades only from pages of ORIGIN, e.g.\n"
        "                         http://localhost:5173 (repeatable; others get 403). Requests\n"
        "                         without an Origin come from programs, not pages: allowed\n"
        "  --token-key-file FILE  require a room token on joins: ws://HOST/ws?token=TOKEN,\n"
        "                         TOKEN = EXPIRY.MAC, EXPIRY the Unix second it stops\n"
        "                         working, MAC hex HMAC-SHA256(key, \"zq-room-token-v1\\n\"\n"
        "                         ROOM \"\\n\" EXPIRY); the key is FILE's bytes (less one\n"
        "                         trailing newline)\n"
        "  --open                 listen beyond loopback with no token key: every room open\n"
        "  --print-token ROOM     print ROOM's token under --token-key-file's key, and exit\n"
        "  --token-ttl SECONDS    how long a printed token works (default 86400, a day;\n"
        "                         at most 31622400)\n"
        "  --idle-timeout SECONDS close clients silent this long, pongs included (default 45)\n"
        "  --turn-secret FILE     hand each member, as it joins, TURN credentials for the\n"
        "                         --turn-url servers (up to 4, e.g. turn:HOST:3478): an\n"
        "                         ice_servers frame, username EXPIRY:ID, credential the\n"
        "                         base64 of HMAC-SHA1(FILE's bytes, username), as coturn's\n"
        "                         use-auth-secret with static-auth-secret checks\n"
        "  --turn-url URL         a TURN server members get (repeatable, with --turn-secret)\n"
        "  --stun-url URL         a STUN server members get in the same frame, e.g.\n"
        "                         stun:HOST:3478, for their server-reflexive candidates\n"
        "                         (repeatable; with or without TURN; up to 4 URLs in all)\n"
        "  --turn-ttl SECONDS     how long those credentials work (default 86400)\n"
        "  --tls-cert FILE        serve TLS with this PEM certificate chain: the server's\n"
        "                         certificate first, then its intermediates (fullchain.pem)\n"
        "  --tls-key FILE         the certificate's private key, PEM, unencrypted (PKCS#8,\n"
        "                         RSA or EC)\n"
        "  --cluster URL,...      share rooms with every zq signal on the same NATS: members\n"
        "                         on different servers meet as on one. URL is\n"
        "                         nats://[USER:PASS@|TOKEN@]HOST[:PORT] (port 4222 if\n"
        "                         left out), or tls://... for TLS 1.2 to NATS (its\n"
        "                         certificate checked as for wss://; then every URL is\n"
        "                         TLS); more URLs, and the NATS servers their INFO\n"
        "                         names, are tried in turn when one fails. A server\n"
        "                         silent for 3 s is taken as gone: its members' rooms\n"
        "                         hear peer_left\n"
        "  --cluster-prefix P     the NATS subjects' prefix (default zq.signal): servers\n"
        "                         with another prefix are another cluster\n"
        "  --nats-user U          NATS credentials, as NATS's own --user, --password and\n"
        "  --nats-password P      --token name them (over the URL's)\n"
        "  --nats-token T\n"
        "  --nats-nkey FILE       a user's nkey seed (SU...), as NATS's --nkey: CONNECT\n"
        "                         signs the server's nonce with it (Ed25519)\n"
        "  --nats-creds FILE      a user's .creds file (nsc's: JWT and seed), as NATS's\n"
        "                         --creds\n"
        "  --nats-tlsca FILE      trust the CAs in FILE (PEM) for NATS's certificate, as\n"
        "                         NATS's --tlsca (default: SSL_CERT_FILE, or the system's\n"
        "                         bundle); implies TLS\n"
        "  --nats-tlscert FILE    the certificate (PEM) and its key zq signal shows when\n"
        "  --nats-tlskey FILE     NATS asks for one (nats-server's verify), as NATS's\n"
        "                         --tlscert and --tlskey; imply TLS\n"
        "  --help                 show this help\n"
        "\n"
        "exit status: 0 stopped by a signal (or token printed), 1 the address is in use or\n"
        "another I/O error, 2 usage error.\n",
        out);
}

/* An ICE server URL (RFC 7064, RFC 7065) as the frame carries it: the scheme the option
 * names, no character JSON would have to escape, no space. */
static int store_ice_url(signal_options_t *o, bool turn, const char *url)
{
    bool scheme_ok = turn ? strncmp(url, "turn:", 5) == 0 || strncmp(url, "turns:", 6) == 0
                          : strncmp(url, "stun:", 5) == 0 || strncmp(url, "stuns:", 6) == 0;
    if (!scheme_ok || strlen(url) >= SIG_ICE_URL_MAX || strpbrk(url, "\"\\ ") != NULL) {
        return zq_cli_usage_error("signal", turn ? "--turn-url wants turn:HOST[:PORT][?transport="
                                                   "udp|tcp] or turns:..., under %d characters, "
                                                   "not '%s'"
                                                 : "--stun-url wants stun:HOST[:PORT] or "
                                                   "stuns:..., under %d characters, not '%s'",
                                  SIG_ICE_URL_MAX, url);
    }
    if (o->ice_url_count == SIG_ICE_URLS_MAX) {
        return zq_cli_usage_error("signal", "at most %d --stun-url and --turn-url",
                                  SIG_ICE_URLS_MAX);
    }
    o->ice_urls[o->ice_url_count++] = url;
    o->turn_url_count += turn;
    return -1;
}

static int store_value(signal_options_t *o, const char *name, const char *value)
{
    if (value == NULL) {
        return zq_cli_usage_error("signal", "%s needs a value", name);
    }
    if (strcmp(name, "--allow-origin") == 0) {
        if (o->origin_count == MAX_ORIGINS) {
            return zq_cli_usage_error("signal", "at most %d --allow-origin", MAX_ORIGINS);
        }
        o->origins[o->origin_count++] = value;
    } else if (strcmp(name, "--listen") == 0) {
        o->listen = value;
    } else if (strcmp(name, "--web") == 0) {
        o->web = value;
    } else if (strcmp(name, "--token-key-file") == 0) {
        o->key_file = value;
    } else if (strcmp(name, "--idle-timeout") == 0) {
        o->idle = value;
    } else if (strcmp(name, "--token-ttl") == 0) {
        o->token_ttl = value;
    } else if (strcmp(name, "--turn-secret") == 0) {
        o->turn_secret = value;
    } else if (strcmp(name, "--turn-url") == 0 || strcmp(name, "--stun-url") == 0) {
        return store_ice_url(o, strcmp(name, "--turn-url") == 0, value);
    } else if (strcmp(name, "--turn-ttl") == 0) {
        o->turn_ttl = value;
    } else if (strcmp(name, "--tls-cert") == 0) {
        o->tls_cert = value;
    } else if (strcmp(name, "--tls-key") == 0) {
        o->tls_key = value;
    } else if (strcmp(name, "--cluster") == 0) {
        o->cluster = value;
    } else if (strcmp(name, "--cluster-prefix") == 0) {
        o->cluster_prefix = value;
    } else if (strcmp(name, "--nats-user") == 0) {
        o->nats_user = value;
    } else if (strcmp(name, "--nats-password") == 0) {
        o->nats_password = value;
    } else if (strcmp(name, "--nats-token") == 0) {
        o->nats_token = value;
    } else if (strcmp(name, "--nats-nkey") == 0) {
        o->nats_nkey = value;
    } else if (strcmp(name, "--nats-creds") == 0) {
        o->nats_creds = value;
    } else if (strcmp(name, "--nats-tlsca") == 0) {
        o->nats_tls.ca_file = value;
    } else if (strcmp(name, "--nats-tlscert") == 0) {
        o->nats_tls.cert_file = value;
    } else if (strcmp(name, "--nats-tlskey") == 0) {
        o->nats_tls.key_file = value;
    } else {
        o->print_token = value;
    }
    return -1;
}

static int parse_option(int argc, char **argv, int *i, signal_options_t *o)
{
    static const char *const with_value[] = {"--listen", "--web", "--allow-origin",
                                             "--token-key-file", "--idle-timeout",
                                             "--print-token", "--token-ttl",
                                             "--turn-secret", "--turn-url", "--stun-url",
                                             "--turn-ttl", "--tls-cert", "--tls-key",
                                             "--cluster", "--cluster-prefix", "--nats-user",
                                             "--nats-password", "--nats-token",
                                             "--nats-tlsca", "--nats-tlscert",
                                             "--nats-tlskey", "--nats-nkey", "--nats-creds"};
    const char *arg = argv[*i];
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
        zq_cmd_signal_help(stdout);
        return ZQ_CLI_EXIT_OK;
    }
    if (strcmp(arg, "--open") == 0) {
        o->open = true;
        return -1;
    }
    for (size_t k = 0; k < sizeof with_value / sizeof with_value[0]; k++) {
        const char *value;
        if (zq_cli_take_value(argc, argv, i, with_value[k], &value)) {
            return store_value(o, with_value[k], value);
        }
    }
    if (arg[0] == '-') {
        return zq_cli_usage_error("signal", "unknown option '%s'", arg);
    }
    return zq_cli_usage_error("signal", "unexpected argument '%s'", arg);
}

static int parse_options(int argc, char **argv, signal_options_t *o)
{
    memset(o, 0, sizeof *o);
    for (int i = 1; i < argc; i++) {
        int rc = parse_option(argc, argv, &i, o);
        if (rc >= 0) {
            return rc;
        }
    }
    if (o->print_token != NULL && o->key_file == NULL) {
        return zq_cli_usage_error("signal", "--print-token needs --token-key-file");
    }
    if (o->token_ttl != NULL && o->print_token == NULL) {
        return zq_cli_usage_error("signal", "--token-ttl goes with --print-token");
    }
    if (o->open && o->key_file != NULL) {
        return zq_cli_usage_error("signal", "--open and --token-key-file contradict each other");
    }
    return -1;
}

/* An HMAC key from --token-key-file or --turn-secret (@p option): the file's bytes, less one
 * trailing newline (as `echo secret > FILE` adds). */
static int read_key(const char *option, const char *path, uint8_t *key, size_t *len)
{
    uint8_t buf[KEY_MAX + 1]; /* a key and its newline */
    size_t n = 0;
    zq_err_t err = zq_posix_read_file(path, buf, sizeof buf, &n);
    if (err == ZQ_ERR_IO) {
        return zq_cli_usage_error("signal", "cannot read %s '%s': %s", option, path,
                                  strerror(errno));
    }
    if (err == ZQ_OK && n > 0 && buf[n - 1] == '\n') {
        n--;
    }
    if (err != ZQ_OK || n == 0 || n > KEY_MAX) {
        return zq_cli_usage_error("signal", "%s '%s' must hold 1 to %d bytes", option, path,
                                  KEY_MAX);
    }
    memcpy(key, buf, n);
    *len = n;
    return -1;
}

static int print_token(const signal_options_t *o)
{
    static uint8_t key[KEY_MAX + 1];
    size_t key_len;
    int rc = read_key("--token-key-file", o->key_file, key, &key_len);
    if (rc >= 0) {
        return rc;
    }
    size_t room_len = strlen(o->print_token);
    if (room_len == 0 || room_len > ZQ_SIG_ROOM_MAX) {
        return zq_cli_usage_error("signal", "a room name has 1 to %d bytes", ZQ_SIG_ROOM_MAX);
    }
    uint32_t ttl = DEFAULT_TOKEN_TTL_S;
    if (o->token_ttl != NULL &&
        zq_cli_parse_u32(o->token_ttl, 1, MAX_TOKEN_TTL_S, &ttl) != ZQ_OK) {
        return zq_cli_usage_error("signal", "--token-ttl wants 1 to %u seconds, not '%s'",
                                  MAX_TOKEN_TTL_S, o->token_ttl);
    }
    char token[SIG_TOKEN_TEXT_MAX + 1];
    time_t now = time(NULL);
    sig_room_token(key, key_len, o->print_token, (uint64_t)(now > 0 ? now : 0) + ttl, token);
    (void)printf("%s\n", token);
    return ZQ_CLI_EXIT_OK;
}

/* --stun-url, --turn-secret, --turn-url, --turn-ttl: what members get as they join
 * (signal/router.h). */
static int configure_ice_servers(const signal_options_t *o, signal_settings_t *s)
{
    static uint8_t secret[KEY_MAX + 1];
    if ((o->turn_secret == NULL) != (o->turn_url_count == 0)) {
        return zq_cli_usage_error("signal", "--turn-secret and --turn-url go together");
    }
    s->ice_urls = o->ice_urls;
    s->ice_url_count = o->ice_url_count;
    if (o->turn_secret == NULL) {
        return o->turn_ttl != NULL ? zq_cli_usage_error("signal", "--turn-ttl goes with "
                                                                  "--turn-secret")
                                   : -1;
    }
    uint32_t ttl = DEFAULT_TURN_TTL_S;
    if (o->turn_ttl != NULL && zq_cli_parse_u32(o->turn_ttl, 60, MAX_TOKEN_TTL_S, &ttl) != ZQ_OK) {
        return zq_cli_usage_error("signal", "--turn-ttl wants 60 to %u seconds, not '%s'",
                                  MAX_TOKEN_TTL_S, o->turn_ttl);
    }
    size_t len;
    int rc = read_key("--turn-secret", o->turn_secret, secret, &len);
    if (rc >= 0) {
        return rc;
    }
    s->turn_secret = secret;
    s->turn_secret_len = len;
    s->turn_ttl_s = ttl;
    return -1;
}

/* A PEM file of @p option into @p buf, NUL-ended, for --tls-cert and --tls-key. */
static int read_pem(const char *option, const char *path, char *buf, size_t cap, size_t *len)
{
    zq_err_t err = zq_posix_read_text(path, buf, cap, len);
    if (err == ZQ_ERR_IO) {
        return zq_cli_usage_error("signal", "cannot read %s '%s': %s", option, path,
                                  strerror(errno));
    }
    if (err != ZQ_OK) {
        return zq_cli_usage_error("signal", "%s '%s' is over %zu bytes", option, path, cap - 1);
    }
    return -1;
}

/* --tls-cert, --tls-key: the texts signal_run() parses (and says what is wrong with). */
static int configure_tls(const signal_options_t *o, signal_settings_t *s)
{
    static char chain[TLS_CHAIN_MAX + 1];
    static char key[TLS_KEY_MAX + 1];
    if ((o->tls_cert == NULL) != (o->tls_key == NULL)) {
        return zq_cli_usage_error("signal", "--tls-cert and --tls-key go together");
    }
    if (o->tls_cert == NULL) {
        return -1;
    }
    int rc = read_pem("--tls-cert", o->tls_cert, chain, sizeof chain, &s->tls_chain_len);
    if (rc < 0) {
        rc = read_pem("--tls-key", o->tls_key, key, sizeof key, &s->tls_key_len);
    }
    if (rc < 0) {
        s->tls_chain = chain;
        s->tls_key = key;
    }
    return rc;
}

/* --cluster and the NATS credentials. */
static int configure_cluster(const signal_options_t *o, signal_settings_t *s)
{
    const char *why;
    if (o->cluster == NULL) {
        return o->cluster_prefix != NULL || o->nats_user != NULL || o->nats_password != NULL ||
                       o->nats_token != NULL || o->nats_nkey != NULL ||
                       o->nats_creds != NULL || o->nats_tls.ca_file != NULL ||
                       o->nats_tls.cert_file != NULL || o->nats_tls.key_file != NULL
                   ? zq_cli_usage_error("signal", "--cluster-prefix and --nats-* go with "
                                                  "--cluster")
                   : -1;
    }
    if ((why = signal_cluster_check_urls(o->cluster)) != NULL) {
        return zq_cli_usage_error("signal", "--cluster '%s': %s", o->cluster, why);
    }
    if ((o->nats_user == NULL) != (o->nats_password == NULL) ||
        (o->nats_user != NULL && o->nats_token != NULL)) {
        return zq_cli_usage_error("signal", "--nats-user goes with --nats-password, and "
                                            "neither with --nats-token");
    }
    int kinds = (o->nats_user != NULL) + (o->nats_token != NULL) + (o->nats_nkey != NULL) +
                (o->nats_creds != NULL);
    if (kinds > 1) {
        return zq_cli_usage_error("signal", "one kind of NATS credentials: --nats-user and "
                                            "--nats-password, --nats-token, --nats-nkey or "
                                            "--nats-creds");
    }
    if ((o->nats_tls.cert_file == NULL) != (o->nats_tls.key_file == NULL)) {
        return zq_cli_usage_error("signal", "--nats-tlscert goes with --nats-tlskey");
    }
    if (o->cluster_prefix != NULL &&
        (strlen(o->cluster_prefix) == 0 || strlen(o->cluster_prefix) > SIG_CLUSTER_PREFIX_MAX ||
         !nats_subject_valid(o->cluster_prefix, false))) {
        return zq_cli_usage_error("signal", "--cluster-prefix wants up to %d characters of "
                                            "NATS subject tokens (a.b.c), not '%s'",
                                  SIG_CLUSTER_PREFIX_MAX, o->cluster_prefix);
    }
    s->cluster = o->cluster;
    s->cluster_prefix = o->cluster_prefix;
    s->nats_user = o->nats_user;
    s->nats_password = o->nats_password;
    s->nats_token = o->nats_token;
    s->nats_tls = o->nats_tls;
    s->nats_nkey = o->nats_nkey;
    s->nats_creds = o->nats_creds;
    return -1;
}

/* The server's settings from the options; returns -1 or an exit code. */
static int configure(const signal_options_t *o, signal_settings_t *s)
{
    static uint8_t key[KEY_MAX + 1];
    const char *text = o->listen != NULL ? o->listen : "127.0.0.1:8080";
    if (zq_cli_parse_addr(text, SIGNAL_DEFAULT_PORT, &s->listen) != ZQ_OK) {
        return zq_cli_usage_error("signal", "--listen wants IP[:PORT], not '%s'", text);
    }
    if (!zq_addr_is_loopback(&s->listen) && o->key_file == NULL && !o->open) {
        return zq_cli_usage_error(
            "signal",
            "--listen %s reaches beyond this host, and without --token-key-file anyone who "
            "reaches it joins any room and reads every offer; give a token key, or --open if "
            "that is what you want",
            text);
    }
    uint32_t idle_s = DEFAULT_IDLE_S;
    if (o->idle != NULL && zq_cli_parse_u32(o->idle, 1, 86400, &idle_s) != ZQ_OK) {
        return zq_cli_usage_error("signal", "--idle-timeout wants 1 to 86400 seconds, not '%s'",
                                  o->idle);
    }
    s->idle_ms = (uint64_t)idle_s * 1000u;
    s->origins = o->origins;
    s->origin_count = o->origin_count;
    size_t key_len;
    int rc = o->key_file != NULL ? read_key("--token-key-file", o->key_file, key, &key_len) : -1;
    if (rc >= 0) {
        return rc;
    }
    if (o->key_file != NULL) {
        s->token_key = key;
        s->token_key_len = key_len;
    }
    rc = configure_ice_servers(o, s);
    rc = rc < 0 ? configure_tls(o, s) : rc;
    rc = rc < 0 ? configure_cluster(o, s) : rc;
    if (rc >= 0) {
        return rc;
    }
    if (o->web != NULL && (s->web_dir = open(o->web, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
        return zq_cli_usage_error("signal", "--web '%s' is not a directory zq can read: %s",
                                  o->web, strerror(errno));
    }
    return -1;
}

static int run_server(const signal_options_t *o)
{
    signal_settings_t s;
    signal_settings_default(&s);
    int rc = configure(o, &s);
    if (rc < 0) {
        rc = signal_run(&s);
    }
    if (s.web_dir >= 0) {
        (void)close(s.web_dir);
    }
    return rc;
}

int zq_cmd_signal(int argc, char **argv)
{
    signal_options_t o;
    int rc = parse_options(argc, argv, &o);
    if (rc >= 0) {
        return rc;
    }
    return o.print_token != NULL ? print_token(&o) : run_server(&o);
}
