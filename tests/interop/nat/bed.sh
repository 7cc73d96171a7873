# bed.sh: a NAT test bed of Linux network namespaces, as a POSIX sh library.
#
#   unshare -n sh my_test.sh        # the namespace the test runs in is the public segment
#   . tests/interop/nat/bed.sh
#   bed_init /path/to/wire "$workdir"; trap bed_cleanup EXIT
#   bed_public
#   bed_site a 192.0.2 cone 203.0.113.1
#   bed_site b 198.51.100 symmetric 203.0.113.2
#   bed_in a_host some command
#
# Topology (one site shown; every site is the same with its own NAME and addresses):
#
#   public ns (the caller's)        NAME_router ns                 NAME_host ns
#   pub0 bridge 203.0.113.10/24
#     pub_NAME  <==== wire ====>    wan  WANADDR/24
#                                   lan  LANPREFIX.1/24 <== wire ==> eth0 LANPREFIX.10/24
#                                                                    default via LANPREFIX.1
#
# The cables are tests/interop/nat/wire processes (tap pairs copied in userspace), not veth
# pairs: a wire can drop every frame on demand (bed_cut) with the link up, where there is no
# netem. Namespaces other than the caller's are held open by `unshare -n sleep` processes
# and entered with `nsenter -t PID -n`. The routers NAT with nftables: NAT=cone is plain
# masquerade (Linux keeps the source port when it can: endpoint-independent mapping), NAT=
# symmetric is masquerade random (a new port per destination); both filter like a home
# router, passing from the WAN only what conntrack ties to a flow the LAN started (so
# address-and-port-dependent filtering: port-restricted cone for NAT=cone).
#
# Every namespace of the bed gets a guard (table inet bedguard) that counts and drops
# anything addressed outside 127/8, 192.0.2/24, 198.51.100/24 and 203.0.113/24, so nothing a
# test runs can leave the bed; bed_guard_count must be 0 at the end of a test.
#
# State (holder and wire PIDs, wire logs) lives in files under WORKDIR, so bed_in and the
# other functions work the same from subshells. But call bed_init, bed_public, bed_site and
# bed_bg from the test's main shell: what they start gets SIGTERM when the shell that
# started it exits, so that a test killed hard leaves nothing behind.
#
# Needs: root, ip (iproute2), nft (nftables), nsenter, unshare and setpriv (util-linux),
# sysctl (procps).

BED_PUBLIC_ADDR=203.0.113.10
BED_NS_PUBLIC=pub

