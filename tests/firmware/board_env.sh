# shellcheck shell=sh
# What the shell tests of the firmware image share (tests/firmware/wss.sh, turn.sh): the
# board's tap in the test's own network namespace with nothing let beyond it, booting and
# stopping the board, reading its console, and counted checks. Sourced after echo_env.sh and
# tests/interop/wss/checks.sh, with $here and $firmware set.
#
#   fw_test_start LABEL "$0" "$@"   the wss image built, a network namespace of the test's own
#                          (the script runs again inside it), $out, $status, $pids, the traps
#   fw_lan_up              zq-fw0 holding 192.0.2.1/24 (RFC 5737's TEST-NET-1); an nftables
#                          rule drops and counts anything addressed beyond loopback and it
#   boot_board NAME IMAGE APP ROOM URL [options]   the board on 192.0.2.2: $fw_pid, its console
#                          in $out/NAME.out, its input on fd 4
#   stop_board
#   wait_long FILE PATTERN SECONDS;  joins NAME N;  refused NAME PATTERN
#   tally WHAT COMMAND...  check (checks.sh), counted in $passed and $failed
#   fw_leaked              the packets the rule dropped

fw_test_start() {
    label=$1
    shift
    [ -f "$here/../../build-firmware/zq_firmware_wss.elf" ] || {
        echo "$label: no build-firmware/zq_firmware_wss.elf: scripts/firmware build" >&2
        exit 1
    }
    echo_env_netns "$(echo "$label" | tr '[:lower:]' '[:upper:]')" "$@"
    out=$(mktemp -d)
    status=0
    pids=
    trap 'stop $pids; [ "$status" -ne 0 ] && echo_env_dump_logs; rm -rf "$out"; exit "$status"' EXIT
    trap 'status=1; exit' INT TERM
}

fw_lan_up() {
    ip tuntap add dev zq-fw0 mode tap &&
        ip addr add 192.0.2.1/24 dev zq-fw0 &&
        ip link set zq-fw0 up &&
        nft add table inet zq_fw &&
        nft add chain inet zq_fw out "{ type filter hook output priority 0; }" &&
        nft add rule inet zq_fw out ip daddr != "{ 127.0.0.0/8, 192.0.2.0/24, 224.0.0.0/24 }" \
            counter drop &&
        nft add rule inet zq_fw out ip6 daddr != "{ ::1, ff02::/16 }" counter drop ||
        { echo "FAIL: the namespace's tap and nftables rules" >&2; status=1; exit; }
}

fw_leaked() {
    nft list chain inet zq_fw out | sed -n 's/.*counter packets \([0-9]*\).*/\1/p' |
        awk '{ n += $1 } END { print n + 0 }'
}

wait_long() { # file pattern seconds: a line matching pattern within seconds
    n=$(($3 * 10))
    while [ "$n" -gt 0 ]; do
        grep -q "$2" "$1" 2>/dev/null && return 0
        n=$((n - 1))
        sleep 0.1
    done
    return 1
}

# The console's input is fd 4, a FIFO held open (the board reads `ip A.B.C.D` there).
boot_board() { # name, image, app, room, signalling URL, then scripts/firmware run's options
    name=$1
    image=$2
    app=$3
    room=$4
    url=$5
    shift 5
    rm -f "$out/console.in"
    mkfifo "$out/console.in"
    "$firmware" run --image "$image" --tap zq-fw0 --ip 192.0.2.2/24 --gw 192.0.2.1 \
        --mac 02:00:00:00:00:02 --app "$app" --room "$room" --signal "$url" "$@" \
        <"$out/console.in" >"$out/$name.out" 2>&1 &
    fw_pid=$!
    exec 4>"$out/console.in"
}

stop_board() {
    stop "$fw_pid"
    exec 4>&-
}

joins() { # name, N: the console has said it joined its room N times, within 60 s
    n=600
    while [ "$(grep -c "^zq: joined room" "$out/$1.out")" -lt "$2" ]; do
        n=$((n - 1))
        [ "$n" -gt 0 ] || return 1
        sleep 0.1
    done
}

# Refused: the reason on the console (printed), and no join within the wait.
exec 3>&1
refused() { # name, pattern of the reason
    wait_long "$out/$1.out" "$2" 60 && ! grep -q "^zq: joined room" "$out/$1.out" ||
        { cat "$out/$1.out"; return 1; }
    grep -m 1 "$2" "$out/$1.out" | sed 's/^/  console: /' >&3
}

passed=0
failed=0
tally() {
    before=$status
    status=0
    check "$@"
    if [ "$status" -eq 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
    [ "$before" -eq 0 ] || status=1
}
