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
# shellcheck source=../support/browser_env.sh
. "$(dirname "$0")/../support/browser_env.sh"
browser_env_check "$@"
browser_env_exec dashboard.mjs
