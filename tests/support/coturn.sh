# shellcheck shell=sh
# Debian's coturn as the TURN tests run it (tests/interop/nat/nat_env.sh, tests/firmware/
# turn.sh): STUN and TURN on IP:3478 over UDP and TCP, TURN over TLS on :443, relays on IP,
# TURN REST credentials (use-auth-secret) for a secret it writes to $out/turn.secret (what
# `zq signal --turn-secret` then reads), realm zq.test.
#
#   coturn_start IP CERT KEY     in the background, its pid added to $pids; log $out/coturn.out
coturn_start() {
    printf '%s\n' "rest secret shared with coturn" >"$out/turn.secret"
    turnserver -n --listening-ip="$1" --listening-port=3478 --relay-ip="$1" \
        --tls-listening-port=443 --cert="$2" --pkey="$3" \
        --min-port=49152 --max-port=49400 --use-auth-secret \
        --static-auth-secret="$(cat "$out/turn.secret")" \
        --realm=zq.test --no-dtls --no-cli --no-multicast-peers \
        --simple-log --log-file=stdout --pidfile="$out/turnserver.pid" \
        --userdb="$out/turndb" >"$out/coturn.out" 2>&1 &
    pids="$pids $!"
}
