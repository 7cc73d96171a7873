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
# shellcheck source=nat_env.sh
. "$here/nat_env.sh"

bed_init "$wire" "$out/bed" || exit 1
bed_public || exit 1
bed_site a 192.0.2 cone 203.0.113.1 || exit 1
bed_site b 198.51.100 cone 203.0.113.2 || exit 1
nat_env_servers "$zq"
url=$with_turn

# start_stream ROOM N: zq sub in site a, then zq pub --qos 1 in site b sending 1..N, one every
# 250 ms; returns once the first message came (1 if it never did). Sets $sub and $pub.
start_stream() {
    room=$1
    bed_bg a_host "$zq" sub t --verbose --signal "$url" --room "$room" \
        >"$out/$room-sub.out" 2>"$out/$room-sub.err"
    sub=$BED_PID
    pids="$pids $sub"
    wait_for "$out/$room-sub.err" "in room '$room'" || { fail "$room: sub never joined"; return 1; }
    # shellcheck disable=SC2016 # expanded by the inner sh
    bed_bg b_host sh -c 'i=1; while [ $i -le "$3" ]; do echo $i; i=$((i + 1)); sleep 0.25; done |
        "$0" pub t - --qos 1 --verbose --signal "$1" --room "$2"' "$zq" "$url" "$room" "$2" \
        >"$out/$room-pub.out" 2>"$out/$room-pub.err"
    pub=$BED_PID
    pids="$pids $pub"
    wait_for "$out/$room-sub.out" "^t 1$" || { fail "$room: the first message never came"; return 1; }
}

# end_stream ROOM N: waits (up to 90 s) for all N and for zq pub to exit, stops zq sub, says
# what arrived, and fails the run for a message lost or doubled or a pub that did not end well.
end_stream() {
    room=$1 n=$2
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
    sed -n 's/^t //p' "$out/$room-sub.out" | sort -n -c 2>/dev/null || order="out of"
    echo "$room: $n published, $got received, $missing missing, $twice twice, $order order;" \
        "pub exited $pub_rc"
    grep -E " gone: | connected in [0-9]|addresses changed| in room " "$out/$room-sub.err" |
        sed 's/^/  /'
    [ "$missing" -eq 0 ] || fail "$room: $missing messages lost"
    [ "$twice" -eq 0 ] || fail "$room: $twice messages delivered twice"
    [ "$pub_rc" -eq 0 ] || fail "$room: zq pub exited $pub_rc"
}

# outage SECONDS: one run as the header says.
outage() {
    secs=$1
    room=outage-$secs
    n=$(((3 + secs + 6) * 4))
    start_stream "$room" "$n" || return
    sleep 3
    bed_cut a
    sleep "$secs"
    bed_mend a
    end_stream "$room" "$n"
    gone=$(grep -c " gone: " "$out/$room-sub.err")
    redialed=$(grep -c " connected in [0-9]" "$out/$room-sub.err")
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
    start_stream "$room" "$n" || return
    sleep 3
    bed_in a_host ip addr del 192.0.2.10/24 dev eth0 # the default route goes with it
    sleep 3 # the lease ran out before the new one came: a check sees no address at all
    bed_in a_host ip addr add 192.0.2.11/24 dev eth0
    bed_in a_host ip route add default via 192.0.2.1
    end_stream "$room" "$n"
    grep -q "the host's addresses changed: .*192.0.2.10.* -> " "$out/$room-sub.err" &&
        grep -q "the host's addresses changed: .* -> .*192.0.2.11" "$out/$room-sub.err" ||
        fail "$room: sub did not see its address go and the new one come"
    [ "$(grep -c " in room '$room'" "$out/$room-sub.err")" -ge 2 ] || fail "$room: sub did not rejoin"
    [ "$status" -eq 0 ] && echo "ok: $room: every message once across a new address"
}

[ -n "${ZQ_FAULTS_ONLY:-}" ] || { outage 10; outage 40; }
address_change
n=$(bed_guard_count)
[ "$n" -eq 0 ] || fail "$n packets addressed beyond the bed, dropped"
echo "faults: $n packets addressed beyond the bed, dropped"
exit "$status"
