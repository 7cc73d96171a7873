#!/usr/bin/env python3
"""Splits a GNU ld map file (-Wl,-Map) by where each kept input section came from.

Prints one line per part: "part text rodata data bss", in bytes, for the parts
  zq      libzq_core.a or libzq_fp_core_*.a (the portable core, node, broker, app/); in a
          link-time optimised image, the optimiser's output (*.ltrans.o), which holds the
          device main too
  mbedtls libzq_mbedtls.a
  libc    the C library, libgcc, the C runtime start files
  glue    the footprint image's own main and stub port
  arena   mbedTLS's static arena (the symbol footprint_arena), reported on its own
  other   linker-generated padding
then a "total" line. Only input sections the link kept are listed in a map's memory map, so
this is the footprint after --gc-sections. Debug sections are ignored.

  tools/footprint/mapsize.py build/zq_footprint.map
"""
import re
import sys

KINDS = ("text", "rodata", "data", "bss")

# Output sections by kind (GNU ld names across the ARM, RISC-V and Xtensa default scripts).
OUT_KIND = [
    (re.compile(r"^\.(text|init|fini|literal|iram|plt|ARM\.ex|eh_frame|gcc_except)"), "text"),
    (re.compile(r"^\.(rodata|srodata|sdata2|init_array|fini_array|preinit_array|ctors|dtors|got)"),
     "rodata"),
    (re.compile(r"^\.(data|sdata|tdata)"), "data"),
    (re.compile(r"^\.(bss|sbss|tbss|noinit)"), "bss"),
]

# Input sections by kind: picolibc's scripts put .rodata inside the .text output section.
IN_KIND = [
    (re.compile(r"^\.(rodata|srodata|rdata|sdata2)"), "rodata"),
    (re.compile(r"^\.(text|literal|init|fini)"), "text"),
    (re.compile(r"^\.(data|sdata|tdata)"), "data"),
    (re.compile(r"^(\.(bss|sbss|tbss)|COMMON)"), "bss"),
]

INPUT = re.compile(r"^\s+(0x[0-9a-fA-F]+)\s+(0x[0-9a-fA-F]+)\s+(\S.*)$")


def out_kind(name):
    for pattern, kind in OUT_KIND:
        if pattern.match(name):
            return kind
    return None


def in_kind(section, out):
    for pattern, kind in IN_KIND:
        if pattern.match(section):
            return kind
    return out


def part_of(origin, section):
    if section.endswith("footprint_arena"):
        return "arena"
    if re.search(r"libzq(_fp)?_core|\.ltrans\.o", origin):
        return "zq"
    if "libzq_mbedtls.a" in origin:
        return "mbedtls"
    if "device_main" in origin or "stub_port" in origin:
        return "glue"
    libc = r"lib(c|c_nano|g|g_nano|gcc|nosys|m|semihost|dummyhost)\.a|crt\w*\.o|picolibc"
    if re.search(libc, origin) or "stub_libc" in origin:
        return "libc"
    return "other"


def parse(path, classify=None):
    """Sizes by part and kind; @p classify(origin, section) names the part (part_of)."""
    classify = classify or part_of
    sizes = {}
    kind = None
    pending = None  # an input section name whose address and size are on the next line
    in_map = False
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("Linker script and memory map"):
                in_map = True
                continue
            if not in_map or not line:
                continue
            if not line[0].isspace():
                kind = out_kind(line.split()[0])
                pending = None
                continue
            if kind is None:
                continue
            stripped = line.strip()
            if stripped.startswith("*fill*"):
                fields = stripped.split()
                if len(fields) >= 3:
                    add(sizes, "other", kind, int(fields[2], 16))
                continue
            m = INPUT.match(line)
            if m and pending is not None:
                add(sizes, classify(m.group(3), pending), in_kind(pending, kind),
                    int(m.group(2), 16))
                pending = None
                continue
            fields = stripped.split()
            if fields[0].startswith(".") or fields[0] == "COMMON":
                if len(fields) == 1:
                    pending = fields[0]
                elif len(fields) >= 4 and fields[1].startswith("0x") and fields[2].startswith("0x"):
                    add(sizes, classify(" ".join(fields[3:]), fields[0]), in_kind(fields[0], kind),
                        int(fields[2], 16))
                    pending = None
            else:
                pending = None
    return sizes


def add(sizes, part, kind, n):
    sizes.setdefault(part, dict.fromkeys(KINDS, 0))[kind] += n


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sizes = parse(sys.argv[1])
    total = dict.fromkeys(KINDS, 0)
    for part in ("zq", "mbedtls", "libc", "glue", "arena", "other"):
        s = sizes.get(part, dict.fromkeys(KINDS, 0))
        print(part, *(s[k] for k in KINDS))
        for k in KINDS:
            total[k] += s[k]
    print("total", *(total[k] for k in KINDS))


if __name__ == "__main__":
    main()
