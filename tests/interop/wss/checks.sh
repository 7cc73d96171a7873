# shellcheck shell=sh
# What the wss:// tests share (run.sh through nginx, zq_signal.sh against zq signal itself):
# their certificates, a named check, and a request through a wss:// URL. Sourced after
# echo_env.sh ($out, $zq, $status and stop() set).

leaf_ext() { printf 'subjectAltName=%s\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' "$1"; }

# In the current directory, by OpenSSL: an RSA-4096 root (rsa-ca.key, rsa-ca.pem) and an
# RSA-2048 leaf whose subjectAltName is $1 (rsa.key, rsa.csr, rsa.pem; its extensions in
# rsa-leaf.cnf); a P-384 root (ec-ca.*) and a P-256 leaf signed with SHA-384 whose
# subjectAltName is $2, or localhost and 127.0.0.1 (ec.key, ec.pem). Says FAIL and returns 1
# if OpenSSL could not.
wss_make_certs() {
    leaf_ext "$1" >rsa-leaf.cnf
    leaf_ext "${2:-DNS:localhost,IP:127.0.0.1}" >ec-leaf.cnf
    {
        openssl req -x509 -newkey rsa:4096 -nodes -keyout rsa-ca.key -out rsa-ca.pem -days 30 \
            -subj "/CN=zq test RSA root" &&
        openssl req -newkey rsa:2048 -nodes -keyout rsa.key -out rsa.csr -subj "/CN=localhost" &&
        openssl x509 -req -in rsa.csr -CA rsa-ca.pem -CAkey rsa-ca.key -CAcreateserial \
            -out rsa.pem -days 30 -extfile rsa-leaf.cnf &&
        openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-384 -nodes -keyout ec-ca.key \
            -out ec-ca.pem -days 30 -subj "/CN=zq test P-384 root" &&
        openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ec.key \
            -out ec.csr -subj "/CN=localhost" &&
        openssl x509 -req -sha384 -in ec.csr -CA ec-ca.pem -CAkey ec-ca.key -CAcreateserial \
            -out ec.pem -days 30 -extfile ec-leaf.cnf
    } 2>/dev/null || { echo "FAIL: openssl could not make the test certificates" >&2; return 1; }
}

# Captures TCP port 8443 on interface $2 (loopback if none) into $1 (tshark reads it after), in
# the background as $cap_pid; returns once dumpcap has written the file's header, so nothing
# is missed.
wss_capture() {
    dumpcap -q -i "${2:-lo}" -f "tcp port 8443" -w "$1" >"$out/dumpcap.err" 2>&1 &
    cap_pid=$!
    for _ in $(seq 50); do
        [ -s "$1" ] && break
        sleep 0.1
    done
}

check() { # description, then the command; its stdout and stderr go to $out/check.*
    what=$1
    shift
    if "$@" >"$out/check.out" 2>"$out/check.err"; then
        echo "ok: $what"
    else
        echo "FAIL: $what" >&2
        cat "$out/check.out" "$out/check.err" >&2
        status=1
    fi
}

# A request through wss URL $1 with CA bundle $2 (and ZQ_TLS_PIN=$3 if given) is answered.
answered() {
    room=r$$_$(date +%s%N)
    ZQ_TLS_PIN=${3:-} SSL_CERT_FILE=$2 "$zq" rep echo --exec cat --signal "$1" --room "$room" \
        >"$out/rep.out" 2>"$out/rep.err" &
    rep=$!
    got=$(ZQ_TLS_PIN=${3:-} SSL_CERT_FILE=$2 timeout 20 "$zq" req echo "over tls" \
        --signal "$1" --room "$room" 2>"$out/req.err")
    rc=$?
    stop "$rep"
    [ "$rc" -eq 0 ] && [ "$got" = "over tls" ] || { cat "$out/req.err" "$out/rep.err"; return 1; }
}
