#!/usr/bin/env bash
# Load on `zq signal` (bench/bench_signal.c), with everything it needs started here and stopped
# again, in a network namespace of its own with only loopback up:
#
#   (a) one `zq signal` on 127.0.0.1, 1,000 clients in 50 rooms;
#   (b) when `zq signal --help` mentions --cluster: a 3-node nats-server cluster (routes on
#       loopback) and three `zq signal --cluster nats://...`, the same load spread over the
#       three (member i of room r on server (i + r) % 3, so peer_joined and offers cross
#       servers), then both tables side by side with the ratios cluster / single.
#
#   bench/signal_load.sh [bench_signal options...]   e.g. --rate 2000, --window 4
#
# One server holding 1,000 clients needs more than zq's default ZQ_SIG_MAX_CLIENTS (256): this
# script builds its own zq and bench_signal in build-bench-signal/ with ZQ_SIG_MAX_CLIENTS set on
# the command line (include/zq/config.h reads -D values first); the descriptor limits, the TLS
# front count and the router's tables follow from it, and zq signal raises its own soft
# RLIMIT_NOFILE to what they need.
#
# Environment: ZQ_BENCH_SIGNAL_DIR (build-bench-signal), ZQ_BENCH_SIGNAL_CLIENTS (1000),
# ZQ_BENCH_SIGNAL_ROOMS (50), ZQ_BENCH_SECONDS (5 per offer cell), ZQ_NATS_SERVER
# (/usr/sbin/nats-server). Needs root or unprivileged user namespaces (unshare -r -n).
set -euo pipefail
self=$(realpath "$0")
cd "$(dirname "$self")/.."
build=${ZQ_BENCH_SIGNAL_DIR:-build-bench-signal}
clients=${ZQ_BENCH_SIGNAL_CLIENTS:-1000}
rooms=${ZQ_BENCH_SIGNAL_ROOMS:-50}
seconds=${ZQ_BENCH_SECONDS:-5}
nats=${ZQ_NATS_SERVER:-/usr/sbin/nats-server}
zq=$build/cli/zq
bench=$build/bench/bench_signal

# The server's capacity: the clients rounded up to a multiple of 1024.
capacity=$(( (clients + 1023) / 1024 * 1024 ))

build_all() {
  local log="$build/bench-signal-build.log"
  mkdir -p "$build"
  if ! { cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DZQ_WERROR=ON \
           -DCMAKE_C_FLAGS="-DZQ_SIG_MAX_CLIENTS=$capacity" &&
         cmake --build "$build" --target zq bench_signal -j"$(nproc)"; } >"$log" 2>&1; then
    cat "$log" >&2
    echo "signal_load: the build failed" >&2
    exit 1
  fi
}

if [ "${ZQ_SIGNAL_LOAD_INSIDE:-}" != 1 ]; then
  build_all
  netns=(unshare -n)
  [ "$(id -u)" -eq 0 ] || netns=(unshare -r -n)
  exec "${netns[@]}" env ZQ_SIGNAL_LOAD_INSIDE=1 "$self" "$@"
fi

# ---- Inside the namespace ------------------------------------------------------------------
ip link set lo up
hard=$(ulimit -Hn)
want=$(( clients + 4096 ))
if [ "$hard" = unlimited ] || [ "$hard" -ge "$want" ]; then
  ulimit -n "$want"
else
  ulimit -n "$hard"
fi

