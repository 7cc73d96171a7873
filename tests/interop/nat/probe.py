#!/usr/bin/env python3
"""Traffic probes for the NAT test bed (tests/interop/nat/bed.sh, tests/interop/nat/selftest.sh).

Run inside a bed namespace (bed_in NS python3 probe.py ...). Each subcommand prints one line
saying what it saw and exits 0 on success, 1 otherwise, so a shell test can both check and
log it. Only the Python standard library: the bed must not need more than python3, ip, nft.

  ping ADDR [TIMEOUT]                 ICMP echo; 0 if ADDR answers
  server ADDR PORT... --poke PORT     UDP echo of the source address seen on each PORT, a
                                      TCP listener on the first PORT; "ready" once bound
  map LPORT SERVER PORT1 PORT2        one UDP socket bound to LPORT asks both ports which
                                      address they saw: "local L mapped M1 M2"
  filter LPORT SERVER PORT            asks SERVER:PORT to send an unsolicited datagram from
                                      its poke port, then a reply from PORT: 0 if only the
                                      reply arrives (port-restricted filtering)
  udp SERVER PORT [TIMEOUT]           0 if one UDP request gets its echo
  tcp SERVER PORT [TIMEOUT]           0 if a TCP connect succeeds
"""
import os
import select
import socket
import struct
import sys
import time


def checksum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    s = (s >> 16) + (s & 0xFFFF)
    s += s >> 16
    return ~s & 0xFFFF


def ping(addr, timeout=2.0):
    # A raw socket rather than ping(8): iputils-ping is one more package, and this also sees
    # the router's "unreachable" at once instead of waiting out the deadline.
    ident = os.getpid() & 0xFFFF
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
    deadline = time.monotonic() + timeout
    seq = 0
    next_send = 0.0
    while True:
        now = time.monotonic()
        if now >= deadline:
            print("ping %s: no reply" % addr)
            return 1
        if now >= next_send:
            # resend every 0.3 s: the first echo can be lost while ARP settles
            seq += 1
            hdr = struct.pack("!BBHHH", 8, 0, 0, ident, seq)
            payload = b"natbed"
            pkt = struct.pack("!BBHHH", 8, 0, checksum(hdr + payload), ident, seq) + payload
            try:
                s.sendto(pkt, (addr, 0))
            except OSError as e:
                print("ping %s: %s" % (addr, e.strerror))
                return 1
            next_send = now + 0.3
        r, _, _ = select.select([s], [], [], min(deadline, next_send) - now)
        if not r:
            continue
        data, src = s.recvfrom(2048)
        ihl = (data[0] & 0x0F) * 4
        icmp_type = data[ihl]
        if icmp_type == 0 and src[0] == addr:
            (rid,) = struct.unpack("!H", data[ihl + 4 : ihl + 6])
            if rid == ident:
                print("ping %s: reply" % addr)
                return 0
        if icmp_type == 3:
            inner = data[ihl + 8 :]
            inner_ihl = (inner[0] & 0x0F) * 4
            (rid,) = struct.unpack("!H", inner[inner_ihl + 4 : inner_ihl + 6])
            if rid == ident:
                print("ping %s: unreachable (from %s)" % (addr, src[0]))
                return 1


def server(addr, ports, poke_port):
    udp = {}
    for p in ports:
        u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        u.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        u.bind((addr, p))
        udp[u] = p
    poke = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    poke.bind((addr, poke_port))
    tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    tcp.bind((addr, ports[0]))
    tcp.listen(16)
    print("ready", flush=True)
    while True:
        r, _, _ = select.select(list(udp) + [tcp], [], [])
        for s in r:
            if s is tcp:
                c, _ = tcp.accept()
                c.close()
                continue
            data, src = s.recvfrom(2048)
            seen = ("%s:%d" % src).encode()
            if data == b"poke":
                # from another port first: a port-restricted NAT must drop this one
                poke.sendto(b"unsolicited " + seen, src)
                time.sleep(0.3)
                s.sendto(b"control " + seen, src)
            else:
                s.sendto(b"seen " + seen, src)


def ask(sock, server_addr, port, msg=b"where", timeout=2.0):
    """Send msg until an answer comes from (server_addr, port); return its words."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        sock.sendto(msg, (server_addr, port))
        end = min(deadline, time.monotonic() + 0.4)
        while True:
            left = end - time.monotonic()
            if left <= 0:
                break
            r, _, _ = select.select([sock], [], [], left)
            if not r:
                break
            data, src = sock.recvfrom(2048)
            if src == (server_addr, port):
                return data.decode().split()
    return None


def udp_socket(lport=0):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("0.0.0.0", lport))
    return s


def mapping(lport, server_addr, p1, p2):
    s = udp_socket(lport)
    local = s.getsockname()[1]
    seen = []
    for p in (p1, p2):
        a = ask(s, server_addr, p)
        if not a:
            print("map: no answer from %s:%d" % (server_addr, p))
            return 1
        seen.append(a[1].rsplit(":", 1)[1])
    print("local %d mapped %s %s" % (local, seen[0], seen[1]))
    return 0


def filtering(lport, server_addr, port):
    s = udp_socket(lport)
    if not ask(s, server_addr, port):  # opens the mapping
        print("filter: no answer from %s:%d" % (server_addr, port))
        return 1
    s.sendto(b"poke", (server_addr, port))
    got = []
    deadline = time.monotonic() + 1.5
    while time.monotonic() < deadline:
        r, _, _ = select.select([s], [], [], deadline - time.monotonic())
        if r:
            data, src = s.recvfrom(2048)
            got.append("%s from %s:%d" % (data.decode().split()[0], src[0], src[1]))
    control = any(g.startswith("control") for g in got)
    unsolicited = any(g.startswith("unsolicited") for g in got)
    print("filter: got [%s]" % ", ".join(got))
    return 0 if control and not unsolicited else 1


def udp_once(server_addr, port, timeout=1.5):
    a = ask(udp_socket(), server_addr, port, timeout=timeout)
    print("udp %s:%d: %s" % (server_addr, port, " ".join(a) if a else "no answer"))
    return 0 if a else 1


def tcp_once(server_addr, port, timeout=2.0):
    try:
        socket.create_connection((server_addr, port), timeout=timeout).close()
    except OSError as e:
        print("tcp %s:%d: %s" % (server_addr, port, e))
        return 1
    print("tcp %s:%d: connected" % (server_addr, port))
    return 0


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    cmd, args = argv[1], argv[2:]
    if cmd == "ping":
        return ping(args[0], float(args[1]) if len(args) > 1 else 2.0)
    if cmd == "server":
        i = args.index("--poke")
        return server(args[0], [int(p) for p in args[1:i]], int(args[i + 1]))
    if cmd == "map":
        return mapping(int(args[0]), args[1], int(args[2]), int(args[3]))
    if cmd == "filter":
        return filtering(int(args[0]), args[1], int(args[2]))
    if cmd == "udp":
        return udp_once(args[0], int(args[1]), float(args[2]) if len(args) > 2 else 1.5)
    if cmd == "tcp":
        return tcp_once(args[0], int(args[1]), float(args[2]) if len(args) > 2 else 2.0)
    print("probe: unknown command %s" % cmd, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
