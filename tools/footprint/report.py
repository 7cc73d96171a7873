#!/usr/bin/env python3
"""Prints the footprint tables of docs/footprint.md from the images scripts/footprint built.

  tools/footprint/report.py BUILD_ROOT TARGET...

BUILD_ROOT/TARGET/ is a configured and built tools/footprint tree (its CMakeCache.txt names
the target's nm). For each target it reads the linker maps (split by
library with mapsize.py), `nm -S` of the device images (the contexts main allocates) and of
the breakdown objects (structure sizes), and `nm -S -l` of the Cortex-M4 image (zq's flash by
source folder).

Flash is text + rodata; static RAM is data + bss, both after --gc-sections. The mbedTLS arena
is not measured here (nothing runs): its per-session figures come from bench/README.md
(`scripts/bench dtls`, x86-64, with allocator headers), an upper bound for 32-bit targets,
whose structures and block headers are smaller.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mapsize  # noqa: E402

# bench/README.md, "zq arena per connection" (x86-64, with block headers).
ARENA_BASELINE = 4728        # identity + client and server configs (two of each in the bench)
ARENA_HANDSHAKE_PEAK = 12824  # the server side, the larger
ARENA_ESTABLISHED = 5504      # the client side, the larger
PEERS = 4
KIB = 1024
# The flash goals (Cortex-M4, -Os; LTO allowed): the WebRTC stack alone, the sensor profile
# (ICE-lite, pub/sub, serves requests: the device_sensor image), everything on.
GOAL_STACK_FLASH = 40 * KIB
GOAL_SENSOR_FLASH = 60 * KIB
GOAL_ALL_FLASH = 76 * KIB
GOAL_PER_PEER = 16 * KIB
GOAL_DEVICE_RAM = 160 * KIB

# The contexts device_main.c allocates: zq's state, and the device's own buffers.
ZQ_CONTEXTS = ["dev_node", "dev_brk", "dev_ws", "dev_sensor", "dev_identity", "dev_dtls"]
DEVICE_BUFFERS = ["dev_frame", "dev_rx", "dev_stored_key", "dev_stored_cert"]

TARGET_NAMES = {"cortex-m4": "Cortex-M4", "rv32imc": "RV32IMC", "xtensa-lx106": "Xtensa"}


def nm(build):
    """The target's nm, as CMake found it."""
    with open(os.path.join(build, "CMakeCache.txt"), encoding="utf-8") as f:
        for line in f:
            if line.startswith("CMAKE_NM:"):
                return line.split("=", 1)[1].strip()
    sys.exit(f"report: no CMAKE_NM in {build}/CMakeCache.txt")


def nm_sizes(build, path):
    """{symbol: size} of the defined symbols of an object or image."""
    out = subprocess.run([nm(build), "-S", path], check=True, capture_output=True,
                         text=True).stdout
    sizes = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) == 4:
            sizes[f[3]] = int(f[1], 16)
    return sizes


def breakdown(build, variant):
    obj = os.path.join(build, "CMakeFiles", f"zq_fp_breakdown_{variant}.dir", "breakdown.c.obj")
    if not os.path.exists(obj):
        obj = obj[: -len(".obj")] + ".o"
    return {k[len("zq_fp_"):]: v for k, v in nm_sizes(build, obj).items() if k.startswith("zq_fp_")}


class Image:
    def __init__(self, build, name):
        parts = mapsize.parse(os.path.join(build, f"{name}.map"))
        zero = dict.fromkeys(mapsize.KINDS, 0)
        self.flash = {p: parts.get(p, zero)["text"] + parts.get(p, zero)["rodata"]
                      for p in ("zq", "mbedtls", "libc", "glue", "other")}
        self.ram = {p: parts.get(p, zero)["data"] + parts.get(p, zero)["bss"]
                    for p in ("zq", "mbedtls", "libc", "glue", "arena", "other")}
        syms = nm_sizes(build, os.path.join(build, f"zq_footprint_{name}"))
        self.contexts = {s: syms.get(s, 0) for s in ZQ_CONTEXTS}
        self.buffers = {s: syms.get(s, 0) for s in DEVICE_BUFFERS}
        self.arena = self.ram["arena"]

    def static_ram(self):
        """Everything but the arena."""
        return sum(v for k, v in self.ram.items() if k != "arena")

    def zq_ram(self):
        return self.ram["zq"] + sum(self.contexts.values())

    def other_glue_ram(self):
        return self.ram["glue"] - sum(self.contexts.values())


