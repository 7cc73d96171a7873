# shellcheck shell=sh
# What the wss:// tests share (run.sh through nginx, zq_signal.sh against zq signal itself):
# a named check, and a request through a wss:// URL. Sourced after echo_env.sh ($out, $zq,
# $status and stop() set).

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
