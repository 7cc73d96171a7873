/* The command lines of the broker commands: one table row per command (its arguments, the
 * options it takes, its help), one parser for all of them. What each command does is in
 * cmd_brk_topic.c, cmd_brk_queue.c and cmd_brk_rpc.c. */
#include "cli/cmd_broker.h"

#include <stddef.h>
#include <string.h>

#include "broker/pattern.h"
#include "cli/cli.h"
#include "cli/cmd_brk.h"

enum {
    OPT_QOS = 1u << 0,
    OPT_COUNT = 1u << 1,
    OPT_WAIT_PEERS = 1u << 2,
    OPT_CREDIT = 1u << 3,
    OPT_TIMEOUT = 1u << 4,
    OPT_RETRIES = 1u << 5,
    OPT_EXEC = 1u << 6,
    OPT_DLQ_OP = 1u << 7,
    OPT_KEEP_DEAD = 1u << 8,
    OPT_JSON = 1u << 9,
};

typedef struct {
    const char *name;
    const char *args;    /* the positional arguments, as the usage line names them */
    const char *extra;   /* its own options on the usage line */
    const char *about;
    const char *options; /* help for its own options */
    uint32_t allowed;    /* OPT_* */
    uint8_t n_args;      /* 1: a name; 2: a name and MSG */
    int (*run)(const zq_brk_options_t *o, zq_brk_runner_t *r);
} brk_command_t;

#define MSG_RULE                                                                                \
    "MSG goes as a JSON value if it is one ({\"a\":1}, 21.5, \"text\", true), else as a JSON\n" \
    "string; MSG '-' takes one message per line of stdin (empty lines skipped).\n"

/* What the commands that print or pipe payloads say about them (issue 16 §2): a shell user
 * expects the text given to zq pub to come out as that text, as mosquitto_sub and nats do. */
#define FORM_RULE                                                                              \
    "A payload comes out as text: a JSON string as its characters (escapes undone, UTF-8),\n"  \
    "any other value (number, object, array, true, false, null) as its JSON text as it came;\n" \
    "with --json every payload comes out as its JSON text, a string in its quotes and\n"        \
    "escapes (so that \"21.5\", a string, and 21.5, a number, differ).\n"

#define JSON_OPTION \
    "  --json           payloads as JSON text, strings quoted (default: as text)\n"

static const brk_command_t pub_cmd = {
    "pub", "TOPIC MSG", "[--qos 0|1] [--count N] [--wait-peers N]",
    "Publishes MSG on TOPIC to the peers of a signalling room that subscribe to it (plain\n"
    "ZeroQ peers get every message, as in ZeroQ), then exits. TOPIC has no '+' or '#' (they\n"
    "are zq sub's wildcards).\n" MSG_RULE
    "It publishes once N peers are ready (connected; zq peers also past hello and sub), and\n"
    "exits once every peer acknowledged what it was sent: with --qos 1 the subscribers' own\n"
    "acks, with QoS 0 their SCTP's (waiting at most 2 s). Prints nothing unless --verbose.\n",
    "  --qos 0|1        fire and forget (0, default), or kept until each subscriber acks (1)\n"
    "  --count N        publish each message N times (default 1)\n"
    "  --wait-peers N   peers to wait for first (default 1; 0: publish at once to whoever\n"
    "                   is there)\n",
    OPT_QOS | OPT_COUNT | OPT_WAIT_PEERS, 2, zq_brk_pub,
};

static const brk_command_t sub_cmd = {
    "sub", "PATTERN", "[--count N] [--json]",
    "Subscribes to the topics PATTERN matches and prints each message as the topic, a space,\n"
    "the payload and a newline, flushed at once. Levels are split at '/' if PATTERN has one\n"
    "(MQTT's names: 'sensors/#'), else at '.' (ZeroQ's: 'sensors.#'). '+' is one whole level\n"
    "('a/+/c'), '#' any number of levels, as the last one ('a/#' matches 'a' too), a final '*'\n"
    "a prefix ('log*'); '*' alone or '#' is every topic.\n" FORM_RULE
    "A message is one line unless its text has newlines (they are printed as they are);\n"
    "with --json it is one line unless its sender put line breaks between JSON tokens.\n",
    "  --count N        exit after N messages (default: run until SIGINT or SIGTERM)\n"
    JSON_OPTION,
    OPT_COUNT | OPT_JSON, 1, zq_brk_sub,
};

