/* `zq bridge` (see cmd_bridge_exec.h): zq-bridge from zq's own directory, with the same
 * arguments. */
#include "cli/cmd_bridge_exec.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"

/* zq-bridge beside this program (/proc/self/exe), in @p out. */
static bool bridge_path(char *out, size_t cap)
{
    ssize_t n = readlink("/proc/self/exe", out, cap - 1);
    if (n <= 0 || (size_t)n >= cap - 1) {
        return false;
    }
    out[n] = '\0';
    char *slash = strrchr(out, '/');
    static const char name[] = "zq-bridge";
    if (slash == NULL || (size_t)(slash - out) + sizeof name + 1 > cap) {
        return false;
    }
    memcpy(slash + 1, name, sizeof name);
    return true;
}

static int run(char **argv)
{
    char path[4096];
    if (!bridge_path(path, sizeof path)) {
        return zq_cli_fail("bridge", "cannot find this program's directory");
    }
    (void)execv(path, argv);
    return zq_cli_fail("bridge", "cannot run %s: %s (it is built beside zq)", path,
                       strerror(errno));
}

int zq_cmd_bridge_exec(int argc, char **argv)
{
    (void)argc;
    return run(argv); /* argv[0] is "bridge": zq-bridge takes it off */
}

void zq_cmd_bridge_exec_help(FILE *out)
{
    (void)out;
    char *argv[] = {"bridge", "--help", NULL};
    (void)run(argv);
}