# bed_init WIRE_BINARY WORKDIR: check the tools, refuse to run in a namespace that is not a
# fresh one (the machine's own, say), and start an empty bed whose state lives in WORKDIR
# (created). Call it first, before the test configures anything.
bed_init() {
  [ $# -eq 2 ] || { _bed_die "usage: bed_init WIRE_BINARY WORKDIR"; return 1; }
  BED_READY=
  BED_WIRE=$1
  BED_DIR=$2
  [ -x "$BED_WIRE" ] || { _bed_die "wire binary not executable: $BED_WIRE"; return 1; }
  for _bed_c in ip nft nsenter unshare sysctl; do
    command -v "$_bed_c" >/dev/null 2>&1 || { _bed_die "needs $_bed_c"; return 1; }
  done
  [ "$(id -u)" -eq 0 ] || { _bed_die "needs root"; return 1; }
  # The bed rewires the namespace it runs in: never the machine's own. /proc/1/ns/net is not
  # always readable (in a container it may not be), so also refuse a namespace that looks
  # like a real network: a default route, or an interface up other than lo.
  if [ "$(readlink /proc/self/ns/net)" = "$(readlink /proc/1/ns/net 2>/dev/null)" ] ||
     [ -n "$(ip route show default; ip -6 route show default 2>/dev/null)" ] ||
     ip -o link show up | grep -q -v ': lo:'; then
    _bed_die "run under unshare -n: this namespace has a network (ip link, ip route)"
    return 1
  fi
  BED_PUBLIC_NSFILE=/proc/$$/ns/net
  # What the bed starts gets SIGTERM when the shell that started it dies (wires do it
  # themselves), so a test killed hard leaves no holder or server behind. setpriv execs,
  # keeping the PID.
  _bed_pdeath=
  if setpriv --pdeathsig TERM true 2>/dev/null; then
    _bed_pdeath="setpriv --pdeathsig TERM"
  fi
  mkdir -p "$BED_DIR/ns" "$BED_DIR/wire" "$BED_DIR/bg" || return 1
  BED_READY=1
}

# bed_public: set up the caller's namespace as the public segment: lo up, IPv6 off, the
# guard, bridge pub0 with 203.0.113.10/24 (where a test runs its servers), up, and a default
# route into nowhere.
bed_public() {
  _bed_ns_basics "" || return 1
  # STP off and no forward delay: ports forward at once. No multicast snooping: with it the
  # bridge joins 224.0.0.106 and sends IGMP reports, which the guard would count.
  ip link add pub0 type bridge stp_state 0 forward_delay 0 mcast_snooping 0 || return 1
  ip addr add "$BED_PUBLIC_ADDR/24" dev pub0 || return 1
  ip link set dev pub0 up || return 1
  # A default route to "the internet": a next hop no one answers for (a static neighbour),
  # so what a server sends to an address no site has (a peer's private host candidate, say)
  # is lost on the wire, as on a real network, instead of failing the send with "Network is
  # unreachable": coturn ends an allocation whose relay socket sees that error.
  ip neigh add 203.0.113.254 lladdr 02:00:00:00:00:fe dev pub0 nud permanent || return 1
  ip route add default via 203.0.113.254 dev pub0
}

# bed_site NAME LANPREFIX NAT WANADDR: a home network: namespaces NAME_router and NAME_host,
# the router's wan (WANADDR/24) cabled to pub0 through pub_NAME, its lan (LANPREFIX.1/24)
# cabled to the host's eth0 (LANPREFIX.10/24, default route via LANPREFIX.1). NAT: cone or
# symmetric. e.g. bed_site a 192.0.2 cone 203.0.113.1
bed_site() {
  [ $# -eq 4 ] || { _bed_die "usage: bed_site NAME LANPREFIX cone|symmetric WANADDR"; return 1; }
  _bed_name=$1 _bed_lan=$2 _bed_nat=$3 _bed_wan=$4
  case $_bed_nat in
    cone) _bed_how="masquerade" ;;
    symmetric) _bed_how="masquerade random" ;;
    *) _bed_die "NAT must be cone or symmetric, not $_bed_nat"; return 1 ;;
  esac
  # pub_NAME must fit IFNAMSIZ (15 characters)
  case $_bed_name in
    *[!a-z0-9]* | "" | ?????????*) _bed_die "site name must be 1-8 of [a-z0-9]: $_bed_name"; return 1 ;;
  esac
  _bed_ns_new "${_bed_name}_router" || return 1
  _bed_ns_new "${_bed_name}_host" || return 1
  _bed_r=$(bed_nsfile "${_bed_name}_router")
  _bed_h=$(bed_nsfile "${_bed_name}_host")

  _bed_wire_start "${_bed_name}_wan" "$BED_PUBLIC_NSFILE" "pub_$_bed_name" "$_bed_r" wan || return 1
  ip link set dev "pub_$_bed_name" master pub0 || return 1
  ip link set dev "pub_$_bed_name" up || return 1
  bed_in "${_bed_name}_router" ip addr add "$_bed_wan/24" dev wan || return 1
  bed_in "${_bed_name}_router" ip link set dev wan up || return 1

  _bed_wire_start "${_bed_name}_lan" "$_bed_r" lan "$_bed_h" eth0 || return 1
  bed_in "${_bed_name}_router" ip addr add "$_bed_lan.1/24" dev lan || return 1
  bed_in "${_bed_name}_router" ip link set dev lan up || return 1
  bed_in "${_bed_name}_host" ip addr add "$_bed_lan.10/24" dev eth0 || return 1
  bed_in "${_bed_name}_host" ip link set dev eth0 up || return 1
  bed_in "${_bed_name}_host" ip route add default via "$_bed_lan.1" || return 1
  echo "$_bed_lan" > "$BED_DIR/ns/${_bed_name}_host.lan"

  bed_in "${_bed_name}_router" sysctl -q -w net.ipv4.ip_forward=1 || return 1
  _bed_router_nat "${_bed_name}_router" "$_bed_how"
}