static const brk_command_t put_cmd = {
    "put", "QUEUE MSG", "[--keep-dead]",
    "Enqueues MSG as a job of QUEUE: exactly one consumer in the room (zq work) gets it, and\n"
    "this producer holds it until a consumer finishes it, handing it to another one after a\n"
    "failure; after 3 attempts it is dead-lettered. Exits 0 once every job is done, 1 when one\n"
    "was dead-lettered.\n" MSG_RULE,
    "  --keep-dead      keep running while jobs are dead-lettered, so that 'zq dlq' can list,\n"
    "                   requeue (then the job is done: exit 0) or purge them (exit 1)\n",
    OPT_KEEP_DEAD, 2, zq_brk_put,
};

static const brk_command_t work_cmd = {
    "work", "QUEUE", "[--exec CMD] [--credit N] [--count N] [--json]",
    "Consumes jobs of QUEUE. Without --exec, prints each as its id, a space, its payload and\n"
    "a newline, and acks it. With --exec, runs CMD with /bin/sh -c for each job, the payload\n"
    "and a newline on its stdin, ZQ_JOB_ID and ZQ_JOB_ATTEMPT (earlier attempts) in its\n"
    "environment, and acks the job if CMD exits 0, else nacks it (another consumer gets it).\n"
    "Jobs run one at a time, in the order they came; one still running when its producer's\n"
    "lease ends (30 s by default) is handed to another consumer too.\n" FORM_RULE,
    "  --exec CMD       the command to run per job\n"
    "  --credit N       jobs held at once (default 1, at most 8)\n"
    "  --count N        exit after N jobs (default: run until SIGINT or SIGTERM)\n" JSON_OPTION,
    OPT_EXEC | OPT_CREDIT | OPT_COUNT | OPT_JSON, 1, zq_brk_work,
};

static const brk_command_t req_cmd = {
    "req", "SERVICE MSG", "[--timeout MS] [--retries N] [--json]",
    "Sends a request to one responder of SERVICE (zq rep, or a ZeroQ peer when no zq peer\n"
    "serves it) once the room's peers are ready, and prints the reply's payload and a newline.\n"
    "A responder that does not answer in time is replaced by the next, up to --retries more.\n"
    "Exits 1 when nobody answered or the responder refused (its reason is printed).\n"
    MSG_RULE "With '-', each line is a request, sent once the one before was answered.\n"
    FORM_RULE,
    "  --timeout MS     how long each responder gets (default 5000)\n"
    "  --retries N      further responders to try (default 2)\n" JSON_OPTION,
    OPT_TIMEOUT | OPT_RETRIES | OPT_JSON, 2, zq_brk_req,
};

static const brk_command_t rep_cmd = {
    "rep", "SERVICE", "--exec CMD [--json]",
    "Serves SERVICE: for each request runs CMD with /bin/sh -c, the payload and a newline on\n"
    "its stdin, and replies with what CMD printed, as a JSON value if it is one, else as a\n"
    "JSON string (trailing newlines dropped; no output is null), with or without --json. If\n"
    "CMD exits non-zero the request is refused with CMD's stderr (or its exit status) as the\n"
    "reason. Requests run one at a time, in the order they came. ZeroQ requesters are\n"
    "answered ZeroQ's way.\n" FORM_RULE
    "So --exec cat answers each request with its payload (hi with hi, {\"a\":1} with\n"
    "{\"a\":1}), but for a string that reads as JSON: \"21.5\" comes back as 21.5 unless\n"
    "--json.\n",
    "  --exec CMD       the command that answers (required)\n" JSON_OPTION,
    OPT_EXEC | OPT_JSON, 1, zq_brk_rep,
};

