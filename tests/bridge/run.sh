#!/bin/sh
# `zq bridge` (the zq-bridge program) against Debian's mosquitto, with the demo's devices in the
# room and mosquitto's own clients on the MQTT side, in a network namespace of its own:
#
#   run.sh ZQ [5|3.1.1] [tls]
#
# With tls, mosquitto takes MQTT over TLS only (port 8883, a throwaway root from
# tests/support/test_ca.sh), the bridge dials mqtts:// with --cafile, mosquitto's own clients
# use TLS too, and check 0 first sees a bridge that trusts another root refused.
#
# Checked (PASS/FAIL lines; times are printed, never asserted):
#   1. mosquitto_sub sees the sensor's telemetry, zq/lab/sensors/kitchen, as JSON;
#   2. mosquitto_pub -q 1 zq/lab/cmd/led on switches the actuator: its QoS 1 report
#      zq/lab/actuators/lamp/led says {"on":true}, and it is retained (a later subscriber gets it);
#   3. (MQTT 5) mosquitto_rr on zq/lab/rpc/status gets a device's status on its response topic;
#   (4 and 5 in MQTT 5 only. 3.1.1 has no No Local: the bridge's own messages come back, and
#   it tells them by a window of what it sent; a restarted bridge has an empty window, and the
#   session's redelivered echoes re-enter the room. README, Deployment, "3.1.1".)
#   4. QoS 1 from the room to MQTT: `zq pub --qos 1` sends 1..N while the bridge is SIGKILLed
#      and restarted (same --state) and then mosquitto is stopped and restarted (its
#      persistence); a persistent mosquitto_sub -q 1 gets every number (duplicates counted);
#   5. QoS 1 from MQTT to the room: mosquitto_pub -q 1 sends 1..N through the same kills; a
#      `zq sub` in the room prints every number (duplicates counted);
#   6. the bridge's counts at its stop: no QoS 1 refused, nothing dropped but as said;
#   7. a burst of 1,000 QoS 1 messages from one mosquitto_pub -l, more at once than the bridge
#      holds (it stops reading the socket until PUBACKs make room): all reach a zq sub.
# mosquitto is stopped with SIGTERM, not SIGKILL: mosquitto 2.0 acknowledges a QoS 1 message
# before it writes it to disk (autosave), so what a SIGKILLed mosquitto had acked is its loss,
# not the bridge's; the bridge itself is SIGKILLed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
zq=$1
version=${2:-5}
tls=${3:-}
. "$here/../support/echo_env.sh"
echo_env_netns BRIDGE "$0" "$@"
echo_env_start "$zq" "zq bridge (MQTT $version${tls:+ over TLS}) against mosquitto"
N=${ZQ_BRIDGE_MESSAGES:-300}
room=lab

fail() { echo "FAIL $*"; status=1; }
pass() { echo "PASS $*"; }
now_ms() { date +%s%3N; }

# ---- mosquitto, with persistence in $out/mosquitto -------------------------------------------
# Started as root, mosquitto runs as the user mosquitto: its directory must be one it can write.
chmod 755 "$out"
mkdir -p "$out/mosquitto" && chmod 777 "$out/mosquitto"
# $mq: how mosquitto's clients reach it (word-split on purpose); $mqtt_url and $cafile: the
# bridge.
if [ -n "$tls" ]; then
    . "$here/../support/test_ca.sh"
    mkdir -p "$out/certs" && test_ca_make "$out/certs" || { fail "openssl: no certificates"; exit; }
    chmod 644 "$out/certs/leaf.key" # mosquitto reads it as its own user
    mqtt_port=8883
    chmod 644 "$out/certs/client.key"
    c=$out/certs
    mq="-h 127.0.0.1 -p 8883 --cafile $c/ca.pem --cert $c/client.pem --key $c/client.key"
    mqtt_url=mqtts://127.0.0.1
    # require_certificate: every client shows a certificate ca.pem signed, the bridge too
    listener="listener 8883 127.0.0.1
