#!/bin/sh
# zq's wss:// client (stack/tls, port/posix/ws_tls.c) through Debian's nginx, as the README's
# Security section sets it up: nginx terminates TLS and proxies the WebSocket to `zq signal` on
# loopback. In a network namespace of its own; every certificate is made here by OpenSSL.
#
#   run.sh ZQ WSS_PROBE
#
# Checked, each with `zq rep echo --exec cat` and `zq req echo` meeting through the proxy:
#   - an RSA-4096 root and an RSA-2048 leaf (ECDHE-RSA), and a P-384 root with a P-256 leaf
#     signed with SHA-384 (ECDHE-ECDSA): the request is answered;
#   - the client refuses, naming why, and nothing is joined: a CA it does not trust (Debian's
#     whole bundle: none of its roots vouches), a certificate for another name (the URL's
#     127.0.0.1 where the certificate says localhost), an expired certificate, a wrong pin;
#   - a right pin (ZQ_TLS_PIN) works;
#   - an IP in the URL matched against the certificate's IP addresses (127.0.0.1 in one);
#   - on the wire (tshark): a ClientHello names a host name (SNI, RFC 6066 §3) and never an IP
#     literal, asks for 1 KiB records (RFC 6066 §4), and no signalling text crosses port 8443
#     in the clear.
set -u
here=$(cd "$(dirname "$0")" && pwd)
zq=$1
probe=$2
. "$here/../../support/echo_env.sh"
. "$here/checks.sh"
echo_env_netns WSS "$0" "$@"
echo_env_start "$zq" "zq's wss:// client through nginx"

certs="$out/certs"
mkdir -p "$certs"
cd "$certs" || exit 1

# ---- Certificates --------------------------------------------------------------------------
# The RSA leaf names localhost only (a URL with 127.0.0.1 must be refused), the P-256 one both.
wss_make_certs DNS:localhost &&
openssl x509 -req -in rsa.csr -CA rsa-ca.pem -CAkey rsa-ca.key -CAcreateserial \
    -out expired.pem -days -1 -extfile rsa-leaf.cnf 2>/dev/null ||
    { echo "FAIL: openssl could not make the expired certificate" >&2; status=1; exit; }
cat rsa-ca.pem ec-ca.pem >both-ca.pem
pin() { # the ZQ_TLS_PIN of a certificate: SHA-256 of its SubjectPublicKeyInfo, base64
    openssl x509 -in "$1" -pubkey -noout | openssl pkey -pubin -outform der |
        openssl dgst -sha256 -binary | base64
}

# ---- nginx: the README's proxy block, one server per certificate ----------------------------
server_block() { # port cert key
    cat <<EOF
  server {
    listen 127.0.0.1:$1 ssl;
    ssl_certificate $certs/$2;
    ssl_certificate_key $certs/$3;
    location /ws {
      proxy_pass http://127.0.0.1:$port;
      proxy_http_version 1.1;
      proxy_set_header Upgrade \$http_upgrade;
      proxy_set_header Connection "upgrade";
      proxy_read_timeout 1h;
    }
  }
EOF
}
{
    echo "daemon off; pid $out/nginx.pid; error_log $out/nginx.err info; events {}"
    echo "http { access_log $out/nginx.access.out;"
    for t in client_body proxy fastcgi uwsgi scgi; do echo "  ${t}_temp_path $out/$t;"; done
    server_block 8443 rsa.pem rsa.key
    server_block 8444 ec.pem ec.key
    server_block 8445 expired.pem rsa.key
    echo "}"
} >"$out/nginx.conf"
nginx -c "$out/nginx.conf" >"$out/nginx.out" 2>&1 &
pids="$pids $!"
cd "$out" || exit 1

wss_capture "$out/wss.pcapng"
sleep 0.5 # nginx binding its ports

# A request through wss URL $1 with bundle $2 (pin $4) fails at once, naming reason $3.
refused() {
    ZQ_TLS_PIN=${4:-} SSL_CERT_FILE=$2 timeout 20 "$zq" req echo x --signal "$1" \
        --room refused >"$out/refused.out" 2>"$out/refused.err"
    rc=$?
    [ "$rc" -eq 1 ] && grep -q "$3" "$out/refused.err" || { cat "$out/refused.err"; return 1; }
}