static const brk_command_t dlq_cmd = {
    "dlq", "QUEUE", "[--requeue|--purge] [--json]",
    "Asks every zq peer of the room (the producers: zq put --keep-dead, or an application) for\n"
    "its dead-lettered jobs of QUEUE and prints each as its id, its attempts, its payload and\n"
    "a newline (spaces between); with --requeue or --purge, the peers then requeue (attempts\n"
    "reset) or delete the jobs listed. Waits up to 2 s for the answers.\n" FORM_RULE,
    "  --requeue        put the dead jobs back in the queue\n"
    "  --purge          delete them\n" JSON_OPTION,
    OPT_DLQ_OP | OPT_JSON, 1, zq_brk_dlq,
};

/* The program's one node and broker: large, so static, and shared by the commands since a run
 * is only ever one of them. */
static zq_brk_runner_t runner;

/* ---- Help ---------------------------------------------------------------------------------- */

static void print_help(const brk_command_t *c, FILE *out)
{
    int indent = (int)strlen("usage: zq  ") + (int)strlen(c->name);
    (void)fprintf(out,
                  "usage: zq %s %s %s\n%*s[--signal URL] [--room NAME] [--verbose]\n\n%s\n"
                  "options:\n%s",
                  c->name, c->args, c->extra, indent, "", c->about, c->options);
    (void)fputs("  --signal URL     the signalling server's WebSocket (default "
                ZQ_BRK_DEFAULT_SIGNAL ")\n" ZQ_CLI_WSS_HELP("                   ")
                "  --room NAME      the room, also the data channels' label (default "
                ZQ_BRK_DEFAULT_ROOM ")\n"
                "  --verbose        say on stderr what happens (peers, what was sent)\n"
                "  --help           show this help\n"
                "\n"
                "exit status: 0 done (or stopped by SIGINT/SIGTERM while serving), 1 failure\n"
                "(server unreachable, no answer, refused, dead-lettered, interrupted), 2 usage\n"
                "error.\n",
                out);
}

/* ---- Options ------------------------------------------------------------------------------- */

typedef struct {
    const char *name;
    uint32_t flag;
    uint32_t min;
    uint32_t max;
    size_t offset; /* of its uint32_t in zq_brk_options_t */
} number_option_t;

static const number_option_t numbers[] = {
    {"--qos", OPT_QOS, 0, 1, offsetof(zq_brk_options_t, qos)},
    {"--count", OPT_COUNT, 1, UINT32_MAX, offsetof(zq_brk_options_t, count)},
    {"--wait-peers", OPT_WAIT_PEERS, 0, ZQ_NODE_MAX_PEERS, offsetof(zq_brk_options_t, wait_peers)},
    {"--credit", OPT_CREDIT, 1, ZQ_BRK_MAX_HELD, offsetof(zq_brk_options_t, credit)},
    {"--timeout", OPT_TIMEOUT, 1, 3600000, offsetof(zq_brk_options_t, timeout_ms)},
    {"--retries", OPT_RETRIES, 0, 100, offsetof(zq_brk_options_t, retries)},
};

enum { NUMBER_COUNT = sizeof numbers / sizeof numbers[0] };

static void set_defaults(const brk_command_t *c, zq_brk_options_t *o)
{
    memset(o, 0, sizeof *o);
    o->cmd = c->name;
    o->net.signal = ZQ_BRK_DEFAULT_SIGNAL;
    o->net.room = ZQ_BRK_DEFAULT_ROOM;
    o->count = c->run == zq_brk_pub ? 1 : 0;
    o->wait_peers = 1;
    o->credit = 1;
    o->timeout_ms = 5000; /* the broker's defaults (brk_config_default) */
    o->retries = 2;
    o->dlq_op = BRK_DLQ_LIST;
}

/* A number option: -1 when @p arg is none of the command's; else -1 too once stored, or the
 * exit status of a usage error. *taken says whether it was one. */
