#!/bin/sh
# `zq signal --tls-cert --tls-key` serving https:// and wss:// itself (server/signal_tls.c),
# in a network namespace of its own; every certificate is made here by OpenSSL.
#
#   zq_signal.sh ZQ
#
# Checked:
#   - zq req and zq rep meet over wss:// (zq's client, 1 KiB records), with an RSA-2048 leaf
#     of an RSA-4096 root served with its root, as a fullchain.pem (the leaf alone in a build
#     without ZQ_TLS_FULL_RECORDS), and a P-256 leaf of a P-384 root (ECDHE-ECDSA);
#   - Python's OpenSSL client (python3-websockets) sends a 16,000-byte record, as browsers may:
#     built with ZQ_TLS_FULL_RECORDS the session takes it and passes a 7,000-byte offer through
#     the room; without, the record is refused with a logged reason (the server said so at start);
#   - https:// for files and /api with curl (OpenSSL), and the certificate chain it verifies;
#   - a client that speaks plain HTTP to the TLS port is refused (logged) and the server goes on;
#   - a 3,717-byte chain, whose server flight is over the session's 4 KiB output, is served;
#   - a key that is not the certificate's, no key, or a chain whose Certificate message exceeds
#     one record (5,008 bytes): zq signal says why and does not start;
#   - on the wire (tshark): ALPN http/1.1 chosen, 1 KiB records granted to zq's client, client
#     a client record over 16,000 bytes from OpenSSL's, and no signalling text in the clear.
set -u
here=$(cd "$(dirname "$0")" && pwd)
zq=$1
. "$here/../../support/echo_env.sh"
. "$here/checks.sh"
echo_env_netns WSS_SIGNAL "$0" "$@"
out=$(mktemp -d)
status=0
pids=
trap 'stop $pids; [ "$status" -ne 0 ] && echo_env_dump_logs; rm -rf "$out"; exit "$status"' EXIT
trap 'status=1; exit' INT TERM

# ---- Certificates --------------------------------------------------------------------------
certs="$out/certs"
mkdir -p "$certs"
cd "$certs" || exit 1
wss_make_certs DNS:localhost,IP:127.0.0.1 || { status=1; exit; }
cat rsa.pem rsa-ca.pem >rsa-chain.pem # a leaf and its issuer, as fullchain.pem: 2,407 bytes
cat rsa.pem rsa-ca.pem rsa-ca.pem >long.pem # 3,717: with the rest of the flight, over 4 KiB
cat rsa.pem rsa-ca.pem rsa-ca.pem rsa-ca.pem >too-long.pem # 5,008: over any build's record
cd "$out" || exit 1
mkdir -p web
echo "hello over https" >web/index.html

# ---- Two servers: RSA on 8443, ECDSA on 8444 -----------------------------------------------
wss_capture "$out/tls.pcapng"
"$zq" signal --listen 127.0.0.1:8444 --tls-cert "$certs/ec.pem" --tls-key "$certs/ec.key" \
    >"$out/signal-ec.out" 2>"$out/signal-ec.err" &
pids="$pids $!"
check "zq signal says https:// once it listens (ECDSA)" \
    wait_for "$out/signal-ec.out" "listening on https://127.0.0.1:8444"
# A build without ZQ_TLS_FULL_RECORDS (CMake's default on the host is with) says so at start:
# 1,536-byte records in, and one leaf is all its 1,280-byte Certificate message holds.
full=1
grep -q "browsers send 16 KiB" "$out/signal-ec.err" && full=0
chain=rsa-chain.pem
[ "$full" -eq 1 ] || chain=rsa.pem
echo "this build: $( [ "$full" -eq 1 ] && echo 16 KiB records in, 4 KiB out ||
    echo 1.5 KiB records in, 1,280 B out); the RSA server serves $chain"
"$zq" signal --listen 127.0.0.1:8443 --web "$out/web" --tls-cert "$certs/$chain" \
    --tls-key "$certs/rsa.key" >"$out/signal-rsa.out" 2>"$out/signal-rsa.err" &
pids="$pids $!"
check "zq signal says https:// once it listens (RSA)" \
    wait_for "$out/signal-rsa.out" "listening on https://127.0.0.1:8443"

check "zq req and zq rep over wss:// to zq signal, RSA-2048 leaf under an RSA-4096 root" \
    answered wss://localhost:8443/ws "$certs/rsa-ca.pem"
check "the same with a P-256 leaf under a P-384 root (ECDHE-ECDSA)" \
    answered wss://localhost:8444/ws "$certs/ec-ca.pem"
if [ "$full" -eq 0 ]; then
    check "OpenSSL's client (Python): a 16,000-byte record, over this build's 1,536, refused" \
        sh -c "! /usr/bin/python3 '$here/big_frames.py' wss://localhost:8443/ws '$certs/rsa-ca.pem' 7000"
    check "the record's refusal is logged with its reason" \
        wait_for "$out/signal-rsa.err" "TLS record refused"
