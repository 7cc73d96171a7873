#!/bin/sh
# TURN over TCP and TLS on the lwIP firmware (zq_firmware_wss: port/relay/relay_link.c carries
# the node's stream, RFC 8656 §3.1) on the emulated MPS2-AN386 board, against Debian's coturn,
# for a board whose network drops all its UDP; what scripts/test's firmware step runs after
# wss.sh. Needs scripts/firmware build and coturn (scripts/setup test).
#
#   sh tests/firmware/turn.sh path/to/zq
#
# In a network namespace of its own (tests/firmware/board_env.sh: the board on 192.0.2.2,
# 192.0.2.1 here, nothing let beyond): coturn (use-auth-secret) on 192.0.2.1, TCP 3478 and
# TLS 443 with a certificate for that address made here; `zq signal --tls-cert` on :8443 hands
# the room `turn:` (UDP), `turn:...?transport=tcp` and `turns:` with TURN REST credentials. An
# nftables rule drops every UDP datagram the board sends, so its only path is a relay over a
# stream. Checked, in two boots of the sensor app:
#   - TCP: the node's UDP Allocate goes unanswered, it allocates over TCP (its console says
#     so), and `zq req status` from the host (zq's node, which relays over UDP) is answered
#     over the board's relay;
#   - TLS, with TCP to 3478 dropped too: the TCP connect times out, it allocates over TLS
#     (checked against the board's trust store), and `zq req status` is answered again.
set -u
here=$(cd "$(dirname "$0")" && pwd)
zq=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") # absolute: the test works in $out
firmware="$here/../../scripts/firmware"
. "$here/../support/echo_env.sh"
. "$here/../interop/wss/checks.sh"
. "$here/board_env.sh"
. "$here/../support/coturn.sh"
command -v turnserver >/dev/null 2>&1 || { echo "firmware_turn: no coturn: scripts/setup test" >&2; exit 1; }
fw_test_start firmware_turn "$0" "$@"

fw_lan_up
# The board's UDP, all of it, goes nowhere (its TCP and TLS do).
nft add chain inet zq_fw in "{ type filter hook input priority 0; }" &&
    nft add rule inet zq_fw in iifname zq-fw0 meta l4proto udp counter drop ||
    { echo "FAIL: the nftables rule that drops the board's UDP" >&2; status=1; exit; }

certs="$out/certs"
mkdir -p "$certs"
cd "$certs" || exit 1
wss_make_certs IP:192.0.2.1 || { status=1; exit; }
cat rsa.pem rsa-ca.pem >rsa-chain.pem
cd "$out" || exit 1

coturn_start 192.0.2.1 "$certs/rsa-chain.pem" "$certs/rsa.key"
"$zq" signal --listen 192.0.2.1:8443 --open --tls-cert "$certs/rsa-chain.pem" \
    --tls-key "$certs/rsa.key" --turn-secret "$out/turn.secret" \
    --turn-url turn:192.0.2.1:3478 --turn-url 'turn:192.0.2.1:3478?transport=tcp' \
    --turn-url 'turns:192.0.2.1:443?transport=tcp' >"$out/signal.out" 2>"$out/signal.err" &
pids="$pids $!"
wait_for "$out/signal.out" "listening on https://192.0.2.1:8443" ||
    { echo "FAIL: zq signal did not start" >&2; status=1; exit; }
for _ in $(seq 100); do
    ss -Hltn src 192.0.2.1:443 | grep -q . && ss -Hltn src 192.0.2.1:3478 | grep -q . && break
    sleep 0.1
done

status_answered() {
    SSL_CERT_FILE="$certs/rsa-ca.pem" timeout 40 "$zq" req status '{}' \
        --signal wss://192.0.2.1:8443/ws --room fw-turn | grep -q '"kind"'
}

boot() { # name
    boot_board "$1" wss sensor fw-turn wss://192.0.2.1:8443/ws --ca "$certs/rsa-ca.pem"
}

# ---- TURN over TCP ---------------------------------------------------------------------------
boot tcp
tally "the sensor firmware joins over wss://" joins tcp 1
tally "its UDP Allocate unanswered, it allocates over TCP (its console says so)" \
    wait_long "$out/tcp.out" "^zq: TURN allocation over TCP in [0-9]* ms" 30
grep -m 1 "^zq: TURN allocation" "$out/tcp.out" | sed 's/^/  console: /'
tally "zq req status is answered over the board's relay" status_answered
tally "  ... the board's pair runs over its relay" \
    wait_long "$out/tcp.out" "^zq: peer .* connected in [0-9]* ms over relay" 5
grep -m 1 "^zq: peer .* connected" "$out/tcp.out" | sed 's/^/  console: /'
stop_board

# ---- TURN over TLS (TCP to 3478 dropped too) -------------------------------------------------
nft add rule inet zq_fw in iifname zq-fw0 tcp dport 3478 counter drop ||
    { echo "FAIL: the nftables rule that drops the board's TCP to 3478" >&2; status=1; exit; }
boot tls
tally "TCP to 3478 dropped as well: it allocates over TLS (turns:, port 443)" \
    wait_long "$out/tls.out" "^zq: TURN allocation over TLS in [0-9]* ms" 40
grep -m 1 "^zq: TURN allocation" "$out/tls.out" | sed 's/^/  console: /'
tally "zq req status is answered over the board's relay (TLS)" status_answered
tally "  ... the board's pair runs over its relay" \
    wait_long "$out/tls.out" "^zq: peer .* connected in [0-9]* ms over relay" 5
grep "^zq: arena" "$out/tls.out" | tail -n 1 | sed 's/^/  /'
stop_board

leaked=$(fw_leaked)
tally "no packet addressed beyond the namespace ($leaked dropped)" test "$leaked" -eq 0
echo "firmware_turn: $passed passed, $failed failed"
