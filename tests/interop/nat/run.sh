#!/bin/sh
# The NAT matrix (issue 20 §4): two zq nodes in two home networks behind NAT routers, which
# meet only through a public segment holding zq signal and Debian's coturn (STUN and TURN).
#
#   public 203.0.113.0/24: zq signal :8080 (STUN and TURN offered), :8081 (STUN only),
#                          coturn 203.0.113.10:3478 (use-auth-secret, relays on .10)
#   site a, b: port-restricted cone (masquerade),   LAN 192.0.2.0/24 and 198.51.100.0/24
#   site c, d: symmetric (masquerade random),       LAN 192.0.2.0/24 and 198.51.100.0/24
#   site e:    cone whose router drops all outbound UDP (only TCP leaves), LAN 192.0.2.0/24
#   site f:    cone dropping outbound UDP and TCP to 3478 (TLS on 443 leaves), 198.51.100.0/24
#
# Each cell runs in both offer directions (the member that was in the room first dials):
#   cone <-> cone, STUN and TURN offered:   connects without the relay (srflx or prflx);
#   cone <-> cone, STUN only:               the same;
#   symmetric <-> symmetric, with TURN:     connects, a relayed candidate on the pair;
#   symmetric <-> symmetric, STUN only:     fails at the connect timeout (30 s), and says
#                                           which candidates were tried;
#   UDP blocked <-> cone, with TURN:        connects through TURN over TCP (the node tries
#                                           it when UDP goes unanswered), a relayed candidate;
#   only TLS out <-> cone, with TURN:       connects through TURN over TLS on 443 (tried when
#                                           TCP to 3478 does not connect), coturn's
#                                           certificate checked against the bed's CA; a node
#                                           trusting another CA refuses it and says why.
# Each connection is proved by 20 echoed probes (zq echo --probe). The guard of bed.sh must
# have dropped nothing: no packet left the documentation ranges. Prints the matrix: the
# candidate types of the pair each side sends on, and the open time (offer to open channel).
#
#   run.sh WIRE ZQ
set -u
wire=$1
zq=$2
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../../support/echo_env.sh
. "$here/../../support/echo_env.sh"
echo_env_netns NAT "$0" "$@"
# shellcheck source=nat_env.sh
. "$here/nat_env.sh"
matrix=

bed_init "$wire" "$out/bed" || exit 1
bed_public || exit 1
bed_site a 192.0.2 cone 203.0.113.1 || exit 1
bed_site b 198.51.100 cone 203.0.113.2 || exit 1
bed_site c 192.0.2 symmetric 203.0.113.3 || exit 1
bed_site d 198.51.100 symmetric 203.0.113.4 || exit 1
bed_site e 192.0.2 cone 203.0.113.5 || exit 1
bed_block_udp e || exit 1
bed_site f 198.51.100 cone 203.0.113.6 || exit 1
bed_block_udp f 3478 || exit 1
lan_of() { case $1 in a | c | e) echo 192.0.2.10 ;; *) echo 198.51.100.10 ;; esac; }

# ---- The public servers: coturn, zq signal offering STUN and TURN (:8080), STUN only (:8081)
nat_env_servers "$zq"
"$zq" signal --listen 203.0.113.10:8081 --open --stun-url stun:203.0.113.10:3478 \
    >"$out/signal-stun.out" 2>"$out/signal-stun.err" &
pids="$pids $!"
wait_for "$out/signal-stun.out" "listening on" || { fail "zq signal (STUN) did not start"; exit 1; }
stun_only=ws://203.0.113.10:8081/ws

# start_echo LOG SITE URL ROOM [ARGS...]: zq echo in SITE's host, bound to its LAN address;
# sets $echo_pid.
start_echo() {
    log=$1 site=$2 url=$3 room=$4
    shift 4
    bed_bg "${site}_host" "$zq" echo --signal "$url" --room "$room" --bind "$(lan_of "$site")" \
        "$@" >"$out/$log.out" 2>"$out/$log.err"
    echo_pid=$BED_PID
    pids="$pids $echo_pid"
}

# "host -> srflx, 412 ms" from a side's "peer X connected in N ms over L -> R" line.
path_of() {
    sed -n 's/^zq echo: peer [^ ]* connected in \([0-9]*\) ms over \(.*\)$/\2, \1 ms/p' "$1" |
        head -n 1
}

