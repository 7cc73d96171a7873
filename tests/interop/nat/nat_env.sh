# shellcheck shell=sh
# What the NAT bed's tests share (run.sh, faults.sh): the tools they need, the bed library,
# $out with every log (printed when a check failed), the EXIT trap that stops what they
# started and takes the bed down, and the public segment's servers.
#
#   . "$here/../../support/echo_env.sh"; echo_env_netns NAME "$0" "$@"   # a namespace first
#   . "$here/nat_env.sh"                 # sets $out, $status, $pids; fail MESSAGE
#   nat_env_servers "$zq"                # coturn and zq signal on 203.0.113.10: sets $with_turn
for c in turnserver nft nsenter openssl; do
    command -v "$c" >/dev/null 2>&1 || { echo "FAIL: no $c: scripts/setup test" >&2; exit 1; }
done
# shellcheck source=bed.sh
. "$here/bed.sh"
# shellcheck source=../../support/coturn.sh
. "$here/../../support/coturn.sh"
out=$(mktemp -d)
status=0
pids=
# shellcheck disable=SC2317 # called by the trap
nat_env_finish() {
    # $pids is a list of words: splitting it is intended.
    # shellcheck disable=SC2086
    [ -n "$pids" ] && stop $pids
    bed_cleanup
    if [ "$status" -ne 0 ]; then
        for f in "$out"/*.out "$out"/*.err; do
            [ -s "$f" ] && { echo "--- $f" >&2; tail -n 30 "$f" >&2; }
        done
    fi
    rm -rf "$out"
}
trap nat_env_finish EXIT
trap 'exit 1' INT TERM
fail() { echo "FAIL: $*" >&2; status=1; }

# nat_env_certs: a test CA ($out/ca.pem, which every node trusts: $SSL_CERT_FILE) and coturn's
# P-256 certificate for the IP 203.0.113.10, signed by it; and another CA nobody used
# ($out/other-ca.pem), for a node that must refuse coturn.
nat_env_certs() {
    printf 'subjectAltName=IP:203.0.113.10\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' \
        >"$out/leaf.cnf"
    for ca in ca other-ca; do
        openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$out/$ca.key" \
            -out "$out/$ca.pem" -days 30 -subj "/CN=zq NAT bed $ca" 2>/dev/null || return 1
    done
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$out/turn.key" \
        -out "$out/turn.csr" -subj "/CN=203.0.113.10" 2>/dev/null &&
        openssl x509 -req -in "$out/turn.csr" -CA "$out/ca.pem" -CAkey "$out/ca.key" \
            -CAcreateserial -out "$out/turn.pem" -days 30 -extfile "$out/leaf.cnf" 2>/dev/null
}

# nat_env_servers ZQ: on the public segment, Debian's coturn (STUN and TURN on
# 203.0.113.10:3478 over UDP and TCP, TURN over TLS on :443, use-auth-secret, relays on .10)
# and zq signal on :8080 handing members that STUN server and TURN REST credentials for its
# three transports; $with_turn is its WebSocket URL. Nodes trust the bed's CA ($SSL_CERT_FILE).
nat_env_servers() {
    nat_env_certs || { fail "openssl could not make the bed's certificates"; exit 1; }
    export SSL_CERT_FILE="$out/ca.pem"
    coturn_start 203.0.113.10 "$out/turn.pem" "$out/turn.key"
    "$1" signal --listen 203.0.113.10:8080 --open --stun-url stun:203.0.113.10:3478 \
        --turn-secret "$out/turn.secret" --turn-url turn:203.0.113.10:3478 \
        --turn-url 'turn:203.0.113.10:3478?transport=tcp' \
        --turn-url 'turns:203.0.113.10:443?transport=tcp' \
        >"$out/signal-turn.out" 2>"$out/signal-turn.err" &
    pids="$pids $!"
    wait_for "$out/signal-turn.out" "listening on" || { fail "zq signal did not start"; exit 1; }
    for _ in $(seq 100); do
        ss -Hlun src 203.0.113.10:3478 | grep -q . && break
        sleep 0.1
    done
    ss -Hlun src 203.0.113.10:3478 | grep -q . && ss -Hltn src 203.0.113.10:3478 | grep -q . &&
        ss -Hltn src 203.0.113.10:443 | grep -q . ||
        { fail "coturn did not open 203.0.113.10:3478 (UDP and TCP) and :443 (TLS)"; exit 1; }
    with_turn=ws://203.0.113.10:8080/ws
}
