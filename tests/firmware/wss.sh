#!/bin/sh
# The firmware's wss:// client (zq_firmware_wss: port/ws/ws_device.c over stack/tls, mbedTLS
# with the device's 1,536 and 1,280-byte records) on the emulated MPS2-AN386 board, against
# `zq signal --tls-cert` itself; what CTest (firmware_wss) runs. Needs scripts/firmware build.
#
#   sh tests/firmware/wss.sh path/to/zq
#
# In a network namespace of its own: a tap interface for the board holding 192.0.2.1/24
# (RFC 5737's TEST-NET-1), the board on 192.0.2.2; an nftables rule drops and counts anything
# addressed beyond loopback and 192.0.2.0/24, and one such packet fails the run. Every
# certificate is made here by OpenSSL, for the IP address 192.0.2.1 (the lwIP port has no
# resolver: the URL names the server by its address, matched against the iPAddress names).
#
# Checked:
#   - the sensor app joins over wss:// (RSA-2048 leaf under an RSA-4096 root, served as a
#     chain; the root in the board's trust store, the leaf's key pinned): zq's own wss://
#     client (`zq sub`) gets its telemetry over the mesh and `zq req status` its answer;
#   - zq signal killed and started again: the board reconnects over TLS, joins again, and its
#     arena is back at the baseline it had after the first join (no TLS memory kept per
#     reconnect); three such restarts;
#   - the board's address changes (`ip 192.0.2.5` typed on its console, the stand-in for a
#     DHCP renewal that hands out another): it says so, moves its socket, joins again over
#     wss:// from the new address, `zq req status` reaches it there, its arena at baseline;
#   - an ECDSA server (P-256 leaf under a P-384 root, ECDHE-ECDSA) is joined as well;
#   - refused, with the reason on the console and no join: a trust store of another CA, a pin
#     of another key, a clock past the certificate's end; a board without a clock does not
#     start wss:// and says why;
#   - on the wire (tshark): the board's ClientHello asks for 1 KiB records (RFC 6066 §4) and is
#     granted them, every ServerHello is TLS 1.2, and no signalling text is in the clear.
# Figures (the arena's peak with TLS, time to join) are printed, never asserted.
set -u
here=$(cd "$(dirname "$0")" && pwd)
zq=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") # absolute: the test works in $out
firmware="$here/../../scripts/firmware"
. "$here/../support/echo_env.sh"
. "$here/../interop/wss/checks.sh"
. "$here/board_env.sh"
fw_test_start firmware_wss "$0" "$@"

# ---- The LAN: the board's tap, and nothing beyond it -----------------------------------------
fw_lan_up

# ---- Certificates ----------------------------------------------------------------------------
certs="$out/certs"
mkdir -p "$certs"
cd "$certs" || exit 1
wss_make_certs IP:192.0.2.1 IP:192.0.2.1 || { status=1; exit; }
cat rsa.pem rsa-ca.pem >rsa-chain.pem
spki_pin() { # certificate: curl's sha256//BASE64 form of its key's SHA-256, with one slash
    printf 'sha256/%s' "$(openssl x509 -in "$1" -pubkey -noout | openssl pkey -pubin -outform der |
        openssl dgst -sha256 -binary | base64)"
}
rsa_pin=$(spki_pin rsa.pem)
ec_pin=$(spki_pin ec.pem)
cd "$out" || exit 1

# ---- Processes -------------------------------------------------------------------------------
start_signal() { # certificate chain, key, log name
    "$zq" signal --listen 192.0.2.1:8443 --open --tls-cert "$certs/$1" --tls-key "$certs/$2" \
        >"$out/$3.out" 2>"$out/$3.err" &
    signal_pid=$!
    wait_for "$out/$3.out" "listening on https://192.0.2.1:8443" ||
        { echo "FAIL: zq signal ($3) did not start" >&2; status=1; exit; }
}

# The sensor app over wss:// in room fw-wss.
boot() { # name, then scripts/firmware run's options
    board=$1
    shift
    boot_board "$board" wss sensor fw-wss wss://192.0.2.1:8443/ws "$@"
}
joined() { joins "$1" 1; }

# The console's arena line after the Nth join ("zq: arena 4321 in use, ...").
arena_after_join() { # name, N
    awk -v n="$2" '/^zq: joined room/ { j++ } j == n && /^zq: arena [0-9]+ in use/ { print $3; exit }' \
        "$out/$1.out"
}

over_wss() { # zq command's arguments: run with the test root trusted
    SSL_CERT_FILE="$certs/rsa-ca.pem" timeout 30 "$zq" "$@" --signal wss://192.0.2.1:8443/ws \
        --room fw-wss
}
telemetry() { over_wss sub 'sensors.#' --count 1 | grep -q temperature; }
status_answered() { over_wss req status '{}' | grep -q '"kind"'; }

wss_capture "$out/tls.pcapng" zq-fw0