# bed_block_udp NAME [TCP_PORT]: the site's router drops all UDP from its LAN to the WAN (a
# network that lets only TCP out), and TCP to TCP_PORT too if given (one that lets only web
# ports out: TURN's 3478 dropped, TLS on 443 passes); bed_unblock_udp NAME lifts it.
bed_block_udp() {
  _bed_tcp_rule=
  [ -n "${2:-}" ] && _bed_tcp_rule="iifname \"lan\" oifname \"wan\" tcp dport $2 counter drop"
  bed_in "${1}_router" nft -f - <<EOF
table ip bedblock {
  chain block_fwd {
    type filter hook forward priority filter - 10; policy accept;
    iifname "lan" oifname "wan" meta l4proto udp counter drop
    $_bed_tcp_rule
  }
}
EOF
}

bed_unblock_udp() {
  bed_in "${1}_router" nft delete table ip bedblock
}

# bed_in NS CMD...: run CMD in namespace NS (NAME_host, NAME_router, or pub for the caller's
# own). In the background (bed_in a_host cmd & p=$!) $! is the PID of a subshell that waits
# for CMD, not CMD's; killing it still ends CMD, which gets SIGTERM when its parent dies.
# bed_bg gives CMD's own PID, and bed_cleanup kills what bed_bg started.
bed_in() {
  _bed_pid=$(bed_pid "$1") || return 1
  shift
  # shellcheck disable=SC2086 # _bed_pdeath is a command prefix, split on purpose
  if [ -z "$_bed_pid" ]; then
    $_bed_pdeath "$@"
  else
    nsenter -t "$_bed_pid" -n -- $_bed_pdeath "$@"
  fi
}

# bed_in_router NAME CMD... / bed_in_host NAME CMD...: bed_in NAME_router / NAME_host.
bed_in_router() {
  _bed_ns=${1}_router
  shift
  bed_in "$_bed_ns" "$@"
}

bed_in_host() {
  _bed_ns=${1}_host
  shift
  bed_in "$_bed_ns" "$@"
}

# bed_bg NS CMD...: start CMD in the background in NS; BED_PID is then its PID (nsenter
# execs CMD, so signalling BED_PID signals CMD). bed_cleanup kills it if it is still there.
# Redirect on the call: bed_bg a_host zq sub ... > "$dir/sub.log" 2>&1
bed_bg() {
  _bed_pid=$(bed_pid "$1") || return 1
  shift
  # shellcheck disable=SC2086 # _bed_pdeath is a command prefix, split on purpose
  if [ -z "$_bed_pid" ]; then
    $_bed_pdeath "$@" &
  else
    nsenter -t "$_bed_pid" -n -- $_bed_pdeath "$@" &
  fi
  BED_PID=$!
  : > "$BED_DIR/bg/$BED_PID"
}

# bed_pid NS: the PID whose network namespace is NS (empty for pub: the caller's own).
bed_pid() {
  if [ "$1" = "$BED_NS_PUBLIC" ]; then
    echo ""
    return 0
  fi
  [ -f "$BED_DIR/ns/$1.pid" ] || { _bed_die "no namespace $1"; return 1; }
  cat "$BED_DIR/ns/$1.pid"
}

# bed_nsfile NS: /proc/PID/ns/net of NS (for tools that take a namespace file).
bed_nsfile() {
  if [ "$1" = "$BED_NS_PUBLIC" ]; then
    echo "$BED_PUBLIC_NSFILE"
  else
    _bed_p=$(bed_pid "$1") || return 1
    echo "/proc/$_bed_p/ns/net"
  fi
}