cafile $c/ca.pem
certfile $c/leaf.pem
keyfile $c/leaf.key
require_certificate true"
else
    mqtt_port=1883
    mq="-h 127.0.0.1"
    mqtt_url=mqtt://127.0.0.1
    listener="listener 1883 127.0.0.1"
fi
cat >"$out/mosquitto.conf" <<EOF
$listener
allow_anonymous true
persistence true
persistence_location $out/mosquitto/
autosave_interval 1
log_type all
# mosquitto's default (1000) drops QoS 1 messages queued beyond it for a slow client: the burst
# below must measure the bridge, not that limit.
max_queued_messages 0
EOF
start_mosquitto() {
    mosquitto -c "$out/mosquitto.conf" >>"$out/mosquitto.out" 2>&1 &
    mosquitto_pid=$!
    for _ in $(seq 50); do
        mosquitto_sub $mq -t probe -W 1 -C 1 -E >/dev/null 2>&1 && return 0
        sleep 0.1
    done
    fail "mosquitto did not start"
    exit
}
start_mosquitto

# ---- 0. (TLS) a bridge that trusts another root, and one with no certificate, are refused -----
if [ -n "$tls" ]; then
    "$zq" bridge --mqtt "$mqtt_url" --cafile "$c/other-ca.pem" --cert "$c/client.pem" \
        --key "$c/client.key" --signal "$url" --room stranger \
        >"$out/stranger.out" 2>"$out/stranger.err" &
    stranger_pid=$!
    "$zq" bridge --mqtt "$mqtt_url" --cafile "$c/ca.pem" --signal "$url" --room anonymous \
        >"$out/anonymous.out" 2>"$out/anonymous.err" &
    anonymous_pid=$!
    if wait_for "$out/stranger.err" "TLS: the server's certificate was refused"; then
        pass "a bridge trusting another root is refused: $(grep -m1 "TLS" "$out/stranger.err")"
    else
        fail "a bridge trusting another root was not refused"
    fi
    if wait_for "$out/anonymous.err" "MQTT 127.0.0.1:8883: .*TLS"; then
        pass "a bridge with no client certificate is refused: $(grep -m1 "TLS" "$out/anonymous.err")"
    else
        fail "a bridge with no client certificate was not refused"
    fi
    stop "$stranger_pid" "$anonymous_pid"
    grep -q "connected (session" "$out/stranger.err" "$out/anonymous.err" &&
        fail "one of them reached mosquitto"
fi

# ---- the room: the bridge, a sensor, an actuator ------------------------------------------------
start_bridge() {
    # shellcheck disable=SC2086 # ${tls:+...}: two words, or none
    "$zq" bridge --mqtt "$mqtt_url" ${tls:+--cafile "$c/ca.pem" --cert "$c/client.pem" --key "$c/client.key"} \
        --mqtt-version "$version" --signal "$url" \
        --room "$room" --state "$out/state" --verbose >>"$out/bridge.out" 2>>"$out/bridge.err" &
    bridge_pid=$!
}
start_bridge
"$zq" device sensor --name kitchen --period 200 --signal "$url" --room "$room" \
    >"$out/sensor.out" 2>"$out/sensor.err" &
pids="$pids $!"
"$zq" device actuator --name lamp --signal "$url" --room "$room" \
    >"$out/actuator.out" 2>"$out/actuator.err" &
pids="$pids $!"
wait_for "$out/bridge.err" "MQTT 127.0.0.1:$mqtt_port connected" || fail "the bridge never reached mosquitto"

# ---- 1. telemetry -----------------------------------------------------------------------------
if mosquitto_sub $mq -t "zq/$room/sensors/#" -v -C 3 -W 15 >"$out/telemetry.out" 2>&1 &&
    grep -q "^zq/$room/sensors/kitchen {\"temperature\":" "$out/telemetry.out"; then
    pass "mosquitto_sub sees the sensor's telemetry ($(head -1 "$out/telemetry.out"))"