# connects NAME URL FIRST SECOND WANT: FIRST joins and dials SECOND, which sends 20 probes;
# WANT is "direct" (no relayed candidate on either side's pair) or "relay" (one at least).
connects() {
    name=$1 url=$2 first=$3 second=$4 want=$5
    room="$name-$first"
    start_echo "$room-offerer" "$first" "$url" "$room"
    offerer=$echo_pid
    wait_for "$out/$room-offerer.err" "in room '$room'" || { fail "$room: $first never joined"; return; }
    bed_in "${second}_host" timeout 60 "$zq" echo --signal "$url" --room "$room" \
        --bind "$(lan_of "$second")" --probe 20 --once \
        >"$out/$room-answerer.out" 2>"$out/$room-answerer.err"
    rc=$?
    stop "$offerer"
    mine=$(path_of "$out/$room-offerer.err")
    theirs=$(path_of "$out/$room-answerer.err")
    if [ "$rc" -ne 0 ] || ! grep -q '20 of 20 back' "$out/$room-answerer.out"; then
        fail "$room: $first dialing $second: the probes did not all come back (exit $rc)"
        return
    fi
    relayed=no
    case "$mine $theirs" in *relay*) relayed=yes ;; esac
    if [ "$want" = direct ] && [ "$relayed" = yes ]; then
        fail "$room: went through the relay ($mine / $theirs), a direct path was there"
    elif [ "$want" = relay ] && [ "$relayed" = no ]; then
        fail "$room: connected without the relay ($mine / $theirs) across symmetric NATs"
    else
        echo "ok: $name, $first dials $second: $first $mine; $second $theirs"
    fi
    matrix="$matrix
| $name | $first dials $second | $mine | $theirs |"
}

connects "cone-cone-turn" "$with_turn" a b direct
connects "cone-cone-turn" "$with_turn" b a direct
connects "cone-cone-stun" "$stun_only" a b direct
connects "cone-cone-stun" "$stun_only" b a direct
connects "symmetric-symmetric-turn" "$with_turn" c d relay
connects "symmetric-symmetric-turn" "$with_turn" d c relay
connects "udp-blocked-cone-turn-tcp" "$with_turn" e b relay
connects "udp-blocked-cone-turn-tcp" "$with_turn" b e relay
# What leaves site f's router while its node talks TLS to coturn (checked after the matrix).
bed_bg f_router dumpcap -q -i wan -f "tcp port 443 or udp" -w "$out/f-wan.pcapng"
f_cap=$BED_PID
pids="$pids $f_cap"
for _ in $(seq 50); do [ -s "$out/f-wan.pcapng" ] && break; sleep 0.1; done
connects "tls-only-cone-turn-tls" "$with_turn" f a relay
connects "tls-only-cone-turn-tls" "$with_turn" a f relay
stop "$f_cap"
# how_allocated LOG: the node's "TURN allocation over ..." line.
how_allocated() { sed -n 's/^zq echo: \(TURN allocation over .*\)$/\1/p' "$1" | head -n 1; }
for f in udp-blocked-cone-turn-tcp-e-offerer:TCP udp-blocked-cone-turn-tcp-b-answerer:TCP \
    tls-only-cone-turn-tls-f-offerer:TLS tls-only-cone-turn-tls-a-answerer:TLS; do
    line=$(how_allocated "$out/${f%:*}.err")
    case $line in
        "TURN allocation over ${f#*:} in "*) echo "ok: ${f%:*}: $line" ;;
        *) fail "${f%:*}: not allocated over ${f#*:}: '${line:-nothing}'" ;;
    esac
done