else
    check "OpenSSL's client (Python): a 16,000-byte record taken, then a 7,000-byte offer passed" \
        /usr/bin/python3 "$here/big_frames.py" wss://localhost:8443/ws "$certs/rsa-ca.pem" 7000
fi
check "https:// serves --web's files (curl, the chain verified against the root)" \
    sh -c "curl -sS --cacert '$certs/rsa-ca.pem' https://localhost:8443/ | grep -q 'hello over https'"
check "https:// serves /api/topics" \
    sh -c "curl -sS --cacert '$certs/rsa-ca.pem' https://localhost:8443/api/topics | grep -q '^\['"
if [ "$full" -eq 1 ]; then
    "$zq" signal --listen 127.0.0.1:8445 --web "$out/web" --tls-cert "$certs/long.pem" \
        --tls-key "$certs/rsa.key" >"$out/signal-long.out" 2>"$out/signal-long.err" &
    pids="$pids $!"
    check "a 3,717-byte chain: the server's flight, over its 4 KiB output, goes out in parts" \
        sh -c "sleep 0.5; curl -sS -m 10 --cacert '$certs/rsa-ca.pem' https://localhost:8445/ | grep -q 'hello over https'"
fi
check "plain HTTP to the TLS port: refused" \
    sh -c "! curl -sS -m 5 http://localhost:8443/ >/dev/null 2>&1"
check "the plain request's refusal is logged with its reason" \
    wait_for "$out/signal-rsa.err" "TLS handshake failed"
check "and the server goes on serving" \
    sh -c "curl -sS --cacert '$certs/rsa-ca.pem' https://localhost:8443/ | grep -q 'hello over https'"

stop $pids
pids=
check "zq signal logs its TLS arena at the stop, all of it back" \
    wait_for "$out/signal-rsa.err" "TLS arena: peak [0-9]* B of [0-9]*, 0 B in use"
grep -h "TLS arena" "$out/signal-rsa.err" "$out/signal-ec.err" | sed 's/^/  /'

# ---- Refused at start ----------------------------------------------------------------------
refuses_to_start() { # reason, then the options
    why=$1
    shift
    timeout 10 "$zq" signal --listen 127.0.0.1:0 "$@" >"$out/bad.out" 2>"$out/bad.err"
    rc=$?
    [ "$rc" -ne 0 ] && ! grep -q listening "$out/bad.out" && grep -q "$why" "$out/bad.err" ||
        { cat "$out/bad.err"; return 1; }
}
check "a key that is not the certificate's: zq signal does not start, and says so" \
    refuses_to_start "the key is not the first certificate's" \
    --tls-cert "$certs/rsa.pem" --tls-key "$certs/ec.key"
check "a chain whose Certificate message is over one record: refused at start, with the size" \
    refuses_to_start "Certificate message" --tls-cert "$certs/too-long.pem" \
    --tls-key "$certs/rsa.key"
check "a certificate without its key: a usage error" \
    refuses_to_start "go together" --tls-cert "$certs/rsa.pem"
check "a key file for a certificate file: refused with the reason" \
    refuses_to_start "holds no certificate" --tls-cert "$certs/rsa.key" --tls-key "$certs/rsa.key"

# ---- The wire ------------------------------------------------------------------------------
stop "$cap_pid"
alpn=$(tshark -r "$out/tls.pcapng" -Y "tls.handshake.type == 2" -T fields \
    -e tls.handshake.extensions_alpn_str 2>/dev/null | sort -u | tr '\n' ' ')
mfl=$(tshark -r "$out/tls.pcapng" -Y "tls.handshake.type == 2" -T fields \
    -e tls.handshake.max_fragment_length 2>/dev/null | sort -u | tr '\n' ' ')
biggest=$(tshark -r "$out/tls.pcapng" -Y "tcp.dstport == 8443 && tls.record.content_type == 23" \
    -T fields -e tls.record.length 2>/dev/null | tr ',' '\n' | sort -n | tail -n 1)
clear=$(tshark -r "$out/tls.pcapng" -Y 'tcp.payload contains "topicId"' 2>/dev/null | wc -l)
versions=$(tshark -r "$out/tls.pcapng" -Y "tls.handshake.type == 2" -T fields \
    -e tls.handshake.version 2>/dev/null | sort -u | tr '\n' ' ')
check "wire: every ServerHello is TLS 1.2 ('$versions')" test "$versions" = "0x0303 "
check "wire: ALPN http/1.1 where the client asked ('$alpn')" \
    sh -c "echo '$alpn' | grep -q 'http/1.1'"
check "wire: 1 KiB records granted to zq's client ('$mfl', 2 = 2^10)" \
    sh -c "echo '$mfl' | grep -q 2"
check "wire: the largest client record is $biggest bytes (over 16,000: a full record)" \
    test "${biggest:-0}" -gt 16000
check "wire: no signalling text in the clear ($clear packets)" test "$clear" -eq 0

[ "$status" -eq 0 ] && echo "ok: zq signal serves https:// and wss:// itself"
