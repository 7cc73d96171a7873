#!/bin/sh
# Surviving a dropped link (issue 20 §5), in the NAT bed (bed.sh): `zq sub` in site a and
# `zq pub --qos 1` in site b, both behind cone NATs, through zq signal and coturn on the
# public segment. The publisher sends a numbered message every 250 ms; 3 s in, site a's LAN
# cable is cut (every frame lost, the link up: a Wi-Fi that stops carrying anything, its
# signalling with it) for OUTAGE seconds, then mended.
#
#   10 s: shorter than ICE consent (RFC 7675 §5.1: 30 s): the connection is kept, SCTP and
#         the broker's QoS 1 resend what was lost, no peer is gone;
#   40 s: consent runs out on both sides, the peers are gone, the dialer (sub, in the room
#         first) dials again every ZQ_NODE_REDIAL_MS until the network is back, and the
#         messages published meanwhile are delivered over the new connection.
# Either way every message arrives once: none lost, none twice. Then the sub's host changes
# its address (a DHCP renewal) under the stream: it rejoins with new candidates.
#
#   faults.sh WIRE ZQ
set -u
wire=$1
zq=$2
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../../support/echo_env.sh
. "$here/../../support/echo_env.sh"
echo_env_netns NATFAULTS "$0" "$@"
for c in turnserver nft nsenter; do
    command -v "$c" >/dev/null 2>&1 || { echo "FAIL: no $c: scripts/setup test" >&2; exit 1; }
