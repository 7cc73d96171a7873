# shellcheck shell=sh
# A LAN-like interface for a test's own network namespace: a bridge with no ports (this kernel
# has no dummy or veth links) holding 192.0.2.1/24, RFC 5737's TEST-NET-1, which is never
# routed, with the default route on it: Chromium finds its host address by asking the kernel
# for the source of a route to a public address (a UDP connect, which sends nothing) and
# gathers no host candidate without one. Traffic to 192.0.2.1 stays on the machine (local
# delivery goes over lo); an nftables rule drops and counts anything addressed elsewhere
# (lan_stray), which the bridge could not carry anywhere anyway; link-local multicast (mDNS, and
# the kernel's own IGMP and MLD) is let through, since no router forwards it. For peers that skip loopback
# when they gather candidates (aioice), and for Chromium with its WebRTC defaults.
#
#   . tests/support/lan.sh
#   lan_up || exit 1          # then 192.0.2.1 is this namespace's address
#   ...
#   lan_stray                 # packets addressed beyond loopback, 192.0.2.0/24, link-local
LAN_ADDRESS=192.0.2.1

lan_up() {
    ip link add zq-lan0 type bridge &&
        ip addr add "$LAN_ADDRESS/24" dev zq-lan0 &&
        ip link set zq-lan0 up &&
        ip route add default dev zq-lan0 &&
        nft add table inet zq_lan &&
        nft add chain inet zq_lan out '{ type filter hook output priority 0; }' &&
        nft add rule inet zq_lan out ip daddr != '{ 127.0.0.0/8, 192.0.2.0/24, 224.0.0.0/24 }' \
            counter drop &&
        nft add rule inet zq_lan out ip6 daddr != '{ ::1, ff02::/16 }' counter drop
}

lan_stray() {
    nft list chain inet zq_lan out |
        sed -n 's/.*counter packets \([0-9]*\).*/\1/p' | awk '{ n += $1 } END { print n + 0 }'
}
