#!/bin/sh
# The board's smoke test: the bring-up image (board/mps2-an386/bringup.c: lwIP on the
# LAN9118, nothing of zq) answers ping through a tap interface, in a network namespace of its
# own with 192.0.2.1/24 on the tap and the board on 192.0.2.2. What CTest (firmware_bringup)
# runs; needs scripts/firmware build.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
firmware="$here/../../scripts/firmware"
if [ "$(id -u)" -eq 0 ]; then netns="unshare -n"; else netns="unshare -r -n"; fi
# shellcheck disable=SC2086,SC2016
exec $netns sh -c '
    set -e
    ip link set lo up
    ip tuntap add dev zq-fw0 mode tap
    ip addr add 192.0.2.1/24 dev zq-fw0
    ip link set zq-fw0 up
    log=$(mktemp)
    "$1" run --image bringup --tap zq-fw0 --ip 192.0.2.2/24 > "$log" 2>&1 &
    qemu=$!
    i=0
    until grep -q "^board: up" "$log" || [ $i -ge 100 ]; do sleep 0.1; i=$((i + 1)); done
    set +e
    ping -c 5 -i 0.2 -W 2 192.0.2.2
    rc=$?
    kill $qemu; wait $qemu 2>/dev/null
    echo "---- the board'"'"'s console"
    cat "$log"
    rm -f "$log"
    [ $rc -eq 0 ] && echo "bringup: PASS ping 192.0.2.2" || echo "bringup: FAIL no answer to ping"
    exit $rc' sh "$firmware"
