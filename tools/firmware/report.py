#!/usr/bin/env python3
"""The firmware image's footprint from its own linker maps (scripts/firmware report).

  tools/firmware/report.py build-firmware [--arena-peak BYTES] [--stack-peak BYTES]

Reads zq_firmware.map (4 peers), zq_firmware_2.map, zq_firmware_1.map and zq_firmware_wss.map
and prints, as a Markdown table, flash (text + rodata + data's load image) and static RAM (data + bss) by part:

  zq        the portable core, node, broker, app/ and host/ (libzq_firmware*_core.a, without
            the port's objects below)
  port      port/lwip, port/ws, port/arena (the same library: split by object name)
  arena     mbedTLS's arena (port/lwip/mbedtls_arena.c's arena_buf), a static buffer
  mbedtls   libzq_mbedtls.a
  lwip      libzq_lwip.a: lwIP with the board's lwipopts.h (its heap and pools included)
  board     libzq_board.a (the board's code and its driver's state)
  main      firmware/main.c: the runner's state (node and peers, broker, host, WebSocket
            buffers, UDP receive buffer) and the three apps' (the echo's relay buffers)
  libc      newlib-nano, libgcc
  stack     the main stack (the linker script's .stack: __stack_top - __stack_bottom)

then what one more peer costs (the 4-peer image against the 2-peer one, halved), what wss://
costs (zq_firmware_wss, mbedTLS with TLS, against zq_firmware, by part), and the
all-in RAM of the device goal: static RAM with the arena counted at its measured peak and the
stack at its measured high-water mark instead of their reservations, when the test's figures
are given (tests/firmware/run.mjs prints both).
"""
import argparse
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "footprint"))
import mapsize  # noqa: E402

PORT_OBJECTS = {"runner", "port_udp", "port_tcp", "port_sys", "port_netif", "mbedtls_arena",
                "config_block", "format", "libc_format", "ws_device", "ws_socket", "ws_link",
                "wall_clock", "arena"}
PARTS = ("zq", "main", "port", "arena", "mbedtls", "lwip", "board", "libc", "other")
GOAL_ALL_IN = 128 * 1024
GOAL_PER_PEER = 12 * 1024


def classify(origin, section):
    if section.endswith("arena_buf"):
        return "arena"
    m = re.search(r"libzq_firmware\w*_core\.a\((\w+)\.c\.obj\)", origin)
    if m:
        return "port" if m.group(1) in PORT_OBJECTS else "zq"
    if re.search(r"libzq_mbedtls(_wss)?\.a", origin):
        return "mbedtls"
    if "libzq_lwip.a" in origin:
        return "lwip"
    if "libzq_board.a" in origin:
        return "board"
    if "main.c.obj" in origin:
        return "main"
    if re.search(r"lib(c|c_nano|g|g_nano|gcc|m)\.a|crt\w*\.o", origin):
        return "libc"
    return "other"


def stack_size(elf):
    out = subprocess.run(["arm-none-eabi-nm", elf], capture_output=True, text=True,
                         check=True).stdout
    sym = {f[2]: int(f[0], 16) for f in (line.split() for line in out.splitlines())
           if len(f) == 3}
    return sym["__stack_top"] - sym["__stack_bottom"]


class Image:
    def __init__(self, build, name):
        self.sizes = mapsize.parse(os.path.join(build, name + ".map"), classify)
        self.stack = stack_size(os.path.join(build, name + ".elf"))

    def part(self, name):
        return self.sizes.get(name, dict.fromkeys(mapsize.KINDS, 0))

    def flash(self, name):
        s = self.part(name)
        return s["text"] + s["rodata"] + s["data"]

    def ram(self, name):
        s = self.part(name)
        return s["data"] + s["bss"]

    def total_flash(self):
        return sum(self.flash(p) for p in PARTS)

    def total_ram(self):
        return sum(self.ram(p) for p in PARTS) + self.stack


def n(v):
    return f"{v:,}"


def wss_costs(plain, wss):
    """What TLS adds to the image, by part: zq_firmware_wss against zq_firmware."""
    print()
    print("What wss:// adds (zq_firmware_wss against zq_firmware, 4 peers):")
    print()
    print("| part | flash | static RAM |")
    print("|---|---:|---:|")
    for p in PARTS:
        df, dr = wss.flash(p) - plain.flash(p), wss.ram(p) - plain.ram(p)
        if df or dr:
            print(f"| {p} | {df:+,} | {dr:+,} |")
    print(f"| **total** | **{wss.total_flash() - plain.total_flash():+,}** | "
          f"**{wss.total_ram() - plain.total_ram():+,}** |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build")
    ap.add_argument("--arena-peak", type=int, help="the arena's measured peak (bytes)")
    ap.add_argument("--stack-peak", type=int, help="the stack's measured high-water (bytes)")
    args = ap.parse_args()
    four = Image(args.build, "zq_firmware")
    two = Image(args.build, "zq_firmware_2")
    one = Image(args.build, "zq_firmware_1")

    print("| part | flash | static RAM |")
    print("|---|---:|---:|")
    for p in PARTS:
        if four.flash(p) or four.ram(p):
            print(f"| {p} | {n(four.flash(p))} | {n(four.ram(p))} |")
    print(f"| stack (reserved) | | {n(four.stack)} |")
    print(f"| **total, 4 peers** | **{n(four.total_flash())}** | **{n(four.total_ram())}** |")
    print()
    per_peer = (four.total_ram() - two.total_ram()) // 2
    per_peer_flash = (four.total_flash() - two.total_flash()) // 2
    print(f"- 1 peer: static RAM {n(one.total_ram())}; 2 peers: {n(two.total_ram())}; "
          f"4 peers: {n(four.total_ram())}")
    verdict = "met" if per_peer < GOAL_PER_PEER else "not met"
    print(f"- one more peer: static RAM {n(per_peer)} (goal < {n(GOAL_PER_PEER)}: {verdict}), "
          f"flash {n(per_peer_flash)}; mbedTLS's arena adds its session on top (measured)")
    wss_costs(four, Image(args.build, "zq_firmware_wss"))
    arena = four.ram("arena")
    if args.arena_peak is not None and args.stack_peak is not None:
        all_in = four.total_ram() - arena - four.stack + args.arena_peak + args.stack_peak
        verdict = "met" if all_in < GOAL_ALL_IN else "not met"
        print(f"- all-in, 4 peers: static RAM without the arena's and the stack's reservations "
              f"{n(four.total_ram() - arena - four.stack)} + arena peak {n(args.arena_peak)} + "
              f"stack high-water {n(args.stack_peak)} = {n(all_in)} (goal < {n(GOAL_ALL_IN)}: "
              f"{verdict})")
    else:
        print(f"- all-in, 4 peers, with the arena's ({n(arena)}) and the stack's reservations: "
              f"{n(four.total_ram())} (goal < {n(GOAL_ALL_IN)})")


if __name__ == "__main__":
    main()
