#!/bin/sh
# `zq demo` end to end: it starts, the devices answer what the dashboard would ask (telemetry
# on sensors.#, the status service, a job, an LED command), `--duration` ends it with exit 0,
# and no process is left behind. Usage: demo.sh path/to/zq. Run it where only loopback is up.
set -u
zq=${1:?usage: demo.sh path/to/zq}
out=$(mktemp -d)
addr=127.0.0.1:18080
url=ws://$addr/ws
fail() {
    echo "FAIL: $*" >&2
    for f in "$out"/*; do [ -s "$f" ] && { echo "--- $f" >&2; cat "$f" >&2; }; done
    pkill -P $$ 2>/dev/null
    rm -rf "$out"
    exit 1
}

"$zq" demo --help >"$out/help" || fail "zq demo --help exited $?"
"$zq" demo --web /nonexistent >/dev/null 2>&1
[ $? -eq 2 ] || fail "a missing --web directory must be a usage error"

"$zq" demo --listen "$addr" --duration 20 >"$out/demo.out" 2>"$out/demo.err" &
demo=$!
for _ in $(seq 50); do
    grep -q "dashboard at http://$addr/" "$out/demo.out" 2>/dev/null && break
    sleep 0.1
done
grep -q "dashboard at http://$addr/" "$out/demo.out" || fail "zq demo printed no URL"

timeout 10 "$zq" sub 'sensors.#' --count 3 --signal "$url" >"$out/sub" 2>"$out/sub.err" ||
    fail "no telemetry"
[ "$(grep -c '^sensors.sensor-1 {"temperature":[0-9.]*,"humidity":[0-9.]*,"uptime":[0-9]*}$' \
     "$out/sub")" -eq 3 ] || fail "unexpected telemetry"
timeout 10 "$zq" req status '{}' --signal "$url" >"$out/status" 2>"$out/status.err" ||
    fail "no status reply"
grep -q '"name":"' "$out/status" || fail "unexpected status reply"
timeout 10 "$zq" put jobs '{"resize":1}' --signal "$url" >"$out/put" 2>"$out/put.err" ||
    fail "the job was not done"
# Two devices are in the room: the pub waits for both (--wait-peers 2), or its QoS 1 publish
# can be over, acked by nobody subscribed, before the actuator is dialed (seen once in CI).
timeout 10 "$zq" pub cmd.led '"on"' --qos 1 --wait-peers 2 --signal "$url" 2>"$out/pub.err" ||
    fail "the LED command was not delivered"
timeout 10 "$zq" sub 'actuators.+.led' --count 1 --signal "$url" >"$out/led" 2>&1 ||
    fail "no LED state (a late subscriber gets the last value)"
grep -q '^actuators.actuator-1.led {"on":true}$' "$out/led" || fail "the LED is not on"

wait "$demo"
rc=$?
[ "$rc" -eq 0 ] || fail "zq demo --duration 20 exited $rc"
if pgrep -f "zq (signal|device) .*$addr" >/dev/null 2>&1; then
    fail "zq demo left a process behind"
fi
cat "$out/sub" "$out/status" "$out/led"
rm -rf "$out"
echo "ok: zq demo ran 20 s: telemetry, status, a job, an LED command; exit 0, nothing left"
