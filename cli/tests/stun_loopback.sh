#!/bin/sh
# `zq stun` against `zq stun --serve` on loopback, plus the program's exit codes.
# Usage: stun_loopback.sh path/to/zq. Binds fixed ports 34780-34781 on 127.0.0.1 (and ::1 when
# the host has it): run it where nothing else holds them, e.g. inside `unshare -n`.
set -u
zq=${1:?usage: stun_loopback.sh path/to/zq}
out=$(mktemp -d)
server_pid=
fail() {
    echo "FAIL: $*" >&2
    for f in "$out"/*; do [ -s "$f" ] && { echo "--- $f" >&2; cat "$f" >&2; }; done
    [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null
    rm -rf "$out"
    exit 1
}

# IPv6 loopback present? (/proc/net/if_inet6 lists ::1 as 32 hex digits ending in 1.)
have_v6=false
grep -q '^00000000000000000000000000000001 ' /proc/net/if_inet6 2>/dev/null && have_v6=true

set -- --listen 127.0.0.1:34780
$have_v6 && set -- "$@" --listen '[::1]:34780'
"$zq" stun --serve "$@" >"$out/server.out" 2>"$out/server.err" &
server_pid=$!

# No need to wait for the server: a request sent too early is simply retransmitted.
"$zq" stun --server 127.0.0.1:34780 --timeout 5000 >"$out/v4.out" 2>"$out/v4.err" ||
    fail "client (IPv4) exited $?"
grep -q '^xor-mapped-address 127\.0\.0\.1:[0-9][0-9]* rtt [0-9][0-9]* ms requests [1-7]$' \
    "$out/v4.out" || fail "unexpected IPv4 output: $(cat "$out/v4.out")"
answered=1

if $have_v6; then
    "$zq" stun --server '[::1]:34780' --timeout 5000 >"$out/v6.out" 2>"$out/v6.err" ||
        fail "client (IPv6) exited $?"
    grep -q '^xor-mapped-address \[::1\]:[0-9]' "$out/v6.out" ||
        fail "unexpected IPv6 output: $(cat "$out/v6.out")"
    answered=2
else
    echo "note: no ::1 here, IPv6 part skipped"
fi

# --bind picks the source: the server reports exactly that address back.
"$zq" stun --server 127.0.0.1:34780 --bind 127.0.0.1:34781 --timeout 5000 >"$out/bind.out" \
    2>"$out/bind.err" || fail "client with --bind exited $?"
grep -q '^xor-mapped-address 127\.0\.0\.1:34781 ' "$out/bind.out" ||
    fail "--bind not honoured: $(cat "$out/bind.out")"
answered=$((answered + 1))

kill -TERM "$server_pid"
wait "$server_pid"
rc=$?
server_pid=
[ "$rc" -eq 0 ] || fail "server exited $rc after SIGTERM"
grep -q "^serving STUN on 127\.0\.0\.1:34780\$" "$out/server.out" || fail "no serving line"
grep -q "^answered $answered requests" "$out/server.out" ||
    fail "server did not count $answered answers: $(tail -1 "$out/server.out")"

# Nobody on 34781 now: a one-line error and exit status 1, within the timeout.
"$zq" stun --server 127.0.0.1:34781 --timeout 700 >"$out/none.out" 2>"$out/none.err"
rc=$?
[ "$rc" -eq 1 ] || fail "no-server client exited $rc, want 1"
[ "$(wc -l <"$out/none.err")" -eq 1 ] || fail "want one line of error"
grep -q 'no answer from 127.0.0.1:34781' "$out/none.err" || fail "unclear timeout message"

# Usage errors: status 2 and a pointer to the help.
for args in "frobnicate" "stun --frob" "stun --timeout" "stun --timeout -5" \
            "stun --serve --server 127.0.0.1" "stun --listen 127.0.0.1:1" "--nope"; do
    # shellcheck disable=SC2086
    "$zq" $args >/dev/null 2>"$out/usage.err"
    rc=$?
    [ "$rc" -eq 2 ] || fail "'zq $args' exited $rc, want 2"
    grep -q "help" "$out/usage.err" || fail "'zq $args' does not point to --help"
done
for args in "--help" "help" "help stun" "stun --help"; do
    # shellcheck disable=SC2086
    "$zq" $args >"$out/help.out" 2>&1 || fail "'zq $args' failed"
    grep -q "usage: zq" "$out/help.out" || fail "'zq $args' printed no usage"
done

rm -rf "$out"
echo "ok: zq stun against zq stun --serve on loopback"