static int take_number(const brk_command_t *c, int argc, char **argv, int *i,
                       zq_brk_options_t *o, bool *taken)
{
    for (size_t k = 0; k < NUMBER_COUNT && !*taken; k++) {
        const number_option_t *n = &numbers[k];
        const char *value;
        if (!(c->allowed & n->flag) || !zq_cli_take_value(argc, argv, i, n->name, &value)) {
            continue;
        }
        *taken = true;
        uint32_t v;
        if (value == NULL || zq_cli_parse_u32(value, n->min, n->max, &v) != ZQ_OK) {
            return zq_cli_usage_error(c->name, "%s wants a number %u..%u", n->name,
                                      (unsigned)n->min, (unsigned)n->max);
        }
        *(uint32_t *)(void *)((char *)o + n->offset) = v;
    }
    return -1;
}

static int take_string(const brk_command_t *c, int argc, char **argv, int *i,
                       zq_brk_options_t *o, bool *taken)
{
    const char *value = NULL;
    const char **dest = NULL;
    if (zq_cli_take_value(argc, argv, i, "--signal", &value)) {
        dest = &o->net.signal;
    } else if (zq_cli_take_value(argc, argv, i, "--room", &value)) {
        dest = &o->net.room;
    } else if ((c->allowed & OPT_EXEC) && zq_cli_take_value(argc, argv, i, "--exec", &value)) {
        dest = &o->exec;
    } else {
        return -1;
    }
    *taken = true;
    if (value == NULL) {
        return zq_cli_usage_error(c->name, "%s needs a value", argv[*i]);
    }
    *dest = value;
    return -1;
}

static bool take_flag(const brk_command_t *c, const char *arg, zq_brk_options_t *o)
{
    if (strcmp(arg, "--verbose") == 0 || strcmp(arg, "-v") == 0) {
        o->net.verbose = true;
    } else if ((c->allowed & OPT_JSON) && strcmp(arg, "--json") == 0) {
        o->form = ZQ_BRK_FORM_JSON;
    } else if ((c->allowed & OPT_KEEP_DEAD) && strcmp(arg, "--keep-dead") == 0) {
        o->keep_dead = true;
    } else if ((c->allowed & OPT_DLQ_OP) && strcmp(arg, "--requeue") == 0) {
        o->dlq_op = BRK_DLQ_REQUEUE;
        o->dlq_ops++;
    } else if ((c->allowed & OPT_DLQ_OP) && strcmp(arg, "--purge") == 0) {
        o->dlq_op = BRK_DLQ_PURGE;
        o->dlq_ops++;
    } else {
        return false;
    }
    return true;
}

/* Not an option: "-" (stdin), a negative number, or anything after "--". */
static bool is_argument(const char *arg, bool after_dashes)
{
    return after_dashes || arg[0] != '-' || arg[1] == '\0' || (arg[1] >= '0' && arg[1] <= '9');
}

static int take_argument(const brk_command_t *c, const char *arg, zq_brk_options_t *o,
                         int *n_args)
{
    if (*n_args == c->n_args) {
        return zq_cli_usage_error(c->name, "unexpected argument '%s'", arg);
    }
    if (*n_args == 0) {
        o->name = arg;
    } else {
        o->msg = arg;
    }
    (*n_args)++;
    return -1;
}

/* One word of the command line (and its value): -1 to go on, else the exit status. */
static int parse_word(const brk_command_t *c, int argc, char **argv, int *i, zq_brk_options_t *o,
                      int *n_args, bool *after_dashes)
{
    const char *arg = argv[*i];
    if (is_argument(arg, *after_dashes)) {
        return take_argument(c, arg, o, n_args);
    }
    if (strcmp(arg, "--") == 0) {
        *after_dashes = true;
        return -1;
    }
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
        print_help(c, stdout);
        return ZQ_CLI_EXIT_OK;
    }
    bool taken = take_flag(c, arg, o);
    int rc = taken ? -1 : take_number(c, argc, argv, i, o, &taken);
    if (rc < 0 && !taken) {
        rc = take_string(c, argc, argv, i, o, &taken);
    }
    return taken ? rc : zq_cli_usage_error(c->name, "unknown option '%s'", arg);
}

