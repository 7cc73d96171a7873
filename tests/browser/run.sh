#!/bin/sh
# zq against headless Chromium's own WebRTC (issue 5): what CI and CTest (browser_chromium) run.
#
#   sh tests/browser/run.sh path/to/zq
#
# Needs Debian's chromium, Node.js and npm (scripts/setup test installs them, and runs npm ci
# here). The test runs in a private network namespace with only loopback up, also when the
# caller is already in one (scripts/test runs interop tests so): Chromium and zq then see only
# 127.0.0.1, and nothing leaves the machine.
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

cd "$here"
if [ ! -d node_modules/playwright-core ]; then
    # Needs the npm registry: inside a network namespace this fails, hence scripts/setup.
    npm ci --no-audit --no-fund --prefer-offline || {
        echo "run.sh: npm ci failed in $here: run it (or scripts/setup test) with network" >&2
        exit 1
    }
fi

# `unshare -n` needs root; otherwise map the caller to root in a new user namespace too.
if [ "$(id -u)" -eq 0 ]; then
    netns="unshare -n"
else
    netns="unshare -r -n"
fi
# $netns is two or three plain words: splitting it is intended. "$1" is the inner sh's.
# shellcheck disable=SC2086,SC2016
exec $netns sh -c 'ip link set lo up && exec node run.mjs "$1"' sh "$zq"