# ---- An RSA server: join, the mesh, restarts -------------------------------------------------
start_signal rsa-chain.pem rsa.key signal-rsa
t0=$(date +%s%N)
boot rsa --ca "$certs/rsa-ca.pem" --pin "$rsa_pin"
tally "the sensor firmware joins over wss:// (RSA chain to the board's root, key pinned)" joined rsa
echo "  joined $((($(date +%s%N) - t0) / 1000000)) ms after QEMU started"
tally "zq sub over wss:// gets the firmware's telemetry through the mesh" telemetry
tally "zq req status over wss:// is answered by the firmware" status_answered
baseline=$(arena_after_join rsa 1)
for i in 2 3 4; do
    stop "$signal_pid"
    start_signal rsa-chain.pem rsa.key "signal-rsa-$i"
    tally "zq signal restarted ($((i - 1)) of 3): the firmware reconnects over TLS, joins" \
        joins rsa "$i"
    sleep 1
    after=$(arena_after_join rsa "$i")
    tally "  ... its arena back at the first join's ($baseline B): $after B" \
        test "${after:-x}" = "$baseline"
done

# ---- An address change: the board's console stands in for a DHCP renewal -----------------------
joined_so_far=$(grep -c "^zq: joined room 'fw-wss'" "$out/rsa.out")
echo "ip 192.0.2.5" >&4
tally "the board's address changes (ip 192.0.2.5 on its console): the runner moves and says so" \
    wait_long "$out/rsa.out" "^zq: address changed from 192.0.2.2:[0-9]* to 192.0.2.5:[0-9]*; rejoining" 20
grep -m 1 "^zq: address changed" "$out/rsa.out" | sed 's/^/  console: /'
tally "  ... it joins again over wss://, from its new address" \
    sh -c "$(printf '%s' "n=0; until grep -q 'connected from 192.0.2.5' '$out/signal-rsa-4.err'; do \
        n=\$((n + 1)); [ \$n -lt 200 ] || exit 1; sleep 0.1; done")"
tally "  ... the room sees it join" joins rsa $((joined_so_far + 1))
tally "  ... and zq req status reaches it at 192.0.2.5 through the mesh" status_answered
sleep 1
after=$(arena_after_join rsa $((joined_so_far + 1)))
tally "  ... its arena back at the first join's ($baseline B): $after B" test "${after:-x}" = "$baseline"
grep -m 1 "^zq: arena" "$out/rsa.out" | sed 's/^/  after the first RSA join: /'
grep "^zq: arena" "$out/rsa.out" | tail -n 1 | sed 's/^/  after the mesh and 3 restarts: /'
grep "^firmware: stack high-water" "$out/rsa.out" | tail -n 1 | sed 's/^/  /'
stop_board

# ---- Refusals against the same server ---------------------------------------------------------
boot other-ca --ca "$certs/ec-ca.pem"
tally "a trust store of another CA: refused, the console says why, no join" \
    refused other-ca "certificate was refused: .*CA"
stop_board
boot other-pin --ca "$certs/rsa-ca.pem" --pin "$ec_pin"
tally "a pin of another key: refused, the console says why, no join" \
    refused other-pin "certificate was refused: .*pin"
stop_board
boot late --ca "$certs/rsa-ca.pem" --time 4000000000
tally "a clock past the certificate's end (2096): refused as expired, no join" \
    refused late "certificate was refused: .*expired"
stop_board
boot no-clock --ca "$certs/rsa-ca.pem" --time none
tally "no clock: wss:// does not start, and the console says why" \
    refused no-clock "wall clock is not set"
stop_board
stop "$signal_pid"

# ---- An ECDSA server ---------------------------------------------------------------------------
start_signal ec.pem ec.key signal-ec
boot ec --ca "$certs/ec-ca.pem"
tally "an ECDSA P-256 server under a P-384 root (ECDHE-ECDSA): joined" joined ec
grep -m 1 "^zq: arena" "$out/ec.out" | sed 's/^/  after the ECDSA join: /'
stop_board
stop "$signal_pid"

# ---- The wire ----------------------------------------------------------------------------------
stop "$cap_pid"
asked=$(tshark -r "$out/tls.pcapng" -Y "tls.handshake.type == 1 && ip.src == 192.0.2.2" -T fields \
    -e tls.handshake.max_fragment_length 2>/dev/null | sort -u | tr '\n' ' ')
granted=$(tshark -r "$out/tls.pcapng" -Y "tls.handshake.type == 2" -T fields \
    -e tls.handshake.max_fragment_length 2>/dev/null | sort -u | tr '\n' ' ')
versions=$(tshark -r "$out/tls.pcapng" -Y "tls.handshake.type == 2" -T fields \
    -e tls.handshake.version 2>/dev/null | sort -u | tr '\n' ' ')
clear=$(tshark -r "$out/tls.pcapng" -Y 'tcp.payload contains "topicId"' 2>/dev/null | wc -l)
tally "wire: the board asks for 1 KiB records ('$asked', 2 = 2^10)" test "$asked" = "2 "
tally "wire: and is granted them ('$granted')" test "$granted" = "2 "
tally "wire: every ServerHello is TLS 1.2 ('$versions')" test "$versions" = "0x0303 "
tally "wire: no signalling text in the clear ($clear packets)" test "$clear" -eq 0
leaked=$(fw_leaked)
tally "no packet addressed beyond the namespace ($leaked dropped)" test "$leaked" -eq 0

echo "firmware_wss: $passed passed, $failed failed"