# bed_link_down NAME / bed_link_up NAME: take the host's eth0 down / up. Down also removes
# its routes (the kernel flushes them), so up puts the default route back.
bed_link_down() {
  bed_in "${1}_host" ip link set dev eth0 down
}

bed_link_up() {
  _bed_lan=$(cat "$BED_DIR/ns/${1}_host.lan") || return 1
  bed_in "${1}_host" ip link set dev eth0 up || return 1
  bed_in "${1}_host" ip route replace default via "$_bed_lan.1"
}

# bed_cut NAME [lan|wan] / bed_mend NAME [lan|wan]: make the site's LAN (default) or WAN
# cable drop every frame / carry them again, with no link state change on either side (a
# lossy path, not an unplugged cable). The wire toggles on SIGUSR1; the state kept here makes
# both idempotent.
bed_cut() {
  _bed_wire_set "$1_${2:-lan}" cut
}

bed_mend() {
  _bed_wire_set "$1_${2:-lan}" ok
}

# bed_guard_count: packets the guards dropped, summed over every namespace of the bed.
bed_guard_count() {
  {
    nft list table inet bedguard
    for _bed_f in "$BED_DIR"/ns/*.pid; do
      [ -f "$_bed_f" ] || continue
      nsenter -t "$(cat "$_bed_f")" -n -- nft list table inet bedguard
    done
  } 2>/dev/null | awk '{ for (i = 1; i < NF; i++) if ($i == "packets") n += $(i + 1) }
                       END { print n + 0 }'
}

# bed_cleanup: kill background commands, wires and namespace holders; remove pub0. Safe to
# call twice (trap EXIT and an explicit call).
bed_cleanup() {
  # nothing to undo (and no pub0 to delete from a namespace bed_init refused)
  [ -n "${BED_READY:-}" ] || return 0
  _bed_kill_all "$BED_DIR/bg"/*
  _bed_kill_all "$BED_DIR/wire"/*.pid
  _bed_kill_all "$BED_DIR/ns"/*.pid
  ip link del pub0 2>/dev/null
  return 0
}

# ---- internals ------------------------------------------------------------------------

_bed_die() {
  echo "bed: $*" >&2
}

# Kill the PIDs named by files (a file's content, or its name when it is empty) and reap
# them, so nothing the bed started outlives it.
_bed_kill_all() {
  _bed_list=
  for _bed_f in "$@"; do
    [ -f "$_bed_f" ] || continue
    _bed_p=$(cat "$_bed_f")
    [ -n "$_bed_p" ] || _bed_p=${_bed_f##*/}
    rm -f "$_bed_f"
    kill "$_bed_p" 2>/dev/null && _bed_list="$_bed_list $_bed_p"
  done
  for _bed_p in $_bed_list; do
    wait "$_bed_p" 2>/dev/null
  done
}

# A new namespace NS held by a sleeping process; its PID goes to WORKDIR/ns/NS.pid.
_bed_ns_new() {
  [ ! -f "$BED_DIR/ns/$1.pid" ] || { _bed_die "namespace $1 exists"; return 1; }
  # shellcheck disable=SC2086 # _bed_pdeath is a command prefix, split on purpose
  $_bed_pdeath unshare -n sleep 1000000 &
  _bed_p=$!
  echo "$_bed_p" > "$BED_DIR/ns/$1.pid"
  # Until the child has called unshare() its /proc/PID/ns/net is still ours.
  _bed_i=0
  while [ "$(readlink "/proc/$_bed_p/ns/net" 2>/dev/null)" = "$(readlink /proc/self/ns/net)" ]; do
    _bed_i=$((_bed_i + 1))
    [ $_bed_i -lt 100 ] || { _bed_die "namespace $1 did not appear"; return 1; }
    sleep 0.02
  done
  [ -e "/proc/$_bed_p/ns/net" ] || { _bed_die "holder of $1 died"; return 1; }
  _bed_ns_basics "$_bed_p"
}