def kib(n):
    return f"{n / KIB:.1f}"


def row(*cells):
    print("| " + " | ".join(str(c) for c in cells) + " |")


def by_folder(build, name="zq_footprint_device"):
    """zq's flash in a Cortex-M4 image (the device image by default) by source folder, from
    named symbols."""
    image = os.path.join(build, name)
    out = subprocess.run([nm(build), "-S", "-l", image], check=True,
                         capture_output=True, text=True).stdout
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")) + "/"
    folders = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) < 5 or f[2] not in "TtRrWwVv":
            continue
        path = f[4].rsplit(":", 1)[0]
        if not path.startswith(root):
            continue
        rel = path[len(root):].split("/")
        folder = "/".join(rel[:2]) if rel[0] == "stack" else rel[0]
        folders[folder] = folders.get(folder, 0) + int(f[1], 16)
    return folders


def print_lto(images, targets):
    """The device image against its link-time optimised twin. The optimiser merges the device
    main into zq's code, so both sides count zq and the device main; the stub port, a plain
    object in both images, is left out of both."""
    cells = []
    for t in targets:
        plain, lto = images[t]["device"].flash, images[t]["device_lto"].flash
        before = plain["zq"] + plain["glue"] - lto["glue"]
        after = lto["zq"]
        cells.append(f"{TARGET_NAMES.get(t, t)} {after:,} against {before:,} "
                     f"({(after - before) / before * 100:+.1f} %)")
    print("With link-time optimisation (-flto; the device_lto image), zq and the device main: " +
          ", ".join(cells) + ". ESP-IDF builds components without it by default; a firmware "
          "build can turn it on.\n")


def stack_flash(build, image):
    """The WebRTC stack's share of zq's flash in @p image: core/, include/, stack/ (ICE, DTLS
    glue, SCTP, SDP, peer), named symbols."""
    folders = by_folder(build, image)
    return sum(v for k, v in folders.items() if k.startswith("stack/") or k in ("core", "include"))


def goal(n, limit):
    return f"{n:,} ({kib(n)} KiB): {'met' if n < limit else 'not met'}"


