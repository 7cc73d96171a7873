#!/usr/bin/env python3
"""The feature switches' prices, from the footprint images of one target (scripts/footprint):
each device_no_<switch> image (one switch of include/zq/config.h off) and device_minimal (the
minimal profile, config/zq_minimal_config.h) against the device image. Prints the table of
docs/footprint.md, writes what it measured to BUILD_DIR/feature_costs.json and says how far it
is from the committed tools/footprint/feature_costs.json (the prices tools/gen_capacities.py
puts into each switch's Kconfig help); with --write it replaces the committed file. CI only
measures: a build that shifts a price by a few bytes does not fail, the drift is printed.

    features.py BUILD_DIR [--write]      (BUILD_DIR: build-footprint/cortex-m4)

Flash is text + rodata and RAM data + bss of the whole image (zq, mbedTLS, libc, the device
main), so code another layer keeps only for the feature counts too. No switch changes what a
peer costs (brk_peer_t and peer_t keep their size), so the per-peer figure is 0.
"""
import json
import os
import sys

import mapsize

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
COSTS = os.path.join(ROOT, "tools", "footprint", "feature_costs.json")
SWITCHES = ["ZQ_BRK_WORK_QUEUES", "ZQ_BRK_REQUEST_CLIENT", "ZQ_BRK_REQUEST_SERVER",
            "ZQ_BRK_ZEROQ_COMPAT", "ZQ_BRK_CHUNKING", "ZQ_ICE_FULL", "ZQ_NODE_TURN"]
# Switches the device configuration leaves off: priced by an image with each on.
SWITCHES_ON = ["ZQ_NODE_TURN_STREAM"]
CONFIG = "config/zq_device_config.h (4 peers)"
TARGET = "Cortex-M4 -Os"


def sizes(build, name):
    """(flash, static RAM) of image @p name, the arena left out (it is not zq's to save)."""
    parts = mapsize.parse(os.path.join(build, f"{name}.map"))
    flash = sum(v["text"] + v["rodata"] for v in parts.values())
    ram = sum(v["data"] + v["bss"] for k, v in parts.items() if k != "arena")
    return flash, ram


def image_of(switch):
    return "device_no_" + switch[len("ZQ_"):].lower()


def image_with(switch):
    return "device_with_" + switch[len("ZQ_"):].lower()


def main():
    args = [a for a in sys.argv[1:] if a != "--write"]
    if len(args) != 1:
        sys.exit(__doc__)
    build = args[0]
    flash0, ram0 = sizes(build, "device")
    costs = {}
    print(f"\n### Feature switches (saved when off; {CONFIG}, {TARGET}, bytes)\n")
    print("| switch off | flash saved | RAM saved | per peer |")
    print("|---|---:|---:|---:|")
    for s in SWITCHES:
        flash, ram = sizes(build, image_of(s))
        costs[s] = {"flash": flash0 - flash, "ram": ram0 - ram, "ram_per_peer": 0}
        print(f"| `{s}` | {flash0 - flash:,} | {ram0 - ram:,} | 0 |")
    for s in SWITCHES_ON:
        flash, ram = sizes(build, image_with(s))
        costs[s] = {"flash": flash - flash0, "ram": ram - ram0, "ram_per_peer": 0, "on": True}
        print(f"| `{s}` (off on the device: what turning it on adds) | {flash - flash0:,} | "
              f"{ram - ram0:,} | 0 |")
    flash, ram = sizes(build, "device_minimal")
    print(f"| minimal profile (config/zq_minimal_config.h) | {flash0 - flash:,} | "
          f"{ram0 - ram:,} | 0 |")
    print(f"\nThe device image with every feature: flash {flash0:,}, static RAM {ram0:,}; in "
          f"the minimal profile: flash {flash:,}, static RAM {ram:,}.\n")
    doc = {"config": CONFIG, "target": TARGET, "features": costs,
           "minimal": {"flash": flash0 - flash, "ram": ram0 - ram}}
    measured = os.path.join(build, "feature_costs.json")
    write_json(measured, doc)
    report_drift(doc)
    if "--write" in sys.argv:
        write_json(COSTS, doc)
        print(f"features: wrote {os.path.relpath(COSTS, ROOT)}; run tools/gen_capacities.py",
              file=sys.stderr)


def write_json(path, doc):
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps(doc, indent=2) + "\n")


def report_drift(doc):
    """Prints each price that moved against the committed file (Kconfig quotes those)."""
    with open(COSTS, encoding="utf-8") as f:
        committed = json.load(f)["features"]
    moved = [(s, committed.get(s, {}).get(k, 0), v[k])
             for s, v in doc["features"].items() for k in ("flash", "ram")
             if committed.get(s, {}).get(k, 0) != v[k]]
    for switch, old, new in moved:
        print(f"features: {switch} price moved {old:,} -> {new:,} B against the committed "
              f"{os.path.relpath(COSTS, ROOT)} (scripts/footprint --write-costs updates it)",
              file=sys.stderr)
    if not moved:
        print("features: the committed prices match this build", file=sys.stderr)


if __name__ == "__main__":
    main()
