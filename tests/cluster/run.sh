#!/bin/sh
# zq signal --cluster in CI: three NATS nodes routed into one cluster, three zq signals on them
# behind nginx, Chromium pages and zq devices in one room spread over the servers; one zq signal
# and one NATS node killed mid-run, the room re-forms (tests/cluster/README.md). What CTest
# (cluster_nats) runs.
#
#   sh tests/cluster/run.sh path/to/zq [tls]
#
# With tls (CTest cluster_nats_tls) the NATS nodes take clients over TLS only (a throwaway
# root, tests/support/test_ca.sh) and the zq signals dial tls:// with --nats-tlsca.
#
# Needs Debian's chromium, Node.js, playwright-core installed in tests/browser (scripts/setup
# test), nats-server and nginx ($ZQ_NATS_SERVER and $ZQ_NGINX, default /usr/sbin/...). Runs in
# a private network namespace with only loopback up: every port is on 127.0.0.1 there.
# shellcheck source=../support/browser_env.sh
. "$(dirname "$0")/../support/browser_env.sh"
browser_env_check "$@"
ZQ_NATS_SERVER=${ZQ_NATS_SERVER:-/usr/sbin/nats-server}
ZQ_NGINX=${ZQ_NGINX:-/usr/sbin/nginx}
for prog in "$ZQ_NATS_SERVER" "$ZQ_NGINX"; do
    if [ ! -x "$prog" ]; then
        echo "$browser_env_me: no $prog: apt-get install nats-server nginx (or scripts/setup test)" >&2
        exit 1
    fi
done
export ZQ_NATS_SERVER ZQ_NGINX
if [ "${2:-}" = tls ]; then
    # shellcheck source=../support/test_ca.sh
    . "$(dirname "$0")/../support/test_ca.sh"
    ZQ_CLUSTER_TLS_DIR=$(mktemp -d)
    export ZQ_CLUSTER_TLS_DIR
    test_ca_make "$ZQ_CLUSTER_TLS_DIR" IP:127.0.0.1 ||
        { echo "$browser_env_me: could not make the certificates" >&2; exit 1; }
fi
browser_env_exec cluster.mjs
