# shellcheck shell=sh
# What the NAT bed's tests share (run.sh, faults.sh): the tools they need, the bed library,
# $out with every log (printed when a check failed), the EXIT trap that stops what they
# started and takes the bed down, and the public segment's servers.
#
#   . "$here/../../support/echo_env.sh"; echo_env_netns NAME "$0" "$@"   # a namespace first
#   . "$here/nat_env.sh"                 # sets $out, $status, $pids; fail MESSAGE
#   nat_env_servers "$zq"                # coturn and zq signal on 203.0.113.10: sets $with_turn
for c in turnserver nft nsenter; do
    command -v "$c" >/dev/null 2>&1 || { echo "FAIL: no $c: scripts/setup test" >&2; exit 1; }
done
# shellcheck source=bed.sh
. "$here/bed.sh"
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

# nat_env_servers ZQ: on the public segment, Debian's coturn (STUN and TURN on
# 203.0.113.10:3478, over UDP and TCP, use-auth-secret, relays on .10) and zq signal on :8080
# handing members that STUN server and TURN REST credentials for both of its transports;
# $with_turn is its WebSocket URL.
nat_env_servers() {
    secret="rest secret shared with coturn"
    printf '%s\n' "$secret" >"$out/turn.secret"
    turnserver -n --listening-ip=203.0.113.10 --listening-port=3478 --relay-ip=203.0.113.10 \
        --min-port=49152 --max-port=49400 --use-auth-secret --static-auth-secret="$secret" \
        --realm=zq.test --no-tls --no-dtls --no-cli --no-multicast-peers \
        --simple-log --log-file=stdout --pidfile="$out/turnserver.pid" \
        --userdb="$out/turndb" >"$out/coturn.out" 2>&1 &
    pids="$pids $!"
    "$1" signal --listen 203.0.113.10:8080 --open --stun-url stun:203.0.113.10:3478 \
        --turn-secret "$out/turn.secret" --turn-url turn:203.0.113.10:3478 \
        --turn-url 'turn:203.0.113.10:3478?transport=tcp' \
        >"$out/signal-turn.out" 2>"$out/signal-turn.err" &
    pids="$pids $!"
    wait_for "$out/signal-turn.out" "listening on" || { fail "zq signal did not start"; exit 1; }
    for _ in $(seq 100); do
        ss -Hlun src 203.0.113.10:3478 | grep -q . && break
        sleep 0.1
    done
    ss -Hlun src 203.0.113.10:3478 | grep -q . && ss -Hltn src 203.0.113.10:3478 | grep -q . ||
        { fail "coturn did not open 203.0.113.10:3478 (UDP and TCP)"; exit 1; }
    with_turn=ws://203.0.113.10:8080/ws
}
