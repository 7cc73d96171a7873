#!/bin/sh
# zq's broker commands against a page that speaks ZeroQ by hand, in headless Chromium: what
# CTest (browser_zeroq_cli) runs.
#
#   sh tests/browser/zeroq_cli.sh path/to/zq
#
# Needs Debian's chromium, Node.js and npm (scripts/setup test installs them, and runs npm ci
# here). The test runs in a private network namespace with only loopback up, also when the
# caller is already in one (scripts/test runs interop tests so): Chromium and zq then see only
# 127.0.0.1, and nothing leaves the machine.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
zq=${1:?usage: zeroq_cli.sh path/to/zq}
case "$zq" in
    /*) ;;
    *) zq="$(pwd)/$zq" ;;
esac
[ -x "$zq" ] || { echo "zeroq_cli.sh: $zq is not an executable zq" >&2; exit 2; }

chromium=${ZQ_CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$chromium" ]; then
    echo "zeroq_cli.sh: no $chromium: apt-get install chromium (or scripts/setup test)" >&2
    exit 1
fi
if ! command -v node >/dev/null 2>&1; then
    echo "zeroq_cli.sh: no node: apt-get install nodejs npm (or scripts/setup test)" >&2
    exit 1
fi

cd "$here"
if [ ! -d node_modules/playwright-core ]; then
    # Needs the npm registry: inside a network namespace this fails, hence scripts/setup.
    npm ci --no-audit --no-fund --prefer-offline || {
        echo "zeroq_cli.sh: npm ci failed in $here: run it (or scripts/setup test) with network" >&2
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
exec $netns sh -c 'ip link set lo up && exec node zeroq_cli.mjs "$1"' sh "$zq"