check "RSA-4096 root, RSA-2048 leaf: a request over wss:// is answered" \
    answered wss://localhost:8443/ws "$certs/rsa-ca.pem"
check "P-384 root, P-256 leaf signed with SHA-384: answered" \
    answered wss://localhost:8444/ws "$certs/ec-ca.pem"
check "a bundle of two roots finds the one that signed" \
    answered wss://localhost:8444/ws "$certs/both-ca.pem"
check "Debian's CA bundle: no root vouches for the test CA, refused" \
    refused wss://localhost:8443/ws /etc/ssl/certs/ca-certificates.crt "no CA of the bundle vouches"
check "the certificate names localhost, the URL 127.0.0.1: refused" \
    refused wss://127.0.0.1:8443/ws "$certs/rsa-ca.pem" "does not name the host"
check "the P-256 leaf names 127.0.0.1 too: wss://127.0.0.1 answered" \
    answered wss://127.0.0.1:8444/ws "$certs/ec-ca.pem"
check "an expired certificate: refused" \
    refused wss://localhost:8445/ws "$certs/rsa-ca.pem" "it has expired"
check "the leaf's key pinned: answered" \
    answered wss://localhost:8443/ws "$certs/rsa-ca.pem" "sha256/$(pin "$certs/rsa.pem")"
check "another key pinned: refused" \
    refused wss://localhost:8443/ws "$certs/rsa-ca.pem" "not the pinned one" \
    "sha256/$(pin "$certs/ec.pem")"
check "a malformed pin: refused before connecting" \
    refused wss://localhost:8443/ws "$certs/rsa-ca.pem" "ZQ_TLS_PIN is not" "sha256/nope"

# The arena: peak and open figures for the README, and every byte back after the close.
for case in "8443 rsa-ca.pem RSA-2048 leaf, RSA-4096 root" "8444 ec-ca.pem P-256 leaf, P-384 root"; do
    set -- $case
    p=$1
    b=$2
    shift 2
    check "arena of a wss:// session ($*): back at its baseline after the close" \
        env SSL_CERT_FILE="$certs/$b" "$probe" "wss://localhost:$p/ws"
    sed "s/^/  $* (bundle of one): /" "$out/check.out"
done
cat /etc/ssl/certs/ca-certificates.crt "$certs/rsa-ca.pem" >"$certs/debian-and-test.pem"
check "arena with Debian's bundle and the test root: back at its baseline" \
    env SSL_CERT_FILE="$certs/debian-and-test.pem" "$probe" "wss://localhost:8443/ws"
sed "s/^/  RSA, Debian's bundle + the test root: /" "$out/check.out"

stop "$cap_pid"
sni=$(tshark -r "$out/wss.pcapng" -Y "tls.handshake.type == 1" \
    -T fields -e tls.handshake.extensions_server_name 2>/dev/null | sort -u | tr '\n' ' ')
mfl=$(tshark -r "$out/wss.pcapng" -Y "tls.handshake.type == 1" \
    -T fields -e tls.handshake.max_fragment_length 2>/dev/null | sort -u)
agreed=$(tshark -r "$out/wss.pcapng" -Y "tls.handshake.type == 2" \
    -T fields -e tls.handshake.max_fragment_length 2>/dev/null | sort -u | tr '\n' ' ')
clear=$(tshark -r "$out/wss.pcapng" -Y 'tcp.payload contains "topicId"' 2>/dev/null | wc -l)
hellos=$(tshark -r "$out/wss.pcapng" -Y "tls.handshake.type == 1" 2>/dev/null | wc -l)
# The capture is of port 8443: the localhost URLs (SNI) and the refused 127.0.0.1 one (none).
check "wire: $hellos ClientHellos, SNI localhost or none, never an IP ('$sni')" \
    test "$hellos" -gt 0 -a "$sni" = " localhost "
check "wire: each asks for 1 KiB records (max_fragment_length: '$mfl', 2 = 2^10)" \
    test "$mfl" = 2
check "wire: nginx agrees to 1 KiB records in each ServerHello ('$agreed')" test "$agreed" = "2 "
check "wire: no signalling text in the clear on port 8443 ($clear packets)" test "$clear" -eq 0

[ "$status" -eq 0 ] && echo "ok: zq's wss:// client through nginx"
