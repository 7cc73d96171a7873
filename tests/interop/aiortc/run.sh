#!/bin/sh
# aiortc (Debian python3-aiortc, run with /usr/bin/python3) against `zq echo`, through `zq signal`,
# over real UDP on 127.0.0.1. Three runs, each with its own room and its own `zq echo`:
#
#   zq-dials       zq echo joins first; aiortc joins, zq hears peer_joined and sends the offer
#   aiortc-dials   aiortc joins first; zq echo joins, aiortc sends its offer (legacy SDP form)
#   stock-parity   as aiortc-dials, with aiortc's own (wrong) stream-id parity: zq must refuse
#                  the channel (RFC 8832 §6)
#
# aiortc_echo.py does the checks and prints them. Usage: run.sh path/to/zq. It runs where only
# loopback is up, and makes such a place (unshare -n) when it is not in one.
#
# ZQ_AIORTC_CAPTURE=DIR keeps a capture of lo (DIR/lo.pcapng, with tshark) and aiortc's DTLS key
# log (DIR/aiortc.keys), and decode.sh prints the DCEP and SCTP inside. ZQ_AIORTC_LOSS=FIRST:COUNT
# adds a zq-dials run in which aiortc loses some first sends. See README.md.
set -u
zq=${1:?usage: run.sh path/to/zq}
here=$(cd "$(dirname "$0")" && pwd)
python=/usr/bin/python3
zq_abs=$(cd "$(dirname "$zq")" && pwd)/$(basename "$zq")
. "$here/../../support/echo_env.sh"

echo_env_netns AIORTC "$here/run.sh" "$zq_abs"
capture_pid=
stop_capture() {
    if [ -n "$capture_pid" ]; then
        kill -INT "$capture_pid" 2>/dev/null; wait "$capture_pid" 2>/dev/null
        capture_pid=
    fi
}
echo_env_cleanup=stop_capture
echo_env_start "$zq_abs" aiortc

if [ -n "${ZQ_AIORTC_CAPTURE:-}" ] && command -v tshark >/dev/null; then
    mkdir -p "$ZQ_AIORTC_CAPTURE"
    rm -f "$ZQ_AIORTC_CAPTURE/lo.pcapng" "$ZQ_AIORTC_CAPTURE/aiortc.keys"
    export SSLKEYLOGFILE="$ZQ_AIORTC_CAPTURE/aiortc.keys"
    tshark -q -i lo -f udp -w "$ZQ_AIORTC_CAPTURE/lo.pcapng" 2>"$out/tshark.err" &
    capture_pid=$!
    wait_for "$out/tshark.err" "Capturing on" || echo "note: tshark did not start capturing" >&2
fi

aiortc() { # name mode [options]: runs aiortc_echo.py in the background
    name=$1; mode=$2; shift 2
    # Worst case 30 + 3 x 15 s (a stuck channel skips the rest): three runs fit CTest's 300 s.
    timeout 120 "$python" "$here/aiortc_echo.py" --signal "$url" --room "$name" \
        --mode "$mode" --timeout 30 --message-timeout 15 "$@" \
        >"$out/$name.aiortc.out" 2>"$out/$name.aiortc.err" &
    aiortc_pid=$!
}

zq_dials() { # name [options]: zq echo is in the room first, so it dials aiortc
    start_echo "$1"
    if wait_for "$out/$1.echo.err" "in room '$1'"; then
        name=$1; shift
        aiortc "$name" zq-dials "$@"
        finish_run "$name" "$aiortc_pid" aiortc "aiortc_echo.py"
    else
        echo "FAIL: $1: zq echo did not join its room" >&2
        stop "$echo_pid"; pids=; status=1
    fi
}

zq_dials zq-dials

# aiortc-dials, with RFC 8832 parity and then with aiortc's own: aiortc is in the room first.
for run in aiortc-dials stock-parity; do
    opt=
    [ "$run" = stock-parity ] && opt=--stock-parity
    aiortc "$run" aiortc-dials $opt
    if wait_for "$out/$run.aiortc.out" '^aiortc: joined'; then
        start_echo "$run"
        finish_run "$run" "$aiortc_pid" aiortc "aiortc_echo.py"
        # zq echo says which channel it refused, and only then
        said=$(grep -c 'refused 1 data channel open' "$out/$run.echo.err")
        if [ "$said" -ne "$([ "$run" = stock-parity ] && echo 1 || echo 0)" ]; then
            echo "FAIL: $run: zq echo reported $said refused channel(s)" >&2
            status=1
        else
            echo "PASS $run: zq echo reported $said refused channel(s)"
        fi
    else
        echo "FAIL: $run: aiortc did not join its room" >&2
        stop "$aiortc_pid"; status=1
    fi
done

# ZQ_AIORTC_LOSS=FIRST:COUNT: zq-dials again, aiortc losing the first send of those burst
# messages (README.md: 300:40 shows zq's receive buffer stall).
[ -n "${ZQ_AIORTC_LOSS:-}" ] && zq_dials loss --lose "$ZQ_AIORTC_LOSS"

if [ -n "$capture_pid" ]; then
    sleep 0.5
    stop_capture
    sh "$here/decode.sh" "$ZQ_AIORTC_CAPTURE" || status=1
fi

[ "$status" -eq 0 ] && echo "ok: aiortc against zq echo through zq signal, both directions"
exit "$status"
