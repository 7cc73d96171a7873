#!/bin/sh
# web/zq.js in headless Chromium (issue 7): what CTest (web_zq_js) runs.
#
#   sh tests/web/run.sh path/to/zq
#
# Needs Debian's chromium, Node.js, and playwright-core installed in tests/browser (scripts/setup
# test runs npm ci there). Runs in a private network namespace with only loopback up, also when
# the caller is already in one: Chromium and zq see only 127.0.0.1.
# shellcheck source=../support/browser_env.sh
. "$(dirname "$0")/../support/browser_env.sh"
browser_env_check "$@"
browser_env_exec browser.mjs