# lo up, IPv6 off (clean captures, no router solicitations), the guard; in the namespace of
# PID $1, or the caller's when empty.
_bed_ns_basics() {
  _bed_run "$1" ip link set dev lo up || return 1
  # default: for the taps created later; all: for lo. A kernel booted without IPv6 has
  # nothing to turn off.
  if [ -d /proc/sys/net/ipv6 ]; then
    _bed_run "$1" sysctl -q -w net.ipv6.conf.default.disable_ipv6=1 || return 1
    _bed_run "$1" sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 || return 1
  fi
  _bed_run "$1" nft -f - <<'EOF'
table inet bedguard {
  set bed4 {
    type ipv4_addr; flags interval;
    elements = { 127.0.0.0/8, 192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24 }
  }
  chain guard_out {
    type filter hook output priority filter; policy accept;
    ip daddr @bed4 accept
    ip6 daddr ::1 accept
    counter drop
  }
  chain guard_fwd {
    type filter hook forward priority filter; policy accept;
    ip daddr @bed4 accept
    counter drop
  }
}
EOF
}

# _bed_run PID CMD...: CMD in the namespace of PID, or in the caller's when PID is empty.
_bed_run() {
  _bed_t=$1
  shift
  if [ -z "$_bed_t" ]; then "$@"; else nsenter -t "$_bed_t" -n -- "$@"; fi
}

# Start a wire named $1 between $2:$3 and $4:$5 and wait for its "up": the taps exist only
# from then on.
_bed_wire_start() {
  _bed_w=$BED_DIR/wire/$1
  "$BED_WIRE" "$2" "$3" "$4" "$5" > "$_bed_w.out" 2> "$_bed_w.err" &
  echo $! > "$_bed_w.pid"
  echo ok > "$_bed_w.state"
  _bed_i=0
  until grep -q ' up$' "$_bed_w.out" 2>/dev/null; do
    if ! kill -0 "$(cat "$_bed_w.pid")" 2>/dev/null; then
      _bed_die "wire $1 failed: $(cat "$_bed_w.err")"
      return 1
    fi
    _bed_i=$((_bed_i + 1))
    [ $_bed_i -lt 250 ] || { _bed_die "wire $1 did not come up"; return 1; }
    sleep 0.02
  done
}

# Send the wire its SIGUSR1 toggle and wait for its "wire: cut"/"wire: mended" line, so the
# cable is in the new state when this returns (and no two toggles can merge into one).
_bed_wire_set() {
  _bed_w=$BED_DIR/wire/$1
  [ -f "$_bed_w.pid" ] || { _bed_die "no wire $1"; return 1; }
  [ "$(cat "$_bed_w.state")" != "$2" ] || return 0
  _bed_n=$(grep -c -E '^wire: (cut|mended)$' "$_bed_w.out")
  kill -USR1 "$(cat "$_bed_w.pid")" || return 1
  _bed_i=0
  while [ "$(grep -c -E '^wire: (cut|mended)$' "$_bed_w.out")" -le "$_bed_n" ]; do
    _bed_i=$((_bed_i + 1))
    [ $_bed_i -lt 250 ] || { _bed_die "wire $1 did not answer SIGUSR1"; return 1; }
    sleep 0.02
  done
  echo "$2" > "$_bed_w.state"
}

# The home router's NAT and filter, in namespace $1; $2 is the masquerade statement.
_bed_router_nat() {
  bed_in "$1" nft -f - <<EOF
table ip bednat {
  chain nat_post {
    type nat hook postrouting priority srcnat; policy accept;
    oifname "wan" $2
  }
  chain filter_fwd {
    type filter hook forward priority filter; policy accept;
    ct state established,related accept
    iifname "wan" counter drop
  }
  chain filter_in {
    type filter hook input priority filter; policy accept;
    ct state established,related accept
    iifname "wan" meta l4proto { tcp, udp } counter drop
  }
}
EOF
}