/* A name zq sub cannot take as a pattern, or zq pub cannot publish on, as a usage error saying
 * why (brk_pattern_problem, brk_topic_problem); -1 when it is fine. */
static int topic_name_error(const brk_command_t *c, const char *name, size_t len)
{
    const char *why = c->run == zq_brk_sub ? brk_pattern_problem(name, len) : NULL;
    if (why != NULL) {
        return zq_cli_usage_error(c->name, "'%s' is not a topic pattern: %s", name, why);
    }
    why = c->run == zq_brk_pub ? brk_topic_problem(name, len) : NULL;
    return why != NULL ? zq_cli_usage_error(c->name, "cannot publish on '%s': %s", name, why)
                       : -1;
}

/* What the words cannot say alone: every argument there, names usable, options that go
 * together. */
static int check(const brk_command_t *c, const zq_brk_options_t *o, int n_args)
{
    static const char *const what[] = {"a topic, queue or service name", "MSG"};
    if (n_args < c->n_args) {
        return zq_cli_usage_error(c->name, "missing %s", what[n_args]);
    }
    size_t len = strlen(o->name);
    if (len == 0 || len > ZQ_BRK_NAME_MAX) {
        return zq_cli_usage_error(c->name, "a name wants 1 to %d bytes", ZQ_BRK_NAME_MAX);
    }
    int rc = topic_name_error(c, o->name, len);
    if (rc >= 0) {
        return rc;
    }
    if (c->run == zq_brk_rep && o->exec == NULL) {
        return zq_cli_usage_error(c->name, "--exec CMD is required");
    }
    if (o->dlq_ops > 1) {
        return zq_cli_usage_error(c->name, "--requeue or --purge, once");
    }
    return -1;
}

static int run_command(const brk_command_t *c, int argc, char **argv)
{
    zq_brk_options_t o;
    set_defaults(c, &o);
    int n_args = 0;
    bool after_dashes = false;
    for (int i = 1; i < argc; i++) {
        int rc = parse_word(c, argc, argv, &i, &o, &n_args, &after_dashes);
        if (rc >= 0) {
            return rc;
        }
    }
    int rc = check(c, &o, n_args);
    return rc >= 0 ? rc : c->run(&o, &runner);
}

/* ---- Entry points (main.c's table) --------------------------------------------------------- */

int zq_cmd_pub(int argc, char **argv)
{
    return run_command(&pub_cmd, argc, argv);
}

void zq_cmd_pub_help(FILE *out)
{
    print_help(&pub_cmd, out);
}

int zq_cmd_sub(int argc, char **argv)
{
    return run_command(&sub_cmd, argc, argv);
}

void zq_cmd_sub_help(FILE *out)
{
    print_help(&sub_cmd, out);
}

int zq_cmd_put(int argc, char **argv)
{
    return run_command(&put_cmd, argc, argv);
}

void zq_cmd_put_help(FILE *out)
{
    print_help(&put_cmd, out);
}

int zq_cmd_work(int argc, char **argv)
{
    return run_command(&work_cmd, argc, argv);
}

void zq_cmd_work_help(FILE *out)
{
    print_help(&work_cmd, out);
}

int zq_cmd_req(int argc, char **argv)
{
    return run_command(&req_cmd, argc, argv);
}

void zq_cmd_req_help(FILE *out)
{
    print_help(&req_cmd, out);
}

int zq_cmd_rep(int argc, char **argv)
{
    return run_command(&rep_cmd, argc, argv);
}

void zq_cmd_rep_help(FILE *out)
{
    print_help(&rep_cmd, out);
}

int zq_cmd_dlq(int argc, char **argv)
{
    return run_command(&dlq_cmd, argc, argv);
}

void zq_cmd_dlq_help(FILE *out)
{
    print_help(&dlq_cmd, out);
}