def print_flash_goals(root, m4):
    """The three flash goals on Cortex-M4, each with and without link-time optimisation (with
    it, the device main is merged into zq's code and counted in)."""
    build = os.path.join(root, "cortex-m4")
    print("Flash goals, Cortex-M4 -Os, zq's objects (with -flto: zq and the device main, which "
          "the optimiser merges):\n")
    row("goal", "limit", "-Os", "-Os -flto", "verdict (best)")
    row("---", "---:", "---:", "---:", "---")
    # The stack's rows have no -flto figure: the optimiser inlines across folders, so a
    # symbol's file no longer says which layer its code is (a stack-only image would).
    cells = [
        ("WebRTC stack alone (core/, include/, stack/), full ICE", GOAL_STACK_FLASH,
         stack_flash(build, "zq_footprint_device"), None),
        ("WebRTC stack alone, ICE-lite (the sensor profile)", GOAL_STACK_FLASH,
         stack_flash(build, "zq_footprint_device_sensor"), None),
        ("sensor profile: ICE-lite, pub/sub, serves requests", GOAL_SENSOR_FLASH,
         m4["device_sensor"].flash["zq"], m4["device_sensor_lto"].flash["zq"]),
        ("everything on", GOAL_ALL_FLASH, m4["device"].flash["zq"], m4["device_lto"].flash["zq"]),
    ]
    for label, limit, plain, lto in cells:
        best = plain if lto is None else min(plain, lto)
        row(label, f"{limit:,}", f"{plain:,}", "—" if lto is None else f"{lto:,}",
            goal(best, limit))
    print()


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    root, targets = sys.argv[1], sys.argv[2:]
    images = {}
    parts = {}
    for t in targets:
        b = os.path.join(root, t)
        names = ["device", "device_1", "device_2", "defaults", "device_lto"]
        if t == "cortex-m4":
            names += ["device_sensor", "device_sensor_lto"]
        images[t] = {n: Image(b, n) for n in names}
        parts[t] = {v: breakdown(b, v) for v in ("device", "defaults", "defaults_1",
                                                  "defaults_2")}

    print("### Flash (text + rodata, bytes; -Os, --gc-sections; device configuration)\n")
    row("target", "zq (its objects)", "mbedTLS", "libc + libgcc", "device main + stub port",
        "total")
    row("---", "---:", "---:", "---:", "---:", "---:")
    for t in targets:
        fl = images[t]["device"].flash
        row(TARGET_NAMES.get(t, t), f"{fl['zq']:,}", f"{fl['mbedtls']:,}", f"{fl['libc']:,}",
            f"{fl['glue'] + fl['other']:,}", f"{sum(fl.values()):,}")
    print()
    d = {t: images[t]["defaults"].flash["zq"] for t in targets}
    print("zq's flash with the defaults instead: " +
          ", ".join(f"{TARGET_NAMES.get(t, t)} {d[t]:,}" for t in targets) +
          " (capacities change data, not code; the difference is mostly the checksum tables the "
          "device configuration shrinks: ZQ_SCTP_CRC32C_SLICE8 0, ZQ_CRC32_BYTE_TABLE 0).\n")
    print_lto(images, targets)

    print("### Static RAM (data + bss, bytes; 4 peers)\n")
    row("target", "config", "zq: node_t", "brk_t", "ws_conn_t", "sensor, DTLS identity, context",
        "device buffers", "mbedTLS + libc", "static total", "per peer")
    row("---", "---", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:")
    for t in targets:
        for cfg in ("defaults", "device"):
            im = images[t][cfg]
            c = im.contexts
            if cfg == "device":
                per_peer = images[t]["device_2"].static_ram() - images[t]["device_1"].static_ram()
            else:
                p1, p2 = parts[t]["defaults_1"], parts[t]["defaults_2"]
                per_peer = (p2["node_t"] + p2["brk_t"]) - (p1["node_t"] + p1["brk_t"])
            small = c["dev_sensor"] + c["dev_identity"] + c["dev_dtls"]
            lib = im.ram["mbedtls"] + im.ram["libc"] + im.ram["other"] + im.ram["zq"]
            row(TARGET_NAMES.get(t, t), cfg, f"{c['dev_node']:,}", f"{c['dev_brk']:,}",
                f"{c['dev_ws']:,}", f"{small:,}", f"{im.other_glue_ram():,}", f"{lib:,}",
                f"{im.static_ram():,}", f"{per_peer:,}")
    print()
    print("Per peer: the device configuration's images at 2 and 1 peers, subtracted; the "
          "defaults': node_t + brk_t at 2 and 1 peers (sizeof).\n")

    print(f"### A {PEERS}-peer device: static RAM + mbedTLS arena (bytes)\n")
    worst = ARENA_BASELINE + PEERS * ARENA_HANDSHAKE_PEAK
    steady = ARENA_BASELINE + (PEERS - 1) * ARENA_ESTABLISHED + ARENA_HANDSHAKE_PEAK
    row("target", "config", "static", f"+ arena, {PEERS} handshakes at once",
        f"+ arena, one handshake while {PEERS - 1} run", f"goal < {GOAL_DEVICE_RAM:,}")
    row("---", "---", "---:", "---:", "---:", "---")
    for t in targets:
        for cfg in ("defaults", "device"):
            s = images[t][cfg].static_ram()
            ok = "met" if s + worst < GOAL_DEVICE_RAM else (
                "met with one handshake at a time" if s + steady < GOAL_DEVICE_RAM else "not met")
            row(TARGET_NAMES.get(t, t), cfg, f"{s:,}", f"{s + worst:,}", f"{s + steady:,}", ok)
    print()
    print(f"Arena (bench/README.md, x86-64, with allocator headers: an upper bound for 32-bit "
          f"targets): baseline {ARENA_BASELINE:,} (identity and configs), handshake peak "
          f"{ARENA_HANDSHAKE_PEAK:,}, established session {ARENA_ESTABLISHED:,}; {PEERS} "
          f"handshakes at once {worst:,}, one handshake while {PEERS - 1} sessions run "
          f"{steady:,}.\n")

    ref = "cortex-m4" if "cortex-m4" in targets else targets[0]
    print(f"### Per peer, where it goes ({TARGET_NAMES.get(ref, ref)}, bytes)\n")
    row("structure", "defaults", "device")
    row("---", "---:", "---:")
    p_def, p_dev = parts[ref]["defaults"], parts[ref]["device"]
    lines = [
        ("peer_t: SCTP send buffer", "peer_t__sctp_send_buf"),
        ("peer_t: SCTP receive buffer", "peer_t__sctp_recv_buf"),
        ("peer_t: event queue (peer_event_slot_t)", "peer_t__events"),
        ("peer_t: ICE agent", "peer_t__ice"),
        ("peer_t: SCTP association", "peer_t__sctp"),
        ("peer_t: DTLS connection (its record buffer: 1,200)", "peer_t__dtls"),
        ("peer_t: SCTP packet / SDP scratch (out)", "peer_t__out"),
        ("peer_t: data channels", "peer_t__dc"),
        ("peer_t (all)", "peer_t"),
        ("brk_peer_t (its frame reassembly buffer: ZQ_BRK_FRAME_MAX)", "brk_peer_t"),
        ("node_peer_t beyond its peer_t", None),
    ]
    for label, key in lines:
        if key is None:
            a = p_def["node_peer_t"] - p_def["peer_t"]
            b = p_dev["node_peer_t"] - p_dev["peer_t"]
        else:
            a, b = p_def[key], p_dev[key]
        row(label, f"{a:,}", f"{b:,}")
    print()
    print(f"peer_event_slot_t is {p_dev['peer_event_slot_t']} bytes (a candidate's line is "
          f"written when its event is polled); a peer queues {p_dev['peer_event_queue']} of "
          f"them (device), {p_def['peer_event_queue']} (defaults).\n")

    if ref == "cortex-m4":
        folders = by_folder(os.path.join(root, ref))
        named = sum(folders.values())
        total = images[ref]["device"].flash["zq"]
        print("### zq's flash by folder (Cortex-M4, device image, named symbols, bytes)\n")
        row("folder", "bytes")
        row("---", "---:")
        for k, v in sorted(folders.items(), key=lambda kv: -kv[1]):
            row(k, f"{v:,}")
        row("strings and other unnamed constants", f"{total - named:,}")
        row("zq (all)", f"{total:,}")
        print()

    print("### Goals\n")
    if "cortex-m4" in targets:
        print_flash_goals(root, images["cortex-m4"])
    for t in targets:
        im = images[t]
        name = TARGET_NAMES.get(t, t)
        per_peer = im["device_2"].static_ram() - im["device_1"].static_ram()
        s = im["device"].static_ram()
        print(f"- {name}: static RAM per peer (zq state + SCTP windows) under {GOAL_PER_PEER:,}: "
              f"device {per_peer:,}: {'met' if per_peer < GOAL_PER_PEER else 'not met'}; "
              f"with mbedTLS's arena per session {per_peer + ARENA_ESTABLISHED:,} established, "
              f"{per_peer + ARENA_HANDSHAKE_PEAK:,} while it handshakes")
        verdict = ("met" if s + worst < GOAL_DEVICE_RAM else
                   "met with one handshake at a time" if s + steady < GOAL_DEVICE_RAM else
                   "not met")
        print(f"- {name}: a {PEERS}-peer device under {GOAL_DEVICE_RAM:,} of RAM: device "
              f"{s + worst:,} with {PEERS} handshakes at once, {s + steady:,} with one at a "
              f"time: {verdict}")

if __name__ == "__main__":
    main()