else
    fail "no telemetry on zq/$room/sensors/#"
fi

# ---- 2. the actuator from MQTT --------------------------------------------------------------------
mosquitto_sub $mq -t "zq/$room/actuators/lamp/led" -v -W 15 >"$out/led.out" 2>&1 &
led_sub=$!
sleep 0.5
t0=$(now_ms)
mosquitto_pub $mq -q 1 -t "zq/$room/cmd/led" -m on
if wait_for "$out/led.out" '{"on":true}'; then
    pass "mosquitto_pub cmd/led on switched the actuator: its report came back in $(($(now_ms) - t0)) ms"
else
    fail "the actuator never reported on (led: $(cat "$out/led.out"))"
fi
stop "$led_sub"
if mosquitto_sub $mq -t "zq/$room/actuators/lamp/led" -C 1 -W 5 -R >/dev/null 2>&1; then
    fail "the report is not retained (a new subscriber got only a fresh one)"
elif mosquitto_sub $mq -t "zq/$room/actuators/lamp/led" -C 1 -W 5 2>/dev/null |
    grep -q '{"on":true}'; then
    pass "the report is retained: a later subscriber gets {\"on\":true} at once"
else
    fail "no retained report for a later subscriber"
fi

# ---- 3. a request from MQTT 5 -------------------------------------------------------------------
if [ "$version" = 5 ]; then
    if mosquitto_rr $mq -t "zq/$room/rpc/status" -e "reply/$room" -m '{}' -W 10 \
        >"$out/rr.out" 2>&1 && grep -q '"name":' "$out/rr.out"; then
        pass "mosquitto_rr zq/$room/rpc/status got $(cat "$out/rr.out")"
    else
        fail "no status reply to mosquitto_rr: $(cat "$out/rr.out")"
    fi
fi

# ---- 4 and 5. QoS 1 both ways through a bridge SIGKILL and a mosquitto restart -------------------
kills() {
mosquitto_sub $mq -q 1 -c -i "sink-$room" -t "zq/$room/seq/out" >"$out/sink.out" \
    2>"$out/sink.err" &
sink_pid=$!
"$zq" sub 'seq.in' --signal "$url" --room "$room" >"$out/zqsub.out" 2>"$out/zqsub.err" &
zqsub_pid=$!
sleep 2
# The room's publisher: one number every 20 ms, QoS 1, once its 4 peers are there (the
# sensor, the actuator, zq sub and the bridge: the bridge is then a receiver from the first).
(for i in $(seq "$N"); do echo "$i"; sleep 0.02; done) |
    "$zq" pub seq.out - --qos 1 --wait-peers 4 --signal "$url" --room "$room" >"$out/zqpub.out" \
        2>"$out/zqpub.err" &
zqpub_pid=$!
# MQTT's publisher: each message acked by mosquitto before the next; retried while it is down.
(for i in $(seq "$N"); do
    until mosquitto_pub $mq -q 1 -t "zq/$room/seq/in" -m "$i" 2>/dev/null; do
        sleep 0.2
    done
    sleep 0.02
done) &
mqttpub_pid=$!
sleep 2
kill -9 "$bridge_pid"
wait "$bridge_pid" 2>/dev/null
echo "     bridge SIGKILLed with both streams running; restarted 1 s later"
sleep 1
start_bridge
sleep 3
stop "$mosquitto_pid"
echo "     mosquitto stopped (SIGTERM) with both streams running; restarted 1 s later"
sleep 1
start_mosquitto
for _ in $(seq 600); do
    kill -0 "$zqpub_pid" 2>/dev/null || kill -0 "$mqttpub_pid" 2>/dev/null || break
    sleep 0.1
done
wait "$zqpub_pid"
zqpub_status=$?
wait "$mqttpub_pid" 2>/dev/null
# Everything sent: give the last ones a moment through both hops.
for _ in $(seq 100); do
    [ "$(sort -un "$out/sink.out" | wc -l)" -ge "$N" ] &&
        [ "$(sed -n 's/^seq.in //p' "$out/zqsub.out" | sort -un | wc -l)" -ge "$N" ] && break
    sleep 0.1
done

count_all() { # file: numbers 1..N present, lines in all
    missing=0
    for i in $(seq "$N"); do grep -qx "$i" "$1" || missing=$((missing + 1)); done
    echo "$missing $(wc -l <"$1")"
}
sed -n 's/^seq.in //p' "$out/zqsub.out" >"$out/zqsub.numbers"
set -- $(count_all "$out/sink.out")
if [ "$zqpub_status" -eq 0 ] && [ "$1" -eq 0 ]; then
    pass "room -> MQTT, QoS 1: all $N numbers reached mosquitto_sub through both kills ($(($2 - N)) duplicates)"
else
    fail "room -> MQTT: $1 of $N numbers missing (zq pub exit $zqpub_status, $2 lines)"
fi
set -- $(count_all "$out/zqsub.numbers")
if [ "$1" -eq 0 ]; then
    pass "MQTT -> room, QoS 1: all $N numbers reached zq sub through both kills ($(($2 - N)) duplicates)"
else
    fail "MQTT -> room: $1 of $N numbers missing ($2 lines)"
fi
stop "$sink_pid" "$zqsub_pid"
}
[ "$version" = 5 ] && kills

