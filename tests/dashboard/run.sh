#!/bin/sh
# `zq demo` with browsers (issue 7): zq.js pages and the dashboard (web/index.html) in headless
# Chromium beside the demo's devices; what CTest (browser_demo) runs. Writes the README's picture,
# docs/dashboard.png (ZQ_DASHBOARD_SHOT=path writes it there instead, as CTest does).
#
#   sh tests/dashboard/run.sh path/to/zq
#
# Needs Debian's chromium, Node.js, and playwright-core installed in tests/browser (scripts/setup
# test runs npm ci there; so does this script when it is missing and npm is there). Runs in a
# private network namespace with only loopback up, also when the caller is already in one:
# Chromium and zq see only 127.0.0.1.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
zq=${1:?usage: run.sh path/to/zq}
case "$zq" in
    /*) ;;
    *) zq="$(pwd)/$zq" ;;
esac
[ -x "$zq" ] || { echo "run.sh: $zq is not an executable zq" >&2; exit 2; }

chromium=${ZQ_CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$chromium" ]; then
    echo "run.sh: no $chromium: apt-get install chromium (or scripts/setup test)" >&2
    exit 1
fi
if ! command -v node >/dev/null 2>&1; then
    echo "run.sh: no node: apt-get install nodejs npm (or scripts/setup test)" >&2
    exit 1
fi
browser="$here/../browser"
if [ ! -d "$browser/node_modules/playwright-core" ]; then
    if command -v npm >/dev/null 2>&1; then
        (cd "$browser" && npm ci --no-audit --no-fund) >&2 ||
            { echo "run.sh: npm ci in tests/browser failed" >&2; exit 1; }
    else
        echo "run.sh: no playwright-core in tests/browser: npm ci there (or scripts/setup test)" >&2
        exit 1
    fi
fi

cd "$here"
# `unshare -n` needs root; otherwise map the caller to root in a new user namespace too.
if [ "$(id -u)" -eq 0 ]; then
    netns="unshare -n"
else
    netns="unshare -r -n"
fi
# shellcheck disable=SC2086,SC2016
exec $netns sh -c 'ip link set lo up && exec node dashboard.mjs "$1"' sh "$zq"
