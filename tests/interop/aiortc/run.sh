#!/bin/sh
# aiortc (Debian python3-aiortc, run with /usr/bin/python3, nothing in it patched) against
# `zq echo`, through `zq signal`, over real UDP. Two runs, each with its own room and its own
# `zq echo`:
#
#   zq-dials       zq echo joins first; aiortc joins, zq hears peer_joined and sends the offer
#   aiortc-dials   aiortc joins first; zq echo joins, aiortc sends its offer (legacy SDP form)
#
# aiortc_echo.py does the checks and prints them; this script checks that zq echo refused no
# channel in either run. Usage: run.sh path/to/zq. It makes a network namespace of its own with
# loopback and an interface at 192.0.2.1 (aioice skips loopback when it gathers).
#
# ZQ_AIORTC_LOSS=PERCENT drops that share of all UDP datagrams, both ways, in both runs
# (nftables in the namespace), up to the close (aiortc never retransmits a stream reset). ZQ_AIORTC_CAPTURE=DIR keeps a capture (DIR/lo.pcapng: local traffic
# to 192.0.2.1 goes over lo too, with tshark) and aiortc's DTLS key log (DIR/aiortc.keys), and decode.sh prints the DCEP and SCTP
# inside. See README.md.
set -u
zq=${1:?usage: run.sh path/to/zq}
here=$(cd "$(dirname "$0")" && pwd)
python=/usr/bin/python3
zq_abs=$(cd "$(dirname "$zq")" && pwd)/$(basename "$zq")
. "$here/../../support/echo_env.sh"

echo_env_netns AIORTC "$here/run.sh" "$zq_abs"
echo_env_lan || { echo "FAIL: cannot add an interface with 192.0.2.1" >&2; exit 1; }
# With ZQ_AIORTC_LOSS, before each run (aiortc_echo.py ends the loss for its close).
arm_loss() {
    [ -n "${ZQ_AIORTC_LOSS:-}" ] || return 0
    nft delete table inet zq_loss 2>/dev/null
    echo_env_udp_loss "$ZQ_AIORTC_LOSS" || { echo "FAIL: nftables cannot drop UDP" >&2; exit 1; }
    echo "aiortc: $1: ${ZQ_AIORTC_LOSS} % of UDP datagrams dropped, both ways, until the close"
}
capture_pid=
stop_capture() {
    if [ -n "$capture_pid" ]; then
        kill -INT "$capture_pid" 2>/dev/null; wait "$capture_pid" 2>/dev/null
        capture_pid=
    fi
}
echo_env_cleanup=stop_capture
echo_env_start "$zq_abs" "aiortc against zq echo"

if [ -n "${ZQ_AIORTC_CAPTURE:-}" ] && command -v tshark >/dev/null; then
    mkdir -p "$ZQ_AIORTC_CAPTURE"
    rm -f "$ZQ_AIORTC_CAPTURE/lo.pcapng" "$ZQ_AIORTC_CAPTURE/aiortc.keys"
    export SSLKEYLOGFILE="$ZQ_AIORTC_CAPTURE/aiortc.keys"
    tshark -q -i lo -f udp -w "$ZQ_AIORTC_CAPTURE/lo.pcapng" 2>"$out/tshark.err" &
    capture_pid=$!
    wait_for "$out/tshark.err" "Capturing on" || echo "note: tshark did not start capturing" >&2
fi

# Under loss the close runs without it: aiortc 1.4 never retransmits a RE-CONFIG (RFC 6525
# §5.1.1), so one lost stream reset would leave its channel closing for good.
lossy_opts=
[ -n "${ZQ_AIORTC_LOSS:-}" ] && lossy_opts=--lossless-close

aiortc() { # name mode: runs aiortc_echo.py in the background
    # Worst case 30 + 3 x 15 s (a stuck channel skips the rest): both runs fit CTest's 300 s.
    # $lossy_opts is empty or one word.
    # shellcheck disable=SC2086
    timeout 120 "$python" "$here/aiortc_echo.py" --signal "$url" --room "$1" \
        --mode "$2" --timeout 30 --message-timeout 15 $lossy_opts \
        >"$out/$1.aiortc.out" 2>"$out/$1.aiortc.err" &
    aiortc_pid=$!
}

report_loss() { # name: how many datagrams the run lost (the table is gone after its close)
    [ -n "${ZQ_AIORTC_LOSS:-}" ] || return 0
    grep -q 'UDP loss ended' "$out/$1.aiortc.out" ||
        { echo "FAIL: $1: the loss was never ended for the close" >&2; status=1; }
}

# name: checks that the run's zq echo refused no data channel open (RFC 8832 §6 parity)
no_refusal() {
    said=$(grep -c 'refused 1 data channel open' "$out/$1.echo.err")
    if [ "$said" -ne 0 ]; then
        echo "FAIL: $1: zq echo refused $said channel(s)" >&2
        status=1
    else
        echo "PASS $1: zq echo refused no channel"
    fi
}

zq_dials() { # name: zq echo is in the room first, so it dials aiortc
    arm_loss "$1"
    start_echo "$1"
    if wait_for "$out/$1.echo.err" "in room '$1'"; then
        aiortc "$1" zq-dials
        finish_run "$1" "$aiortc_pid" aiortc "aiortc_echo.py"
        no_refusal "$1"
        report_loss "$1"
    else
        echo "FAIL: $1: zq echo did not join its room" >&2
        stop "$echo_pid"; pids=; status=1
    fi
}

aiortc_dials() { # name: aiortc is in the room first, so it dials zq echo
    arm_loss "$1"
    aiortc "$1" aiortc-dials
    if wait_for "$out/$1.aiortc.out" '^aiortc: joined'; then
        start_echo "$1"
        finish_run "$1" "$aiortc_pid" aiortc "aiortc_echo.py"
        no_refusal "$1"
        report_loss "$1"
    else
        echo "FAIL: $1: aiortc did not join its room" >&2
        stop "$aiortc_pid"; status=1
    fi
}

zq_dials zq-dials
aiortc_dials aiortc-dials

if [ -n "$capture_pid" ]; then
    sleep 0.5
    stop_capture
    sh "$here/decode.sh" "$ZQ_AIORTC_CAPTURE" || status=1
fi

stray=$(lan_stray)
echo "aiortc: $stray packets addressed beyond the namespace, dropped"
[ "$stray" -eq 0 ] || status=1

[ "$status" -eq 0 ] && echo "ok: stock aiortc against zq echo through zq signal, both directions"
exit "$status"