# ---- 7. a burst from MQTT: more at once than the bridge holds ------------------------------------
# One mosquitto_pub -l, as fast as mosquitto takes them: the broker runs far ahead of the room's
# acks, the bridge holds 32 and stops reading the socket until PUBACKs make room (a pause that
# was once taken for a failed connection, and looped).
"$zq" sub 'burst.in' --signal "$url" --room "$room" >"$out/burst.out" 2>"$out/burst.err" &
burst_pid=$!
sleep 2
t0=$(now_ms)
seq 1000 | mosquitto_pub $mq -q 1 -t "zq/$room/burst/in" -l
for _ in $(seq 600); do
    [ "$(wc -l <"$out/burst.out")" -ge 1000 ] && break
    sleep 0.1
done
got=$(sed -n 's/^burst.in //p' "$out/burst.out" | sort -un | wc -l)
if [ "$got" -eq 1000 ]; then
    pass "a burst of 1,000 QoS 1 messages from one mosquitto_pub -l reached the room whole in $(($(now_ms) - t0)) ms"
else
    fail "burst: $got of 1000 reached the room"
fi
stop "$burst_pid"

# ---- 6. the bridge's own counts -----------------------------------------------------------------
stop "$bridge_pid"
counts=$(grep "zq bridge: to MQTT" "$out/bridge.err" | tail -1)
echo "     $counts"
case "$counts" in
*"refused 0)"*"topics 0, binary 0"*) pass "the bridge stopped cleanly: nothing refused, nothing dropped unsaid" ;;
*) fail "the bridge's counts: $counts" ;;
esac
if [ "$version" = 3.1.1 ]; then
    # No No Local in 3.1.1: everything the bridge published came back to it.
    echoes=$(echo "$counts" | sed -n 's/.*echoes \([0-9]*\),.*/\1/p')
    from=$(echo "$counts" | sed -n 's/.* from MQTT \([0-9]*\) .*/\1/p')
    if [ "${echoes:-0}" -gt 0 ] && [ "$from" = 1001 ]; then
        pass "3.1.1: the bridge's $echoes own messages back from MQTT were dropped as echoes; only cmd/led and the burst came into the room"
    else
        fail "3.1.1 echoes: $echoes dropped, $from messages from MQTT into the room (1001 expected: cmd/led and the burst)"
    fi
fi
stop "$mosquitto_pid"
