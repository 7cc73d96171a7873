#!/bin/sh
# Two `zq echo` processes meet through `zq signal` on loopback (no browser): the second one
# probes the first 200 times and exits when all came back. Also checks `zq echo`'s exit codes
# for a bad URL, an unreachable server and --help. Usage: echo_pair.sh path/to/zq. Run it where
# only loopback is up (`unshare -n`): the echo nodes gather candidates on every interface.
set -u
zq=${1:?usage: echo_pair.sh path/to/zq}
out=$(mktemp -d)
pids=
fail() {
    echo "FAIL: $*" >&2
    for f in "$out"/*; do [ -s "$f" ] && { echo "--- $f" >&2; cat "$f" >&2; }; done
    [ -n "$pids" ] && kill $pids 2>/dev/null
    rm -rf "$out"
    exit 1
}

# Exit codes first: a usage error is 2, an unreachable server 1, --help 0.
"$zq" echo --help >"$out/help" 2>&1 || fail "zq echo --help exited $?"
grep -q '^usage: zq echo' "$out/help" || fail "no usage line in --help"
"$zq" echo --signal 'http://x' 2>"$out/badurl.err"
[ $? -eq 2 ] || fail "a non-ws URL must be a usage error (2)"
"$zq" echo --signal ws://127.0.0.1:1/ws 2>"$out/unreachable.err"
[ $? -eq 1 ] || fail "an unreachable server must exit 1"
grep -q 'cannot reach ws://127.0.0.1:1/ws: connection refused' "$out/unreachable.err" ||
    fail "unclear message for an unreachable server: $(cat "$out/unreachable.err")"

# The server on a port the kernel picks; its first line says which.
"$zq" signal --listen 127.0.0.1:0 >"$out/signal.out" 2>"$out/signal.err" &
pids=$!
for _ in $(seq 50); do
    port=$(sed -n 's|^zq signal: listening on http://127.0.0.1:\([0-9]*\) .*|\1|p' "$out/signal.out" 2>/dev/null)
    [ -n "$port" ] && break
    sleep 0.1
done
[ -n "$port" ] || fail "zq signal did not say where it listens"
url="ws://127.0.0.1:$port/ws"

"$zq" echo --signal "$url" --room pair >"$out/echo1.out" 2>"$out/echo1.err" &
pids="$pids $!"
for _ in $(seq 50); do
    grep -q "in room 'pair'" "$out/echo1.err" && break
    sleep 0.1
done
timeout 60 "$zq" echo --signal "$url" --room pair --probe 200 --once \
    >"$out/echo2.out" 2>"$out/echo2.err" || fail "the probing echo exited $?"
grep -q '^probe [A-Za-z0-9_-]*: 200 of 200 back, rtt min/avg/max [0-9]*/[0-9]*/[0-9]* ms$' \
    "$out/echo2.out" || fail "unexpected probe report: $(cat "$out/echo2.out")"
cat "$out/echo2.out"
grep -h 'connected in ' "$out/echo1.err" "$out/echo2.err"

kill $pids
wait
grep -q 'echoed 200 messages' "$out/echo1.err" || fail "the first echo did not echo 200 messages"
rm -rf "$out"
echo "ok: two zq echo processes connected through zq signal; 200 probes round-tripped"