# ---- On site f's wire: TLS to coturn's 443, nothing of TURN in the clear, no UDP -----------
tls_field() { # filter field: the distinct values of field in the packets filter picks
    tshark -r "$out/f-wan.pcapng" -d tcp.port==443,tls -Y "$1" -T fields -e "$2" 2>/dev/null |
        sort -u | tr '\n' ' '
}
hellos=$(tshark -r "$out/f-wan.pcapng" -d tcp.port==443,tls -Y "tls.handshake.type == 1" 2>/dev/null | wc -l)
sni=$(tls_field "tls.handshake.type == 1" tls.handshake.extensions_server_name)
mfl=$(tls_field "tls.handshake.type == 1" tls.handshake.max_fragment_length)
agreed=$(tls_field "tls.handshake.type == 2" tls.handshake.max_fragment_length)
records=$(tshark -r "$out/f-wan.pcapng" -d tcp.port==443,tls -Y "tls.record.content_type == 23" 2>/dev/null | wc -l)
clear=$(tshark -r "$out/f-wan.pcapng" -Y "stun" 2>/dev/null | wc -l)
udp=$(tshark -r "$out/f-wan.pcapng" -Y "udp" 2>/dev/null | wc -l)
if [ "$hellos" -gt 0 ] && [ "$sni" = " " ] && [ "$mfl" = "2 " ] && [ "$records" -gt 0 ] &&
    [ "$clear" -eq 0 ] && [ "$udp" -eq 0 ]; then
    echo "ok: site f's wire: $hellos ClientHellos to 203.0.113.10:443, no SNI (an IP), 1 KiB records asked (coturn's ServerHello: '${agreed% }'), $records application-data records, 0 STUN or TURN packets in the clear, 0 UDP"
else
    tshark -r "$out/f-wan.pcapng" -Y "udp" >&2 2>/dev/null
    fail "site f's wire: $hellos ClientHellos, SNI '$sni', max_fragment_length asked '$mfl' agreed '$agreed', $records records, $clear STUN in the clear, $udp UDP"
fi

# ---- Only TLS out, and a node that trusts another CA: it refuses coturn, naming why ----------
SSL_CERT_FILE="$out/other-ca.pem" # exported by nat_env_servers: the next node reads this one
start_echo tls-untrusted f "$with_turn" tls-untrusted
SSL_CERT_FILE="$out/ca.pem"
for _ in $(seq 150); do grep -q "TURN allocation over TLS failed" "$out/tls-untrusted.err" && break; sleep 0.1; done
line=$(how_allocated "$out/tls-untrusted.err")
case $line in
    *"TLS failed: TLS handshake failed: "*) echo "ok: trusting another CA, site f's node says: $line" ;;
    *) fail "tls-untrusted: the node did not refuse coturn's certificate: '${line:-nothing in 15 s}'" ;;
esac
stop "$echo_pid"

# ---- Symmetric <-> symmetric with STUN only: both directions at once (30 s each) ------------
for dir in "c d" "d c"; do
    set -- $dir
    room="symmetric-symmetric-stun-$1"
    start_echo "$room-offerer" "$1" "$stun_only" "$room"
    wait_for "$out/$room-offerer.err" "in room '$room'" || fail "$room: $1 never joined"
    start_echo "$room-answerer" "$2" "$stun_only" "$room" --probe 20 --once
done
for dir in "c d" "d c"; do
    set -- $dir
    room="symmetric-symmetric-stun-$1"
    for side in offerer answerer; do
        f="$out/$room-$side.err"
        for _ in $(seq 450); do grep -q "gone: " "$f" && break; sleep 0.1; done
        why=$(sed -n 's/^zq echo: peer [^ ]* gone: \(.*\)$/\1/p' "$f" | head -n 1)
        case $why in
            *"ICE tried "*" 0 answered; our candidates host srflx, theirs host srflx"*)
                echo "ok: symmetric-symmetric-stun, $1 dials $2, the $side says: $why" ;;
            *) fail "$room: the $side did not fail naming its tries: '${why:-nothing in 45 s}'" ;;
        esac
        grep -q " connected in [0-9]" "$f" && fail "$room: the $side connected across symmetric NATs"
    done
    matrix="$matrix
| symmetric-symmetric-stun | $1 dials $2 | fails: $(echo "$why" | sed 's/.*; ICE tried/ICE tried/') | |"
done

n=$(bed_guard_count)
[ "$n" -eq 0 ] || fail "$n packets addressed beyond the bed, dropped"
echo "nat: $n packets addressed beyond the bed, dropped"
echo "| case | direction | offerer's pair, open time | answerer's pair, open time |"
echo "|---|---|---|---|$matrix"
[ "$status" -eq 0 ] && echo "nat: every cell as expected"
exit "$status"
