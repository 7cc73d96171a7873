#!/bin/sh
# `zq signal` killed (SIGKILL: no close frame, as a crash or a reboot) and started again on the
# same port: the room's members reconnect with backoff, and the room forms again, so a new
# member meets them and a subscriber gets what is published after. Issue #20, section 5.
# Usage: signal_restart.sh path/to/zq, where only loopback is up (`unshare -n`). Timeouts here
# only stop a hung run; nothing asserts on time.
set -u
zq=${1:?usage: signal_restart.sh path/to/zq}
out=$(mktemp -d)
pids=
signal_pid=
fail() {
    echo "FAIL: $*" >&2
    for f in "$out"/*; do [ -s "$f" ] && { echo "--- $f" >&2; cat "$f" >&2; }; done
    kill $pids $signal_pid 2>/dev/null
    rm -rf "$out"
    exit 1
}
ok() { echo "ok: $*"; }
spawn() {
    name=$1
    shift
    "$zq" "$@" >"$out/$name.out" 2>"$out/$name.err" &
    pids="$pids $!"
}
wait_for() { # file pattern [count]: up to 20 s for count lines matching pattern
    for _ in $(seq 200); do
        [ "$(grep -c "$2" "$1" 2>/dev/null)" -ge "${3:-1}" ] && return 0
        sleep 0.1
    done
    return 1
}
start_signal() { # listen address; appends to signal.out/err
    "$zq" signal --listen "$1" >>"$out/signal.out" 2>>"$out/signal.err" &
    signal_pid=$!
}

start_signal 127.0.0.1:0
wait_for "$out/signal.out" "listening on" || fail "zq signal did not start"
port=$(sed -n 's|^zq signal: listening on http://127.0.0.1:\([0-9]*\) .*|\1|p' "$out/signal.out")
url="ws://127.0.0.1:$port/ws"
room=restart
# The room holds rep and sub: each pub waits for both (--wait-peers 2), or its QoS 1 publish
# can be over, acked by nobody subscribed, before sub is dialed.

spawn rep rep echo --exec cat --signal "$url" --room "$room"
spawn sub sub t --signal "$url" --room "$room"
wait_for "$out/signal.err" "joined room \"$room\"" 2 || fail "the members never joined"
got=$(timeout 30 "$zq" req echo before --signal "$url" --room "$room" 2>"$out/req1.err")
[ "$got" = before ] || fail "before the restart: req got '$got'"
timeout 30 "$zq" pub t one --qos 1 --wait-peers 2 --signal "$url" --room "$room" 2>"$out/pub1.err" ||
    fail "before the restart: pub exited $?"
wait_for "$out/sub.out" "^t one$" || fail "before the restart: sub did not print 't one'"
ok "before the restart: a request answered, a QoS 1 message delivered"

kill -9 "$signal_pid"
wait "$signal_pid" 2>/dev/null
wait_for "$out/rep.err" "signalling closed (1006" || fail "rep did not see the server go"
wait_for "$out/sub.err" "signalling closed (1006" || fail "sub did not see the server go"
# Down long enough for a few retries, each refused and each followed by a longer wait.
wait_for "$out/rep.err" "next try in" 2 || fail "rep did not retry while the server was away"
ok "the server killed: both members see 1006 and retry ($(grep -c 'next try in' "$out/rep.err") tries by rep so far)"

: >"$out/signal.out"
start_signal "127.0.0.1:$port"
wait_for "$out/signal.out" "listening on" || fail "zq signal did not start again on port $port"
wait_for "$out/rep.err" "signalling reconnected" || fail "rep did not reconnect"
wait_for "$out/sub.err" "signalling reconnected" || fail "sub did not reconnect"
ok "the server back on port $port: both members reconnected"

got=$(timeout 30 "$zq" req echo after --signal "$url" --room "$room" 2>"$out/req2.err")
[ "$got" = after ] || fail "after the restart: a new member's req got '$got'"
timeout 30 "$zq" pub t two --qos 1 --wait-peers 2 --signal "$url" --room "$room" 2>"$out/pub2.err" ||
    fail "after the restart: pub exited $?"
wait_for "$out/sub.out" "^t two$" || fail "after the restart: sub did not print 't two'"
sleep 1
[ "$(grep -c '^t two$' "$out/sub.out")" -eq 1 ] || fail "'t two' printed more than once"
[ "$(grep -c '^t one$' "$out/sub.out")" -eq 1 ] || fail "'t one' printed again after the restart"
ok "the room formed again: a new member's request answered, a QoS 1 message delivered once"

kill $pids "$signal_pid" 2>/dev/null
wait 2>/dev/null
rm -rf "$out"
