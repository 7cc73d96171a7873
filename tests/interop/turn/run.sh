#!/bin/sh
# zq's TURN client (stack/turn) against Debian's coturn, in a network namespace of its own:
# coturn on 127.0.0.1:3478 with long-term credentials (RFC 8489 §9.2), a 10 s allocation
# lifetime and 4 s nonces, so refreshes and 438 Stale Nonce happen within the run; the peer is
# a socket on 127.0.0.2 (coturn relays to loopback peers only when told to).
#
#   run.sh TURN_PROBE
set -u
probe=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../support/echo_env.sh"
echo_env_netns TURN "$0" "$@"
out=$(mktemp -d)
status=0
turnserver -n --listening-ip=127.0.0.1 --listening-port=3478 --relay-ip=127.0.0.1 \
    --min-port=49152 --max-port=49300 --lt-cred-mech --user=zq:correct-horse --realm=zq.test \
    --allow-loopback-peers --no-tls --no-dtls --no-tcp --no-cli --no-multicast-peers \
    --max-allocate-lifetime=10 --stale-nonce=4 --simple-log --log-file=stdout \
    --pidfile="$out/turnserver.pid" --userdb="$out/turndb" >"$out/coturn.out" 2>&1 &
coturn=$!
for _ in $(seq 50); do
    grep -q "listener opened on : 127.0.0.1:3478\|IPv4. UDP listener opened" "$out/coturn.out" \
        2>/dev/null && break
    sleep 0.1
done
sleep 0.3
if ! "$probe" 127.0.0.1:3478 zq correct-horse 127.0.0.2 >"$out/probe.out" 2>&1; then
    status=1
fi
cat "$out/probe.out"
if "$probe" 127.0.0.1:3478 zq wrong-password 127.0.0.2 expect-failure 401 >"$out/wrong.out" 2>&1; then
    echo "ok: a wrong password: $(cat "$out/wrong.out")"
else
    cat "$out/wrong.out"
    status=1
fi
kill "$coturn" 2>/dev/null
wait "$coturn" 2>/dev/null
if [ "$status" -ne 0 ]; then
    echo "--- coturn" >&2
    grep -v "^0: : \(IO method\|relay \)" "$out/coturn.out" | tail -n 40 >&2
    echo "FAIL: zq's TURN client against coturn" >&2
else
    echo "ok: zq's TURN client against coturn $(turnserver --version 2>/dev/null | head -n1)"
fi
rm -rf "$out"
exit "$status"
