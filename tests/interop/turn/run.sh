#!/bin/sh
# zq's TURN client (stack/turn) against Debian's coturn, in a network namespace of its own:
# coturn on 127.0.0.1:3478 with long-term credentials (RFC 8489 §9.2), a 10 s allocation
# lifetime and 4 s nonces, so refreshes and 438 Stale Nonce happen within the run; the peer is
# a socket on 127.0.0.2 (coturn relays to loopback peers only when told to).
#
# Then the TURN REST API convention end to end: a second coturn checks credentials against a
# shared secret (use-auth-secret), `zq signal --turn-secret` hands them to a member as it joins
# (a Python WebSocket client, python3-websockets), and the probe allocates with them.
#
#   run.sh TURN_PROBE ZQ
set -u
probe=$1
zq=$2
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
# ---- TURN REST credentials from zq signal --------------------------------------------------
printf 'rest secret shared with coturn\n' >"$out/turn.secret"
turnserver -n --listening-ip=127.0.0.1 --listening-port=3479 --relay-ip=127.0.0.1 \
    --min-port=49301 --max-port=49400 --use-auth-secret \
    --static-auth-secret="rest secret shared with coturn" --realm=zq.test \
    --allow-loopback-peers --no-tls --no-dtls --no-tcp --no-cli --no-multicast-peers \
    --simple-log --log-file=stdout --pidfile="$out/turnserver2.pid" --userdb="$out/turndb2" \
    >"$out/coturn-rest.out" 2>&1 &
coturn_rest=$!
"$zq" signal --listen 127.0.0.1:0 --turn-secret "$out/turn.secret" \
    --turn-url turn:127.0.0.1:3479 --turn-ttl 600 >"$out/signal.out" 2>"$out/signal.err" &
signal=$!
port=
for _ in $(seq 100); do
    port=$(sed -n 's|^zq signal: listening on http://127.0.0.1:\([0-9]*\) .*|\1|p' "$out/signal.out")
    [ -n "$port" ] && break
    sleep 0.1
done
sleep 0.3
/usr/bin/python3 - "ws://127.0.0.1:$port/ws" >"$out/creds" 2>"$out/creds.err" <<'PY'
import asyncio, json, sys, websockets
async def main():
    async with websockets.connect(sys.argv[1]) as ws:
        await ws.send(json.dumps({"type": "join", "topicId": "rest"}))
        while True:
            m = json.loads(await ws.recv())
            if m.get("type") == "ice_servers":
                s = m["iceServers"][0]
                print(s["urls"][0], s["username"], s["credential"])
                return
asyncio.run(asyncio.wait_for(main(), 10))
PY
read -r url user credential <"$out/creds"
if [ "$url" = "turn:127.0.0.1:3479" ] &&
    "$probe" 127.0.0.1:3479 "$user" "$credential" 127.0.0.2 no-refresh >"$out/rest.out" 2>&1; then
    echo "ok: zq signal's TURN REST credential ($user) opens coturn's use-auth-secret:"
    sed 's/^/  /' "$out/rest.out"
else
    echo "FAIL: zq signal's TURN REST credential against coturn (got '$url' '$user')" >&2
    cat "$out/creds.err" "$out/rest.out" "$out/signal.err" >&2
    grep -v "^0: : \(IO method\|relay \)" "$out/coturn-rest.out" | tail -n 30 >&2
    status=1
fi
kill "$signal" "$coturn_rest" "$coturn" 2>/dev/null
wait "$signal" "$coturn_rest" "$coturn" 2>/dev/null
if [ "$status" -ne 0 ]; then
    echo "--- coturn" >&2
    grep -v "^0: : \(IO method\|relay \)" "$out/coturn.out" | tail -n 40 >&2
    echo "FAIL: zq's TURN client against coturn" >&2
else
    echo "ok: zq's TURN client against coturn $(turnserver --version 2>/dev/null | head -n1)"
fi
rm -rf "$out"
exit "$status"