tmp=$(mktemp -d)
pids=()
cleanup() {
  local pid
  for pid in ${pids[@]+"${pids[@]}"}; do
    kill "$pid" 2>/dev/null || true
  done
  for pid in ${pids[@]+"${pids[@]}"}; do
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

die() {
  echo "signal_load: $*" >&2
  exit 1
}

# Waits (5 s at most) until file $1 holds $3 lines matching $2.
wait_for_lines() {
  local _
  for _ in $(seq 50); do
    [ "$(grep -c -- "$2" "$1" 2>/dev/null || true)" -ge "$3" ] && return 0
    sleep 0.1
  done
  return 1
}

# start_signal NAME PORT [zq signal options...]: sets $started to its pid.
start_signal() {
  local name=$1 port=$2
  shift 2
  "$zq" signal --listen "127.0.0.1:$port" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" &
  started=$!
  pids+=("$started")
  wait_for_lines "$tmp/$name.out" "listening on" 1 ||
    die "$name did not start: $(cat "$tmp/$name.err")"
}

stop() {
  kill "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}

run_bench() {
  local label=$1 summary=$2
  shift 2
  "$bench" --clients "$clients" --rooms "$rooms" --seconds "$seconds" --label "$label" \
    --summary "$summary" "$@"
}

# (a) one server
start_signal single 8001
single_pid=$started
bench_args=("$@")
run_bench "one server" "$tmp/single.sum" --server ws://127.0.0.1:8001 \
  --server-pid "$single_pid" ${bench_args[@]+"${bench_args[@]}"}
stop "$single_pid"

# (b) three servers over a NATS cluster, once zq signal has --cluster
if ! "$zq" signal --help 2>&1 | grep -q -- --cluster; then
  echo
  echo "Cluster run skipped: \`zq signal --help\` has no --cluster yet."
  exit 0
fi
[ -x "$nats" ] || die "no $nats (apt install nats-server)"

nats_pids=()
for n in 1 2 3; do
  routes=()
  for m in 1 2 3; do
    [ "$m" = "$n" ] || routes+=("nats://127.0.0.1:$((6221 + m))")
  done
  "$nats" -a 127.0.0.1 -p $((4221 + n)) --cluster "nats://127.0.0.1:$((6221 + n))" \
    --cluster_name zq-bench --routes "$(IFS=,; echo "${routes[*]}")" \
    >"$tmp/nats$n.log" 2>&1 &
  pids+=("$!")
  nats_pids+=("$!")
done
for n in 1 2 3; do
  wait_for_lines "$tmp/nats$n.log" "Route connection created" 2 ||
    die "nats-server $n did not join its cluster: $(tail -5 "$tmp/nats$n.log")"
done

urls=()
spids=()
for n in 1 2 3; do
  start_signal "cluster$n" $((8000 + n)) --cluster "nats://127.0.0.1:$((4221 + n))"
  urls+=(--server "ws://127.0.0.1:$((8000 + n))" --server-pid "$started")
  spids+=("$started")
done
echo
run_bench "three servers, one NATS cluster" "$tmp/cluster.sum" "${urls[@]}" \
  ${bench_args[@]+"${bench_args[@]}"}
echo
for n in 1 2 3; do
  printf 'nats-server %s RSS after the run: %s\n' "$n" \
    "$(awk '/^VmRSS/ { printf "%.1f MiB", $2 / 1024 }' "/proc/${nats_pids[n - 1]}/status")"
done

# Side by side: the figures both runs wrote, and cluster / single.
echo
echo "## One server and a three-server cluster, side by side ($clients clients, $rooms rooms)"
echo
echo "| measure | one server | three servers (NATS) | cluster / single |"
echo "|---|---:|---:|---:|"
rows=("connect_p50_ms|connect → welcome p50, ms"
      "connect_p99_ms|connect → welcome p99, ms"
      "join_p50_ms|join → peer_joined p50, ms"
      "join_p99_ms|join → peer_joined p99, ms"
      "join_all_p50_ms|join → whole room told p50, ms"
      "join_all_p99_ms|join → whole room told p99, ms"
      "offer_rate_p50_ms|offer relay at --rate p50, ms"
      "offer_rate_p99_ms|offer relay at --rate p99, ms"
      "offer_closed_p50_ms|offer relay, closed loop p50, ms"
      "offer_closed_p99_ms|offer relay, closed loop p99, ms"
      "offer_closed_fps|offers relayed/s, closed loop"
      "offer_closed_server_us|server CPU per relayed offer (closed loop, all servers), µs"
      "rss_per_member_kib|server memory per member, KiB"
      "join_missing|peer_joined missing"
      "offer_wrong_peer|offers naming the wrong sender")
for row in "${rows[@]}"; do
  key=${row%%|*}
  awk -v key="$key" -v label="${row#*|}" '
    FNR == 1 { file++ }
    $1 == key { v[file] = $2 }
    END {
      if (!(1 in v) && !(2 in v)) exit
      a = (1 in v) ? v[1] : "—"; b = (2 in v) ? v[2] : "—"
      r = ((1 in v) && (2 in v) && v[1] > 0) ? sprintf("%.2f", v[2] / v[1]) : "—"
      printf "| %s | %s | %s | %s |\n", label, a, b, r
    }' "$tmp/single.sum" "$tmp/cluster.sum"
done
for pid in "${spids[@]}"; do
  stop "$pid"
done
