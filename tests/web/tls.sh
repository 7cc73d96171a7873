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
ZQ_TLS_DIR=$(mktemp -d)
export ZQ_TLS_DIR
(
    cd "$ZQ_TLS_DIR" &&
    printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' >leaf.cnf &&
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key \
        -out ca.pem -days 30 -subj "/CN=zq test browser root" &&
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout leaf.key \
        -out leaf.csr -subj "/CN=localhost" &&
    openssl x509 -req -in leaf.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out leaf.pem \
        -days 30 -extfile leaf.cnf &&
    mkdir -p home/.pki/nssdb &&
    certutil -d sql:home/.pki/nssdb -N --empty-password &&
    certutil -d sql:home/.pki/nssdb -A -t "C,," -n "zq test browser root" -i ca.pem
) >"$ZQ_TLS_DIR/setup.log" 2>&1 ||
    { cat "$ZQ_TLS_DIR/setup.log" >&2; echo "tls.sh: could not make the certificates" >&2; exit 1; }
browser_env_exec tls.mjs
