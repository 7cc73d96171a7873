# shellcheck shell=sh
# What the run scripts of foreign peers against `zq echo` share (tests/interop/aiortc/run.sh,
# tests/interop/pion/run.sh): a network namespace of their own, `zq signal` on a free port,
# one `zq echo` per room, stopping every process, and every log printed on failure.
#
#   . "$here/../../support/echo_env.sh"
#   echo_env_netns NAME "$0" ARGS...   # re-runs the script in a network namespace of its own
#   echo_env_lan                       # + an interface with 192.0.2.1/24
#   echo_env_udp_loss PERCENT          # drops PERCENT % of UDP datagrams (nftables)
#   echo_env_start "$zq" LABEL         # $out, traps, zq signal: sets $url
#   start_echo ROOM                    # a zq echo in ROOM: $echo_pid
#   wait_for FILE PATTERN              # up to 10 s for a line
#   stop PID...                        # SIGTERM, SIGKILL after 3 s, reaped
#
# The script sets status=1 on a failure; the EXIT trap then prints the logs in $out.

# A private network namespace of the script's own, with only loopback up, so nothing leaves
# the machine and no other test shares its interfaces. NAME marks the second run (so a failed
# unshare cannot loop); the script's own arguments follow.
echo_env_netns() {
    mark=ZQ_${1}_IN_NETNS
    script=$2
    shift 2
    if [ -n "$(eval echo "\${$mark:-}")" ]; then
        [ -z "$(ip -o link | grep -v ' lo:')" ] && return 0
        echo "FAIL: not in a loopback-only network namespace after unshare" >&2
        exit 1
    fi
    flags=-n
    [ "$(id -u)" -eq 0 ] || flags=-rn
    exec env "$mark=1" unshare $flags sh -c 'ip link set lo up && exec sh "$@"' sh "$script" "$@"
}

# A LAN-like interface in that namespace (tests/support/lan.sh): 192.0.2.1/24.
echo_env_lan() {
    . "$(dirname "$0")/../../support/lan.sh"
    lan_up
}

# Drops PERCENT % of the UDP datagrams as they arrive at any socket of the namespace, in both
# directions of every flow (nftables' random numbers; this kernel has no netem). TCP, and so
# signalling, is untouched.
echo_env_udp_loss() {
    nft add table inet zq_loss &&
        nft add chain inet zq_loss in '{ type filter hook input priority 0; }' &&
        nft add rule inet zq_loss in meta l4proto udp numgen random mod 100 '<' "$1" counter drop
}

stop() { # pid...: SIGTERM, then SIGKILL after 3 s; reaps them
    for p in "$@"; do kill "$p" 2>/dev/null; done
    for p in "$@"; do
        for _ in $(seq 30); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$p" 2>/dev/null
        wait "$p" 2>/dev/null
    done
}

wait_for() { # file pattern: up to 10 s for a line matching pattern
    for _ in $(seq 100); do
        grep -q "$2" "$1" 2>/dev/null && return 0
        sleep 0.1
    done
    return 1
}

echo_env_dump_logs() {
    for f in "$out"/*.out "$out"/*.err; do
        [ -s "$f" ] || continue
        echo "--- $(basename "$f")" >&2
        # A peer's DEBUG log is long: its head and tail are what matter.
        if [ "$(wc -l <"$f")" -gt 400 ]; then
            head -n 150 "$f" >&2; echo "[...]" >&2; tail -n 150 "$f" >&2
        else
            cat "$f" >&2
        fi
    done
}

echo_env_finish() {
    stop $pids
    [ -n "$signal_pid" ] && stop "$signal_pid"
    [ -n "${echo_env_cleanup:-}" ] && $echo_env_cleanup
    if [ "$status" -ne 0 ]; then
        echo_env_dump_logs
        echo "FAIL: $echo_env_label (logs above)" >&2
    fi
    if [ -n "${ZQ_KEEP_LOGS:-}" ]; then
        echo "logs kept in $out" >&2
    else
        rm -rf "$out"
    fi
    exit "$status"
}

# zq (absolute path) and a label for the failure line: makes $out, sets the traps, starts
# `zq signal` on a free port and sets $url to its WebSocket.
echo_env_start() {
    zq_bin=$1
    echo_env_label=$2
    out=$(mktemp -d)
    pids=
    status=0
    signal_pid=
    trap echo_env_finish EXIT
    trap 'status=1; exit' INT TERM
    "$zq_bin" signal --listen 127.0.0.1:0 >"$out/signal.out" 2>"$out/signal.err" &
    signal_pid=$!
    port=
    for _ in $(seq 100); do
        port=$(sed -n 's|^zq signal: listening on http://127.0.0.1:\([0-9]*\) .*|\1|p' \
            "$out/signal.out" 2>/dev/null)
        [ -n "$port" ] && break
        sleep 0.1
    done
    [ -n "$port" ] || { echo "FAIL: zq signal did not say where it listens" >&2; status=1; exit; }
    url="ws://127.0.0.1:$port/ws"
}

start_echo() { # room, also the name of its logs
    "$zq_bin" echo --signal "$url" --room "$1" >"$out/$1.echo.out" 2>"$out/$1.echo.err" &
    echo_pid=$!
    pids="$pids $echo_pid"
}

# name peer_pid tag program: waits for the peer program of run `name` (its output in
# $out/name.tag.out), stops that run's zq echo, and reports.
finish_run() {
    wait "$2"
    rc=$?
    stop "$echo_pid"
    pids=
    cat "$out/$1.$3.out"
    if [ "$rc" -ne 0 ]; then
        echo "FAIL: $1: $4 exited $rc" >&2
        status=1
    fi
}
