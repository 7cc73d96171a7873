#!/bin/sh
# Headless Chromium against `zq signal --tls-cert` (tests/web/tls.mjs): what CTest
# (browser_tls_signal) runs.
#
#   sh tests/web/tls.sh path/to/zq
#
# Makes a P-256 root and a leaf for localhost and 127.0.0.1 (OpenSSL), and an NSS database
# trusting the root (certutil, Debian's libnss3-tools) in a HOME of the test's own, which only
# the trusting Chromium gets. Then as tests/web/run.sh: Debian's chromium through
# playwright-core, in a private network namespace with only loopback up.
# shellcheck source=../support/browser_env.sh
. "$(dirname "$0")/../support/browser_env.sh"
browser_env_check "$@"
command -v certutil >/dev/null 2>&1 ||
    { echo "tls.sh: no certutil: apt-get install libnss3-tools (or scripts/setup test)" >&2; exit 1; }
# shellcheck source=../support/test_ca.sh
. "$(dirname "$0")/../support/test_ca.sh"
ZQ_TLS_DIR=$(mktemp -d)
export ZQ_TLS_DIR
test_ca_make "$ZQ_TLS_DIR" || { echo "tls.sh: could not make the certificates" >&2; exit 1; }
(
    cd "$ZQ_TLS_DIR" &&
    mkdir -p home/.pki/nssdb &&
    certutil -d sql:home/.pki/nssdb -N --empty-password &&
    certutil -d sql:home/.pki/nssdb -A -t "C,," -n "zq test browser root" -i ca.pem
) >"$ZQ_TLS_DIR/setup.log" 2>&1 ||
    { cat "$ZQ_TLS_DIR/setup.log" >&2; echo "tls.sh: could not make the trust store" >&2; exit 1; }
browser_env_exec tls.mjs
