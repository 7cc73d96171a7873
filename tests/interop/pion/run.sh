#!/bin/sh
# Pion (Go, Debian golang-github-pion-webrtc.v3-dev 3.1.56) against `zq echo`, through
# `zq signal`, over real UDP on 127.0.0.1. Two runs, each with its own room and its own `zq echo`:
#
#   zq-dials     zq echo joins first; Pion joins, zq hears peer_joined and sends the offer
#   pion-dials   Pion joins first; zq echo joins, Pion sends its offer, zq answers (full ICE, a=setup:active)
#
# `pion_peer echo` (live.go) does the checks and prints them. Usage: run.sh path/to/zq [OUT_DIR]
# builds pion_peer into OUT_DIR (default: pion/ beside zq) with build.sh when it is missing or
# older than its sources. It runs where only loopback is up, and makes such a place
# (unshare -n) when it is not in one. See README.md.
set -u
zq=${1:?usage: run.sh path/to/zq [OUT_DIR]}
here=$(cd "$(dirname "$0")" && pwd)
zq_abs=$(cd "$(dirname "$zq")" && pwd)/$(basename "$zq")
pion_dir=${2:-$(dirname "$zq_abs")/pion}

. "$here/../../support/echo_env.sh"
echo_env_netns PION "$here/run.sh" "$zq_abs" "$pion_dir"

# pion_peer: built once (go's cache makes a rebuild of unchanged sources quick anyway).
pion=$pion_dir/pion_peer
if [ ! -x "$pion" ] || [ -n "$(find "$here" -maxdepth 1 \( -name '*.go' -o -name build.sh \) \
        -newer "$pion")" ]; then
    t0=$(date +%s)
    sh "$here/build.sh" "$pion_dir" || { echo "FAIL: pion_peer did not build" >&2; exit 1; }
    echo "built $pion in $(($(date +%s) - t0)) s"
fi

echo_env_start "$zq_abs" "Pion against zq echo"

pion_echo() { # name mode [options]: runs pion_peer echo in the background
    name=$1; mode=$2; shift 2
    # Worst case 30 + 2 x 15 s (a stuck channel skips the rest): two runs fit CTest's 300 s.
    timeout 120 "$pion" echo -signal "$url" -room "$name" -mode "$mode" \
        -timeout 30s -message-timeout 15s "$@" \
        >"$out/$name.pion.out" 2>"$out/$name.pion.err" &
    pion_pid=$!
}

# zq-dials: zq echo is in the room first, so it dials Pion.
start_echo zq-dials
if wait_for "$out/zq-dials.echo.err" "in room 'zq-dials'"; then
    pion_echo zq-dials zq-dials ${ZQ_PION_OPTIONS:-}
    finish_run zq-dials "$pion_pid" pion "pion_peer echo"
else
    echo "FAIL: zq-dials: zq echo did not join its room" >&2
    stop "$echo_pid"; pids=; status=1
fi

# pion-dials: Pion is in the room first.
pion_echo pion-dials pion-dials ${ZQ_PION_OPTIONS:-}
if wait_for "$out/pion-dials.pion.out" '^pion: joined'; then
    start_echo pion-dials
    finish_run pion-dials "$pion_pid" pion "pion_peer echo"
else
    echo "FAIL: pion-dials: Pion did not join its room" >&2
    stop "$pion_pid"; status=1
fi

[ "$status" -eq 0 ] && echo "ok: Pion against zq echo through zq signal, both directions"
exit "$status"
