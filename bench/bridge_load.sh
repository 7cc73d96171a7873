#!/bin/sh
# `zq bridge` under load, beside mosquitto's own clients in the same run, in a network namespace
# of its own with only loopback up (mosquitto, zq signal and the bridge started here, every
# process stopped again on exit):
#
#   (a) room -> MQTT: DEVICES simulated devices in the room (each a `zq pub bench.dNN -`
#       process, QoS 1, then QoS 0) publish MESSAGES lines each as fast as zq lets them; a
#       mosquitto_sub on zq/bench/bench/# counts the arrivals. Beside it, DEVICES concurrent
#       mosquitto_pub -l publish the same lines straight to mosquitto, to a mosquitto_sub of
#       the same kind;
#   (b) MQTT -> room: one mosquitto_pub -q 1 -l sends IN lines on zq/bench/bench/in, which a
#       `zq sub bench.in` in the room prints; beside it the same mosquitto_pub into a
#       mosquitto_sub -q 1;
#   (c) instructions per bridged message: the bridge again, under callgrind, with the same
#       devices; its Ir counted over K messages each way, less its idle rate over the same time.
#
#   bench/bridge_load.sh          (scripts/bench bridge builds zq first, in Release)
#
# Messages/s are first to last arrival at the receiving client, (n - 1) / (t_last - t_first).
# Why the devices join in fours, and what is left as it is, is in bench/README.md.
#
# Environment: ZQ_BENCH_DIR (build-bench: its cli/zq and cli/zq-bridge), ZQ_BENCH_RUNS (3
# rounds of each measurement; the median is shown), ZQ_BENCH_BRIDGE_DEVICES (50),
# ZQ_BENCH_BRIDGE_MESSAGES (200 per device), ZQ_BENCH_BRIDGE_IN (5000),
# ZQ_BENCH_BRIDGE_COUNT (2000: K of (c) each way), ZQ_BENCH_CALLGRIND=0 to skip (c),
# ZQ_BENCH_KEEP=1 to keep the logs (the directory is named on stderr).
# Needs mosquitto and its clients (2.0), perl, valgrind; root or unprivileged user namespaces.
set -eu
self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
cd "$(dirname "$self")/.."
build=${ZQ_BENCH_DIR:-build-bench}
runs=${ZQ_BENCH_RUNS:-3}
devices=${ZQ_BENCH_BRIDGE_DEVICES:-50}
per_device=${ZQ_BENCH_BRIDGE_MESSAGES:-200}
in_messages=${ZQ_BENCH_BRIDGE_IN:-5000}
k_messages=${ZQ_BENCH_BRIDGE_COUNT:-2000}
zq=$build/cli/zq
bridge_bin=$build/cli/zq-bridge
room=bench
payload_bytes=32

if [ "${ZQ_BRIDGE_LOAD_INSIDE:-}" != 1 ]; then
  for tool in mosquitto mosquitto_pub mosquitto_sub perl; do
    command -v "$tool" >/dev/null || { echo "bridge_load: no $tool" >&2; exit 1; }
  done
  [ -x "$bridge_bin" ] || { echo "bridge_load: no $bridge_bin (scripts/bench bridge)" >&2; exit 1; }
  flags=-n
  [ "$(id -u)" -eq 0 ] || flags=-rn
  exec env ZQ_BRIDGE_LOAD_INSIDE=1 unshare "$flags" sh "$self" "$@"
fi

