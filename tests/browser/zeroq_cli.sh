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
# shellcheck source=../support/browser_env.sh
. "$(dirname "$0")/../support/browser_env.sh"
browser_env_check "$@"
browser_env_exec zeroq_cli.mjs
