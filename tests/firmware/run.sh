#!/bin/sh
# The zq firmware image on the emulated MPS2-AN386 board against headless Chromium and a zq
# host node (issue 19); what CTest (firmware_chromium) runs.
#
#   sh tests/firmware/run.sh path/to/zq
#
# Needs what tests/browser needs (chromium, node, playwright-core) and what scripts/firmware
# needs (qemu-system-arm and the built image: scripts/firmware build). Runs in a private
# network namespace made here: a bridge zq-fwbr holding 192.0.2.1/24 (RFC 5737's TEST-NET-1,
# never routed) with the default route on it, and two tap interfaces on the bridge, zq-fw0 and
# zq-fw1, one per emulated board (192.0.2.2 and 192.0.2.3). An nftables rule drops and counts
# anything addressed beyond loopback, 192.0.2.0/24 and link-local multicast; one such packet
# fails the run.
# shellcheck source=../support/browser_env.sh
. "$(dirname "$0")/../support/browser_env.sh"
browser_env_check "$@"
here=$(cd "$(dirname "$0")" && pwd)
firmware="$here/../../scripts/firmware"
command -v qemu-system-arm >/dev/null 2>&1 || {
    echo "firmware: no qemu-system-arm: scripts/setup firmware" >&2
    exit 1
}
[ -f "$here/../../build-firmware/zq_firmware.elf" ] || {
    echo "firmware: no build-firmware/zq_firmware.elf: scripts/firmware build" >&2
    exit 1
}
if [ "$(id -u)" -eq 0 ]; then netns="unshare -n"; else netns="unshare -r -n"; fi
cd "$here"
# $netns is two or three plain words: splitting it is intended. "$1".."$3" are the inner sh's.
# shellcheck disable=SC2086,SC2016
exec $netns sh -c '
    set -e
    ip link set lo up
    ip link add zq-fwbr type bridge
    ip addr add 192.0.2.1/24 dev zq-fwbr
    ip link set zq-fwbr up
    ip route add default dev zq-fwbr
    for tap in zq-fw0 zq-fw1; do
        ip tuntap add dev "$tap" mode tap
        ip link set "$tap" master zq-fwbr up
    done
    nft add table inet zq_fw
    nft add chain inet zq_fw out "{ type filter hook output priority 0; }"
    nft add rule inet zq_fw out ip daddr != "{ 127.0.0.0/8, 192.0.2.0/24, 224.0.0.0/24 }" \
        counter drop
    nft add rule inet zq_fw out ip6 daddr != "{ ::1, ff02::/16 }" counter drop
    set +e
    node run.mjs "$1" "$2"
    rc=$?
    n=$(nft list chain inet zq_fw out | sed -n "s/.*counter packets \([0-9]*\).*/\1/p" |
        awk "{ n += \$1 } END { print n + 0 }")
    echo "firmware: $n packets addressed beyond the namespace, dropped"
    [ "$n" -eq 0 ] || rc=1
    exit $rc' sh "$zq" "$firmware"
