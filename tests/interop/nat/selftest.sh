#!/bin/sh
# selftest.sh WIRE_BINARY: proves the NAT test bed (bed.sh) does what the NAT tests will rely
# on, with real traffic: reachability, the mapping and filtering of both NAT kinds, a site
# with UDP blocked, a host link going down and up, a cut cable, and that the guards dropped
# nothing. Run it in a fresh network namespace, which becomes the public segment:
#
#   unshare -n sh tests/interop/nat/selftest.sh /tmp/natbed/wire
#
# Prints "ok: ..." or "FAIL: ..." per check; exits 1 if any failed.
set -u
[ $# -eq 1 ] || { echo "usage: selftest.sh WIRE_BINARY" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
wire=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
# shellcheck source-path=SCRIPTDIR source=bed.sh
. "$here/bed.sh"

work=$(mktemp -d /tmp/natbed-selftest.XXXXXX)
failures=0
# shellcheck disable=SC2317 # called by the trap
finish() {
  bed_cleanup
  rm -rf "$work"
}
trap finish EXIT
trap 'exit 1' INT TERM

ok() { echo "ok: $*"; }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# check DESCRIPTION CMD...: CMD must succeed; its output is kept in $out for the caller.
check() {
  _what=$1
  shift
  if out=$("$@" 2>&1); then ok "$_what ($out)"; else fail "$_what ($out)"; fi
}

# refute DESCRIPTION CMD...: CMD must fail.
refute() {
  _what=$1
  shift
  if out=$("$@" 2>&1); then fail "$_what ($out)"; else ok "$_what ($out)"; fi
}

# Resolve python3 once: a version manager's shim costs a process tree per call.
py=$(python3 -c 'import sys; print(sys.executable)') || { echo "FAIL: needs python3"; exit 1; }
probe() {
  _ns=$1
  shift
  bed_in "$_ns" "$py" "$here/probe.py" "$@"
}

pub=203.0.113.10
bed_init "$wire" "$work" || exit 1
bed_public || { echo "FAIL: bed_public"; exit 1; }
bed_site a 192.0.2 cone 203.0.113.1 || { echo "FAIL: bed_site a"; exit 1; }
bed_site b 198.51.100 symmetric 203.0.113.2 || { echo "FAIL: bed_site b"; exit 1; }
ok "bed built: sites a (cone) and b (symmetric)"

bed_bg pub "$py" "$here/probe.py" server "$pub" 3478 3479 --poke 3480 > "$work/server.log" 2>&1
server=$BED_PID
i=0
until grep -q ready "$work/server.log"; do
  i=$((i + 1))
  [ $i -lt 100 ] || { echo "FAIL: probe server did not start: $(cat "$work/server.log")"; exit 1; }
  sleep 0.05
done

# ---- reachability
check "host a reaches the public server" probe a_host ping "$pub"
check "host b reaches the public server" probe b_host ping "$pub"
refute "host a cannot reach host b's LAN address" probe a_host ping 198.51.100.10 1
refute "host b cannot reach host a's LAN address" probe b_host ping 192.0.2.10 1

# ---- mapping: one socket, two server ports
lport=40000
if out=$(probe a_host map "$lport" "$pub" 3478 3479 2>&1); then
  # shellcheck disable=SC2086 # split into words on purpose
  set -- $out # local L mapped M1 M2
  if [ "$4" = "$5" ] && [ "$4" = "$2" ]; then
    ok "cone site a: one mapping for both server ports, source port kept ($out)"
  else
    fail "cone site a: mapping should be endpoint-independent and keep port $2 ($out)"
  fi
else
  fail "cone site a: mapping probe ($out)"
fi
if out=$(probe b_host map "$lport" "$pub" 3478 3479 2>&1); then
  # shellcheck disable=SC2086 # split into words on purpose
  set -- $out
  if [ "$4" != "$5" ]; then
    ok "symmetric site b: a new mapping per server port ($out)"
  else
    fail "symmetric site b: both server ports saw the same mapping ($out)"
  fi
else
  fail "symmetric site b: mapping probe ($out)"
fi

# ---- filtering: the server's other port may not send through a's mapping
check "cone site a: port-restricted filtering (reply passes, other source port dropped)" \
  probe a_host filter 40001 "$pub" 3478
check "symmetric site b: unsolicited from another port dropped" \
  probe b_host filter 40001 "$pub" 3478

# ---- a site with UDP blocked: TCP still goes out
bed_block_udp b
refute "UDP blocked at site b: no UDP answer" probe b_host udp "$pub" 3478 1
check "UDP blocked at site b: TCP still connects" probe b_host tcp "$pub" 3478
bed_unblock_udp b
check "UDP unblocked at site b: UDP answers again" probe b_host udp "$pub" 3478

# ---- host link down and up
bed_link_down a
refute "host a's link down: no ping" probe a_host ping "$pub" 1
bed_link_up a
check "host a's link up again: ping" probe a_host ping "$pub"

# ---- cut cable (frames dropped, link state untouched)
bed_cut a
refute "site a's LAN cable cut: no ping" probe a_host ping "$pub" 1
bed_mend a
check "site a's LAN cable mended: ping" probe a_host ping "$pub"

# ---- nothing left the bed
n=$(bed_guard_count)
if [ "$n" = 0 ]; then ok "guards dropped nothing"; else fail "guards dropped $n packets"; fi

# ---- clean up, then make sure nothing the bed started is left
holders=$(cat "$work"/ns/*.pid)
wires=$(cat "$work"/wire/*.pid)
bed_cleanup
left=
for p in $server $holders $wires; do
  kill -0 "$p" 2>/dev/null && left="$left $p"
done
# pgrep -P $$: any child of this shell still running (pgrep leaves itself out)
kids=$(pgrep -P $$)
if [ -z "$left" ] && [ -z "$kids" ]; then
  ok "cleanup left no processes"
else
  fail "cleanup left processes:$left $kids"
fi

if [ $failures -eq 0 ]; then
  echo "selftest: all passed"
  exit 0
fi
echo "selftest: $failures failed"
exit 1