done
# shellcheck source=bed.sh
. "$here/bed.sh"
out=$(mktemp -d)
status=0
pids=
finish() {
    [ -n "$pids" ] && stop $pids
    bed_cleanup
    if [ "$status" -ne 0 ]; then
        for f in "$out"/*.out "$out"/*.err; do
            [ -s "$f" ] && { echo "--- $f" >&2; tail -n 30 "$f" >&2; }
        done
    fi
    rm -rf "$out"
}
trap finish EXIT
trap 'exit 1' INT TERM
fail() { echo "FAIL: $*" >&2; status=1; }

bed_init "$wire" "$out/bed" || exit 1
bed_public || exit 1
bed_site a 192.0.2 cone 203.0.113.1 || exit 1
bed_site b 198.51.100 cone 203.0.113.2 || exit 1
secret="rest secret shared with coturn"
printf '%s\n' "$secret" >"$out/turn.secret"
turnserver -n --listening-ip=203.0.113.10 --listening-port=3478 --relay-ip=203.0.113.10 \
    --min-port=49152 --max-port=49400 --use-auth-secret --static-auth-secret="$secret" \
    --realm=zq.test --no-tls --no-dtls --no-tcp --no-cli --no-multicast-peers \
    --simple-log --log-file=stdout --pidfile="$out/turnserver.pid" --userdb="$out/turndb" \
    >"$out/coturn.out" 2>&1 &
pids="$pids $!"
"$zq" signal --listen 203.0.113.10:8080 --open --stun-url stun:203.0.113.10:3478 \
    --turn-secret "$out/turn.secret" --turn-url turn:203.0.113.10:3478 \
    >"$out/signal.out" 2>"$out/signal.err" &
pids="$pids $!"
wait_for "$out/signal.out" "listening on" || { fail "zq signal did not start"; exit 1; }
url=ws://203.0.113.10:8080/ws

# outage SECONDS: one run as the header says.
outage() {
    secs=$1
    room=outage-$secs
    n=$(((3 + secs + 6) * 4))
    bed_bg a_host "$zq" sub t --verbose --signal "$url" --room "$room" \
        >"$out/$room-sub.out" 2>"$out/$room-sub.err"
    sub=$BED_PID
    pids="$pids $sub"
    wait_for "$out/$room-sub.err" "in room '$room'" || { fail "$room: sub never joined"; return; }
    # shellcheck disable=SC2016 # expanded by the inner sh
    bed_bg b_host sh -c 'i=1; while [ $i -le "$3" ]; do echo $i; i=$((i + 1)); sleep 0.25; done |
        "$0" pub t - --qos 1 --verbose --signal "$1" --room "$2"' "$zq" "$url" "$room" "$n" \
        >"$out/$room-pub.out" 2>"$out/$room-pub.err"
    pub=$BED_PID
    pids="$pids $pub"
    wait_for "$out/$room-sub.out" "^t 1$" || { fail "$room: the first message never came"; return; }
    sleep 3
    bed_cut a
    sleep "$secs"
    bed_mend a
    for _ in $(seq 900); do
        [ "$(grep -c '^t ' "$out/$room-sub.out")" -ge "$n" ] && ! kill -0 "$pub" 2>/dev/null &&
            break
        sleep 0.1
    done
    wait "$pub" 2>/dev/null
    pub_rc=$?
    stop "$sub"
    got=$(grep -c '^t ' "$out/$room-sub.out")
    twice=$(sed -n 's/^t //p' "$out/$room-sub.out" | sort -n | uniq -d | wc -l)
    missing=0
    for i in $(seq "$n"); do grep -q "^t $i$" "$out/$room-sub.out" || missing=$((missing + 1)); done
    order=in
    sed -n 's/^t //p' "$out/$room-sub.out" | sort -n -c 2>/dev/null || order=out\ of
    gone=$(grep -c " gone: " "$out/$room-sub.err")
    redialed=$(grep -c " connected in [0-9]" "$out/$room-sub.err")
    echo "$room: $n published, $got received, $missing missing, $twice twice, $order order;" \
        "sub saw $gone peer gone and $redialed connections; pub exited $pub_rc"
    grep -E " gone: | connected in [0-9]" "$out/$room-sub.err" | sed 's/^/  /'
    [ "$missing" -eq 0 ] || fail "$room: $missing messages lost"
    [ "$twice" -eq 0 ] || fail "$room: $twice messages delivered twice"
    [ "$pub_rc" -eq 0 ] || fail "$room: zq pub exited $pub_rc"
    if [ "$secs" -lt 30 ]; then
        [ "$gone" -eq 0 ] || fail "$room: the connection was lost in a $secs s outage"
    else
        grep -q "gone: the peer stopped answering ICE consent checks" "$out/$room-sub.err" ||
            fail "$room: consent did not end the connection in a $secs s outage"
        [ "$redialed" -ge 2 ] || fail "$room: sub did not connect again after the outage"
    fi
    [ "$status" -eq 0 ] && echo "ok: $room: every message once after a $secs s outage"
}

# A DHCP renewal: site a's host loses its address under the stream and, 3 s later, gets
# another. The sub sees each change, opens sockets on what it has, rejoins the room with a
# new signalling connection once it can, and the publisher dials its new candidates; every
# message once.
address_change() {
    room=address-change
    n=60
    bed_bg a_host "$zq" sub t --verbose --signal "$url" --room "$room" \
        >"$out/$room-sub.out" 2>"$out/$room-sub.err"
    sub=$BED_PID
    pids="$pids $sub"
    wait_for "$out/$room-sub.err" "in room '$room'" || { fail "$room: sub never joined"; return; }
    # shellcheck disable=SC2016 # expanded by the inner sh
    bed_bg b_host sh -c 'i=1; while [ $i -le "$3" ]; do echo $i; i=$((i + 1)); sleep 0.25; done |
        "$0" pub t - --qos 1 --verbose --signal "$1" --room "$2"' "$zq" "$url" "$room" "$n" \
        >"$out/$room-pub.out" 2>"$out/$room-pub.err"
    pub=$BED_PID
    pids="$pids $pub"
    wait_for "$out/$room-sub.out" "^t 1$" || { fail "$room: the first message never came"; return; }
    sleep 3
    bed_in a_host ip addr del 192.0.2.10/24 dev eth0 # the default route goes with it
    sleep 3 # the lease ran out before the new one came: a check sees no address at all
    bed_in a_host ip addr add 192.0.2.11/24 dev eth0
    bed_in a_host ip route add default via 192.0.2.1
    for _ in $(seq 900); do
        [ "$(grep -c '^t ' "$out/$room-sub.out")" -ge "$n" ] && ! kill -0 "$pub" 2>/dev/null &&
            break
        sleep 0.1
    done
    wait "$pub" 2>/dev/null
    pub_rc=$?
    stop "$sub"
    got=$(grep -c '^t ' "$out/$room-sub.out")
    twice=$(sed -n 's/^t //p' "$out/$room-sub.out" | sort -n | uniq -d | wc -l)
    missing=0
    for i in $(seq "$n"); do grep -q "^t $i$" "$out/$room-sub.out" || missing=$((missing + 1)); done
    echo "$room: $n published, $got received, $missing missing, $twice twice; pub exited $pub_rc"
    grep -E "addresses changed| in room | connected in [0-9]" "$out/$room-sub.err" | sed 's/^/  /'
    grep -q "the host's addresses changed: .*192.0.2.10.* -> " "$out/$room-sub.err" &&
        grep -q "the host's addresses changed: .* -> .*192.0.2.11" "$out/$room-sub.err" ||
        fail "$room: sub did not see its address go and the new one come"
    [ "$(grep -c " in room '$room'" "$out/$room-sub.err")" -ge 2 ] || fail "$room: sub did not rejoin"
    [ "$missing" -eq 0 ] || fail "$room: $missing messages lost"
    [ "$twice" -eq 0 ] || fail "$room: $twice messages delivered twice"
    [ "$pub_rc" -eq 0 ] || fail "$room: zq pub exited $pub_rc"
    [ "$status" -eq 0 ] && echo "ok: $room: every message once across a new address"
}

[ -n "${ZQ_FAULTS_ONLY:-}" ] || { outage 10; outage 40; }
address_change
n=$(bed_guard_count)
[ "$n" -eq 0 ] || fail "$n packets addressed beyond the bed, dropped"
echo "faults: $n packets addressed beyond the bed, dropped"
exit "$status"