# ---- Inside the namespace ------------------------------------------------------------------
ip link set lo up
tmp=$(mktemp -d "${TMPDIR:-/tmp}/zq-bridge-load.XXXXXX")
chmod 755 "$tmp" # mosquitto, started as root, reads its config as the user mosquitto
pids=""
cleanup() {
  for p in $pids; do kill "$p" 2>/dev/null || true; done
  for p in $pids; do
    for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
      kill -0 "$p" 2>/dev/null || break
      sleep 0.1
    done
    kill -9 "$p" 2>/dev/null || true
    wait "$p" 2>/dev/null || true
  done
  if [ "${ZQ_BENCH_KEEP:-0}" = 1 ]; then echo "bridge_load: logs kept in $tmp" >&2; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

die() {
  echo "bridge_load: $*" >&2
  for f in "$tmp"/*.err; do
    [ -s "$f" ] || continue
    echo "--- $(basename "$f")" >&2
    tail -n 20 "$f" >&2
  done
  exit 1
}

# stop PID...: SIGTERM, SIGKILL after 5 s; each reaped and taken off $pids.
stop() {
  for p in "$@"; do kill "$p" 2>/dev/null || true; done
  for p in "$@"; do
    for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$p" 2>/dev/null || true
    wait "$p" 2>/dev/null || true
    pids=$(echo "$pids" | tr ' ' '\n' | grep -vx "$p" | tr '\n' ' ')
  done
}

now() { date +%s.%N; }
note() { echo "bridge_load: $*" >&2; }

# wait_until SECONDS COMMAND...: polls COMMAND every 0.1 s.
wait_until() {
  tries=$(($1 * 10))
  shift
  while ! "$@"; do
    tries=$((tries - 1))
    [ "$tries" -gt 0 ] || return 1
    sleep 0.1
  done
}

has_line() { grep -q -- "$2" "$1" 2>/dev/null; }

# Lines of a file, 0 if it is not there yet.
lines() { if [ -f "$1" ]; then wc -l <"$1"; else echo 0; fi; }

# wait_count FILE N STALL: until FILE has N lines; fails when it stops growing for STALL s.
wait_count() {
  seen=-1
  still=0
  while :; do
    c=$(lines "$1")
    [ "$c" -ge "$2" ] && return 0
    if [ "$c" = "$seen" ]; then
      still=$((still + 1))
      [ "$still" -lt $(($3 * 10)) ] || return 1
    else
      still=0
      seen=$c
    fi
    sleep 0.1
  done
}

# The same PAYLOAD-byte message lines, numbered, for a device or a run: lines FILE TAG N.
make_lines() {
  awk -v tag="$2" -v n="$3" -v size="$payload_bytes" 'BEGIN {
    for (i = 1; i <= n; i++) {
      s = sprintf("%s-%06d-", tag, i)
      while (length(s) < size) s = s "x"
      print s
    } }' >"$1"
}

# Releases every reader blocked on FIFO: opened read-write, it never blocks; the readers see
# EOF once it is closed again.
release() { : <>"$1"; }

# ---- mosquitto, zq signal, the bridge ---------------------------------------------------------
# max_queued_messages 0: no limit on what mosquitto queues for a slow QoS 1 subscriber (its
# default, 1000, would drop the reference's burst at mosquitto_sub); the same for both columns.
cat >"$tmp/mosquitto.conf" <<EOF
listener 1883 127.0.0.1
allow_anonymous true
max_queued_messages 0
EOF
mosquitto -c "$tmp/mosquitto.conf" >"$tmp/mosquitto.out" 2>"$tmp/mosquitto.err" &
mosquitto_pid=$!
pids="$pids $mosquitto_pid"
wait_until 5 mosquitto_sub -h 127.0.0.1 -t probe -W 1 -E -q 0 2>/dev/null ||
  die "mosquitto did not start"
mosquitto_version=$(mosquitto -h 2>/dev/null | sed -n 's/^mosquitto version //p' | head -1)

"$zq" signal --listen 127.0.0.1:0 >"$tmp/signal.out" 2>"$tmp/signal.err" &
pids="$pids $!"
wait_until 5 has_line "$tmp/signal.out" "listening on" || die "zq signal did not start"
url=ws://$(sed -n 's|.*http://\([^ ]*\).*|\1|p' "$tmp/signal.out")/ws

# start_bridge ROOM [wrapper...]: the bridge (zq-bridge itself, so that a wrapper such as
# valgrind sees it); sets $bridge_pid and $bridge_id once it is in the room and on MQTT.
start_bridge() {
  name=$1
  shift
  "$@" "$bridge_bin" --mqtt mqtt://127.0.0.1 --signal "$url" --room "$name" --verbose \
    >"$tmp/bridge.$name.out" 2>"$tmp/bridge.$name.err" &
  bridge_pid=$!
  pids="$pids $bridge_pid"
  wait_until 60 has_line "$tmp/bridge.$name.err" "MQTT 127.0.0.1:1883 connected" ||
    die "the bridge never reached mosquitto"
  wait_until 60 has_line "$tmp/bridge.$name.err" "in room '$name' as" ||
    die "the bridge never joined '$name'"
  bridge_id=$(sed -n "s/.*in room '$name' as //p" "$tmp/bridge.$name.err" | head -1)
}

# ---- Simulated devices ------------------------------------------------------------------------
# A device is `zq pub bench.dNN - --qos Q` on a FIFO its feeder writes: the feeder waits on the
# round's go FIFO, writes its lines, and again for each round, then keeps the pipe open until
# the stop FIFO is released, so that no device leaves (and frees slots) while others publish.
feed() { # GROUP LINES
  r=1
  while [ "$r" -le "$runs" ]; do
    read -r _ <"$tmp/go.$1.$r" || true
    cat "$2"
    r=$((r + 1))
  done
  read -r _ <"$tmp/stop.$1" || true
}

device_pids=""
start_device() { # GROUP ROOM N QOS
  nn=$(printf %02d "$3")
  make_lines "$tmp/lines.d$nn" "d$nn" "$per_device"
  mkfifo "$tmp/in.$1.$nn"
  "$zq" pub "bench.d$nn" - --qos "$4" --wait-peers 1 --signal "$url" --room "$2" --verbose \
    <"$tmp/in.$1.$nn" >"$tmp/dev.$1.$nn.out" 2>"$tmp/dev.$1.$nn.err" &
  device_pids="$device_pids $!"
  pids="$pids $!"
  feed "$1" "$tmp/lines.d$nn" >"$tmp/in.$1.$nn" &
  pids="$pids $!"
}

# Whether device NN of GROUP has N peers ready, the bridge among them.
device_ready() {
  f=$tmp/dev.$1.$2.err
  [ "$(sed -n 's/^zq pub: peer \([^ ]*\) ready (zq)$/\1/p' "$f" 2>/dev/null | sort -u | wc -l)" \
    -ge "$3" ] && has_line "$f" "peer $bridge_id ready"
}

# A zq node holds 4 peers and the member that hears peer_joined dials: a device that joins
# while earlier ones have free slots is dialed by them, and one dialed by four devices has no
# slot left for the bridge. Joining in fours, each four once the four before have their slots
# full (the bridge and the other three), every device takes the bridge and at most three
# others; the full ones refuse the newcomers (`refused`, waitlisted), which changes nothing.
join_devices() { # GROUP ROOM QOS TIMEOUT
  for r in $(seq "$runs"); do mkfifo "$tmp/go.$1.$r"; done
  mkfifo "$tmp/stop.$1"
  device_pids=""
  first=1
  while [ "$first" -le "$devices" ]; do
    last=$((first + 3))
    [ "$last" -le "$devices" ] || last=$devices
    for i in $(seq "$first" "$last"); do start_device "$1" "$2" "$i" "$3"; done
    for i in $(seq "$first" "$last"); do
      wait_until "$4" device_ready "$1" "$(printf %02d "$i")" $((last - first + 1)) ||
        die "device d$(printf %02d "$i") ($1) does not have the bridge and its group as peers"
    done
    first=$((last + 1))
  done
}

# Lets the devices of GROUP finish (stdin's EOF: each exits once its messages are acked) and
# counts those that failed.
stop_devices() {
  release "$tmp/stop.$1"
  failed=0
  for p in $device_pids; do
    wait_until 10 not_running "$p" || kill "$p" 2>/dev/null || true
    rc=0
    wait "$p" 2>/dev/null || rc=$?
    [ "$rc" -eq 0 ] || failed=$((failed + 1))
    pids=$(echo "$pids" | tr ' ' '\n' | grep -vx "$p" | tr '\n' ' ')
  done
}
not_running() { ! kill -0 "$1" 2>/dev/null; }

# ---- Receivers and figures --------------------------------------------------------------------
# start_sink NAME QOS FILTER: a mosquitto_sub printing "time topic payload", subscribed (a
# probe of its own came back) before it returns; retained messages left out (-R).
start_sink() {
  mosquitto_sub -h 127.0.0.1 -V 5 -q "$2" -R -i "sink-$1" -t "$3" -t "probe/$1" \
    -F '%U %t %p' >"$tmp/sink.$1" 2>"$tmp/sink.$1.err" &
  sink_pid=$!
  pids="$pids $sink_pid"
  wait_until 5 probe_back "$1" || die "mosquitto_sub $1 never subscribed"
}
probe_back() {
  mosquitto_pub -h 127.0.0.1 -V 5 -t "probe/$1" -m probe 2>/dev/null
  has_line "$tmp/sink.$1" " probe/$1 probe"
}

# Figures of "time topic payload" lines (probes left out): "n distinct first last".
arrivals() {
  grep -v ' probe/' "$1" | awk '{ n++; if (!seen[$2 " " $3]++) d++
      if (n == 1 || $1 < t0) t0 = $1; if ($1 > t1) t1 = $1 }
    END { printf "%d %d %.6f %.6f\n", n, d, t0, t1 }'
}

# rate RESULT EXPECTED QOS -> messages/s; "stalled" for QoS 1 with messages missing (a rate
# over what came before the stall would say nothing).
rate() {
  echo "$1" | awk -v want="$2" -v qos="$3" '{
    if (qos == 1 && $2 < want) print "stalled"
    else if ($4 > $3) printf "%.0f", ($1 - 1) / ($4 - $3)
    else print "—" }'
}

# The median of the numbers in a list; "stalled" if it has none but a stall, else "—".
median() {
  tr ' ' '\n' | awk '/^[0-9.]+$/ { v[++n] = $1 + 0 } /^stalled$/ { st++ }
    END { if (n == 0) { print (st ? "stalled" : "—"); exit }
          for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) {
            t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
          if (n % 2) print v[(n + 1) / 2]; else printf "%.2f\n", (v[n / 2] + v[n / 2 + 1]) / 2 }'
}

# The fewest of a list of counts.
fewest() { tr ' ' '\n' | awk '/^[0-9]+$/ { if (m == "" || $1 + 0 < m) m = $1 + 0 } END { print m }'; }

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.2f", a / b; else print "—" }'; }

total=$((devices * per_device))

# One round of (a) through the bridge: GROUP QOS ROUND -> sets $result ("n distinct first last").
zq_round() {
  start_sink "zq$1.$3" "$2" "zq/$room/bench/#"
  release "$tmp/go.$1.$3"
  wait_count "$tmp/sink.zq$1.$3" $((total + 1)) 5 || true
  stop "$sink_pid"
  result=$(arrivals "$tmp/sink.zq$1.$3")
}

# One round of (a) for the reference: DEVICES mosquitto_pub -l, connected before they read.
ref_round() { # QOS ROUND
  name=ref$1.$2
  start_sink "$name" "$1" "ref/bench/#"
  rm -f "$tmp/go.ref"
  mkfifo "$tmp/go.ref"
  ref_pids=""
  for i in $(seq "$devices"); do
    nn=$(printf %02d "$i")
    mkfifo "$tmp/ref.$name.$nn"
    mosquitto_pub -h 127.0.0.1 -V 5 -q "$1" -r -i "$name-d$nn" -t "ref/bench/d$nn" -l \
      <"$tmp/ref.$name.$nn" 2>>"$tmp/refpub.err" &
    ref_pids="$ref_pids $!"
    pids="$pids $!"
    { read -r _ <"$tmp/go.ref" || true; cat "$tmp/lines.d$nn"; } >"$tmp/ref.$name.$nn" &
    pids="$pids $!"
  done
  wait_until 10 ref_connected "$name" || die "not every mosquitto_pub connected"
  release "$tmp/go.ref"
  wait_count "$tmp/sink.$name" $((total + 1)) 5 || true
  for p in $ref_pids; do wait_until 10 not_running "$p" || true; done
  # shellcheck disable=SC2086 # a list of pids
  stop "$sink_pid" $ref_pids
  result=$(arrivals "$tmp/sink.$name")
}
ref_connected() {
  [ "$(grep -c "New client connected .* as $1-d" "$tmp/mosquitto.err" || true)" -ge "$devices" ]
}

# (a) for one QoS: the devices join, then RUNS rounds, each the bridge's and the reference's.
# Sets r_zq, r_ref, r_ratio (medians) and r_each (every round, what arrived, the devices).
room_to_mqtt() { # QOS
  group=q$1
  note "(a) room -> MQTT, QoS $1: $devices devices join"
  off=$(lines "$tmp/bridge.$room.err")
  join_devices "$group" "$room" "$1" 20
  joined=$(tail -n +$((off + 1)) "$tmp/bridge.$room.err" |
             sed -n 's/^zq bridge: peer \([^ ]*\) ready (zq)$/\1/p' | sort -u | wc -l)
  zq_rates="" ref_rates="" ratios="" notes="" zq_got="" ref_got=""
  for r in $(seq "$runs"); do
    zq_round "$group" "$1" "$r"
    zq_got="$zq_got $(field 2 "$result")"
    zr=$(rate "$result" "$total" "$1")
    notes="$notes zq $(field 1 "$result")/$total arrived ($(field 2 "$result") distinct);"
    ref_round "$1" "$r"
    ref_got="$ref_got $(field 2 "$result")"
    rr=$(rate "$result" "$total" "$1")
    notes="$notes mosquitto $(field 1 "$result")/$total ($(field 2 "$result") distinct);"
    zq_rates="$zq_rates $zr" ref_rates="$ref_rates $rr" ratios="$ratios $(ratio "$zr" "$rr")"
  done
  stop_devices "$group"
  r_zq=$(echo "$zq_rates" | median)
  r_ref=$(echo "$ref_rates" | median)
  r_ratio=$(echo "$ratios" | median)
  r_got="$(echo "$zq_got" | fewest) / $(echo "$ref_got" | fewest)"
  r_each="zq bridge$zq_rates; mosquitto_pub$ref_rates;$notes devices the bridge had: $joined,"
  r_each="$r_each devices that exited with a failure: $failed"
}
field() { echo "$2" | cut -d' ' -f"$1"; }

# ---- (a) --------------------------------------------------------------------------------------
start_bridge "$room"
native_bridge=$bridge_pid
room_to_mqtt 1
zq_q1=$r_zq ref_q1=$r_ref ratio_q1=$r_ratio each_q1=$r_each got_q1=$r_got
room_to_mqtt 0
zq_q0=$r_zq ref_q0=$r_ref ratio_q0=$r_ratio each_q0=$r_each got_q0=$r_got

# ---- (b) MQTT -> room -------------------------------------------------------------------------
note "(b) MQTT -> room"
make_lines "$tmp/lines.in" in "$in_messages"
# stamp IN OUT: each line of the FIFO IN into OUT after its arrival time, flushed at once.
stamp() { perl -MTime::HiRes=time -ne 'BEGIN { $| = 1 } printf "%.6f %s", time, $_' <"$1" >"$2"; }

mkfifo "$tmp/zqsub.fifo"
stamp "$tmp/zqsub.fifo" "$tmp/zqsub.out" &
pids="$pids $!"
"$zq" sub bench.in --signal "$url" --room "$room" --verbose >"$tmp/zqsub.fifo" 2>"$tmp/zqsub.err" &
zqsub_pid=$!
pids="$pids $zqsub_pid"
wait_until 20 has_line "$tmp/zqsub.err" "peer $bridge_id ready" || die "zq sub never had the bridge"
sleep 0.5 # its sub reaches the bridge with its hello

# "time topic payload" lines of ROUND (the lines after OFFSET): "n distinct first last".
in_round() { # FILE OFFSET
  tail -n +$(($2 + 1)) "$1" | arrivals /dev/stdin
}
in_probe_back() {
  mosquitto_pub -h 127.0.0.1 -V 5 -t "probe/in$1" -m probe 2>/dev/null
  has_line "$tmp/insink.$1" " probe/in$1 probe"
}
in_zq="" in_ref="" in_ratios="" in_notes="" in_zq_got="" in_ref_got=""
for r in $(seq "$runs"); do
  before=$(lines "$tmp/zqsub.out")
  mosquitto_pub -h 127.0.0.1 -V 5 -q 1 -i "in-zq-$r" -t "zq/$room/bench/in" -l \
    <"$tmp/lines.in" 2>>"$tmp/inpub.err" &
  p=$!
  pids="$pids $p"
  wait_count "$tmp/zqsub.out" $((before + in_messages)) 5 || true
  wait_until 10 not_running "$p" || true
  stop "$p"
  result=$(in_round "$tmp/zqsub.out" "$before")
  zr=$(rate "$result" "$in_messages" 1)
  in_zq_got="$in_zq_got $(field 2 "$result")"
  in_notes="$in_notes zq sub $(field 1 "$result")/$in_messages ($(field 2 "$result") distinct);"

  mkfifo "$tmp/insink.$r.fifo"
  stamp "$tmp/insink.$r.fifo" "$tmp/insink.$r" &
  pids="$pids $!"
  mosquitto_sub -h 127.0.0.1 -V 5 -q 1 -i "in-sink-$r" -t ref/bench/in -t "probe/in$r" -v \
    >"$tmp/insink.$r.fifo" 2>"$tmp/insink.err" &
  sp=$!
  pids="$pids $sp"
  wait_until 5 in_probe_back "$r" || die "the reference mosquitto_sub never subscribed"
  mosquitto_pub -h 127.0.0.1 -V 5 -q 1 -i "in-ref-$r" -t ref/bench/in -l <"$tmp/lines.in" \
    2>>"$tmp/inpub.err" &
  p=$!
  pids="$pids $p"
  wait_count "$tmp/insink.$r" $((in_messages + 1)) 5 || true
  wait_until 10 not_running "$p" || true
  stop "$p" "$sp"
  result=$(arrivals "$tmp/insink.$r")
  rr=$(rate "$result" "$in_messages" 1)
  in_ref_got="$in_ref_got $(field 2 "$result")"
  in_notes="$in_notes mosquitto_sub $(field 1 "$result")/$in_messages"
  in_notes="$in_notes ($(field 2 "$result") distinct);"
  in_zq="$in_zq $zr" in_ref="$in_ref $rr" in_ratios="$in_ratios $(ratio "$zr" "$rr")"
done
stop "$zqsub_pid"
stop "$native_bridge"
counts=$(grep "zq bridge: to MQTT" "$tmp/bridge.$room.err" | tail -1 | sed 's/^zq bridge: //')
mqtt_counts=$(grep "zq bridge: MQTT packets in" "$tmp/bridge.$room.err" | tail -1 |
                sed 's/^zq bridge: //')

# ---- (c) instructions per bridged message ---------------------------------------------------
# callgrind_control -z zeroes the bridge's counts, -d dumps them (callgrind.out.N, "summary:").
cg_dump() { # -> sets $ir to the Ir since the last zero or dump
  n_before=$(find "$tmp" -name 'cg.out.*' | wc -l)
  callgrind_control -d "$bridge_pid" >/dev/null 2>&1 || return 1
  wait_until 20 cg_dumped $((n_before + 1)) || return 1
  f=$(find "$tmp" -name 'cg.out.*' | sort -t. -k3 -n | tail -1)
  ir=$(sed -n 's/^summary: *//p' "$f")
}
cg_dumped() { [ "$(find "$tmp" -name 'cg.out.*' | wc -l)" -ge "$1" ]; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }

cg_room_to_mqtt="—" cg_mqtt_to_room="—" cg_idle="—" cg_note=""
count_run() {
  cg_room=bench-cg
  note "(c) the bridge under callgrind"
  # One round of K messages, from as many devices as (a) (at least 1 each).
  saved_runs=$runs saved_per=$per_device
  runs=1
  per_device=$(( (k_messages + devices - 1) / devices ))
  k_room=$((per_device * devices))
  start_bridge "$cg_room" valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out"
  join_devices cg "$cg_room" 1 120
  mkfifo "$tmp/cgsub.fifo"
  stamp "$tmp/cgsub.fifo" "$tmp/cgsub.out" &
  pids="$pids $!"
  "$zq" sub bench.in --signal "$url" --room "$cg_room" --verbose >"$tmp/cgsub.fifo" \
    2>"$tmp/cgsub.err" &
  cgsub_pid=$!
  pids="$pids $cgsub_pid"
  wait_until 60 has_line "$tmp/cgsub.err" "peer $bridge_id ready" || die "zq sub never had the bridge"
  start_sink cg 1 "zq/$cg_room/bench/#"
  sleep 2 # the joins' last handshakes and acks
  callgrind_control -z "$bridge_pid" >/dev/null 2>&1 || return 1
  t0=$(now)
  sleep 5
  cg_dump || return 1
  idle_ir=$ir idle_s=$(elapsed "$t0" "$(now)")

  callgrind_control -z "$bridge_pid" >/dev/null 2>&1 || return 1
  t0=$(now)
  release "$tmp/go.cg.1"
  wait_count "$tmp/sink.cg" $((k_room + 1)) 20 || true
  cg_dump || return 1
  out_ir=$ir out_s=$(elapsed "$t0" "$(now)")
  out_n=$(arrivals "$tmp/sink.cg" | cut -d' ' -f2)

  make_lines "$tmp/lines.cg" in "$k_messages"
  callgrind_control -z "$bridge_pid" >/dev/null 2>&1 || return 1
  t0=$(now)
  mosquitto_pub -h 127.0.0.1 -V 5 -q 1 -i in-cg -t "zq/$cg_room/bench/in" -l <"$tmp/lines.cg" \
    2>>"$tmp/inpub.err"
  wait_count "$tmp/cgsub.out" "$k_messages" 20 || true
  cg_dump || return 1
  in_ir=$ir in_s=$(elapsed "$t0" "$(now)")
  in_n=$(arrivals "$tmp/cgsub.out" | cut -d' ' -f2)

  per() { # IR SECONDS N -> thousands of instructions per message, the idle rate taken off
    awk -v ir="$1" -v s="$2" -v n="$3" -v ii="$idle_ir" -v is="$idle_s" \
      'BEGIN { if (n > 0) printf "%.1f", (ir - ii / is * s) / n / 1000; else print "—" }'
  }
  cg_room_to_mqtt=$(per "$out_ir" "$out_s" "$out_n")
  cg_mqtt_to_room=$(per "$in_ir" "$in_s" "$in_n")
  [ "$out_n" -ge "$k_room" ] || cg_room_to_mqtt="stalled ($out_n of $k_room)"
  [ "$in_n" -ge "$k_messages" ] || cg_mqtt_to_room="stalled ($in_n of $k_messages)"
  cg_idle=$(awk -v ii="$idle_ir" -v is="$idle_s" 'BEGIN { printf "%.2f", ii / is / 1e6 }')
  cg_note="room -> MQTT: $out_n of $k_room messages in $out_s s; MQTT -> room: $in_n of"
  cg_note="$cg_note $k_messages in $in_s s (under callgrind; a stall is 20 s without"
  cg_note="$cg_note an arrival); idle: $idle_s s. The idle rate times each run's time is taken off"
  stop "$sink_pid" "$cgsub_pid"
  stop_devices cg
  stop "$bridge_pid"
  runs=$saved_runs per_device=$saved_per
}
if [ "${ZQ_BENCH_CALLGRIND:-1}" = 0 ] || ! command -v valgrind >/dev/null; then
  cg_note="skipped (valgrind not installed, or ZQ_BENCH_CALLGRIND=0)"
elif ! count_run; then
  cg_note="callgrind_control failed"
fi

# ---- Tables -----------------------------------------------------------------------------------
echo "## zq bridge under load, beside mosquitto $mosquitto_version's own clients" \
     "($(nproc) cores, $(uname -m), $(git rev-parse --short HEAD 2>/dev/null || echo '?'))"
echo
echo "| room → MQTT: $devices publishers × $per_device messages of $payload_bytes bytes," \
     "messages/s | zq devices → zq bridge → mosquitto | mosquitto_pub → mosquitto | bridge / mosquitto |" \
     "arrived of $total (fewest in a round), bridge / mosquitto |"
echo "|---|---:|---:|---:|---:|"
echo "| QoS 1 | $zq_q1 | $ref_q1 | $ratio_q1 | $got_q1 |"
echo "| QoS 0 | $zq_q0 | $ref_q0 | $ratio_q0 | $got_q0 |"
echo
echo "Medians of $runs rounds; the ratio is the median of the per-round ratios. First to last" \
     "arrival at one mosquitto_sub (-q as the row, MQTT 5) on zq/$room/bench/# or ref/bench/#;" \
     "\"stalled\": a QoS 1 round in which messages stopped coming (5 s without one) before all had."
echo
echo "- QoS 1, each round: $each_q1"
echo "- QoS 0, each round: $each_q0"
echo
echo "| MQTT → room: one mosquitto_pub -q 1 -l, $in_messages messages of $payload_bytes bytes," \
     "messages/s | mosquitto → zq bridge → zq sub | mosquitto → mosquitto_sub -q 1 | bridge / mosquitto |" \
     "arrived of $in_messages (fewest in a round), bridge / mosquitto |"
echo "|---|---:|---:|---:|---:|"
echo "| QoS 1 | $(echo "$in_zq" | median) | $(echo "$in_ref" | median) | $(echo "$in_ratios" | median) |" \
     "$(echo "$in_zq_got" | fewest) / $(echo "$in_ref_got" | fewest) |"
echo
echo "- each round: zq sub$in_zq; mosquitto_sub$in_ref;$in_notes"
echo "- the bridge at its stop: $counts"
echo "- $mqtt_counts"
echo
echo "| instructions per bridged message (callgrind, the bridge process only), thousands | |"
echo "|---|---:|"
echo "| room → MQTT, QoS 1 ($devices devices) | $cg_room_to_mqtt |"
echo "| MQTT → room, QoS 1 (one zq sub) | $cg_mqtt_to_room |"
echo "| idle, millions per second ($devices devices and zq sub connected) | $cg_idle |"
echo
echo "- $cg_note"
