# shellcheck shell=sh
# What the headless-Chromium tests' run scripts share (tests/browser/run.sh, zeroq_cli.sh,
# tests/dashboard/run.sh, tests/web/run.sh). A script sources it and calls the two functions:
#
#   . "$(dirname "$0")/../support/browser_env.sh"
#   browser_env_check "$@"      # sets $zq (absolute) or exits
#   browser_env_exec DRIVER.mjs
#
# Needs Debian's chromium, Node.js, and playwright-core installed in tests/browser (scripts/setup
# test runs npm ci there; so does browser_env_check when it is missing, which needs the npm
# registry: inside a network namespace it fails, hence scripts/setup).
set -eu
browser_env_here=$(cd "$(dirname "$0")" && pwd)
browser_env_me=$(basename "$0")

# The zq binary in $1, chromium, node and playwright-core: exits 2 on a bad zq, 1 on the rest.
browser_env_check() {
    zq=${1:?usage: $browser_env_me path/to/zq}
    case "$zq" in
        /*) ;;
        *) zq="$(pwd)/$zq" ;;
    esac
    [ -x "$zq" ] || { echo "$browser_env_me: $zq is not an executable zq" >&2; exit 2; }

    chromium=${ZQ_CHROMIUM:-/usr/bin/chromium}
    if [ ! -x "$chromium" ]; then
        echo "$browser_env_me: no $chromium: apt-get install chromium (or scripts/setup test)" >&2
        exit 1
    fi
    if ! command -v node >/dev/null 2>&1; then
        echo "$browser_env_me: no node: apt-get install nodejs npm (or scripts/setup test)" >&2
        exit 1
    fi
    browser=$(cd "$browser_env_here/../browser" && pwd)
    if [ ! -d "$browser/node_modules/playwright-core" ]; then
        (cd "$browser" && npm ci --no-audit --no-fund --prefer-offline) >&2 || {
            echo "$browser_env_me: npm ci failed in $browser: run it (or scripts/setup test)" \
                "with network" >&2
            exit 1
        }
    fi
}

# Runs node DRIVER.mjs "$zq" from the script's directory in a private network namespace with
# only loopback up, also when the caller is already in one (scripts/test runs interop tests
# so): Chromium and zq then see only 127.0.0.1, and nothing leaves the machine.
browser_env_exec() {
    cd "$browser_env_here"
    # `unshare -n` needs root; otherwise map the caller to root in a new user namespace too.
    if [ "$(id -u)" -eq 0 ]; then
        netns="unshare -n"
    else
        netns="unshare -r -n"
    fi
    # $netns is two or three plain words: splitting it is intended. "$1" and "$2" are the
    # inner sh's.
    # ZQ_BROWSER_LAN=1 also gives the namespace 192.0.2.1 on an interface that is not loopback
    # (tests/support/lan.sh), for Chromium with its WebRTC defaults; a packet addressed beyond
    # it fails the run.
    if [ "${ZQ_BROWSER_LAN:-}" = 1 ]; then
        # shellcheck disable=SC2086,SC2016
        exec $netns sh -c '. ../support/lan.sh && ip link set lo up && lan_up && { node "$1" "$2"
            rc=$?; n=$(lan_stray); echo "lan: $n packets addressed beyond the namespace, dropped"
            [ "$n" -eq 0 ] || rc=1; exit $rc; }' sh "$1" "$zq"
    fi
    # shellcheck disable=SC2086,SC2016
    exec $netns sh -c 'ip link set lo up && exec node "$1" "$2"' sh "$1" "$zq"
}
