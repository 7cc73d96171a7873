#!/usr/bin/env python3
"""Writes, from include/zq/config.h alone, the capacity table of README.md and zq's symbols in
Kconfig, each between its BEGIN and END marker lines (regenerate, don't edit).

    tools/gen_capacities.py           rewrites both regions from config.h
    tools/gen_capacities.py --check   changes nothing; prints the difference and exits 1 when a
                                      region is not what config.h gives (ctest runs this)

config.h documents each macro with a comment whose first lines say what it bounds, followed
by lines starting "Unit:", "RAM:" and, for a symbol menuconfig offers, "menuconfig: <menu>,
"<prompt>", <min>..<max>, default <n>." (the ESP32 default), or for a feature switch
"menuconfig: <menu>, "<prompt>", bool, default y.". A configurable macro without its Unit and RAM
lines is an error, so a new capacity cannot go undocumented; a switch without a measured price
in tools/footprint/feature_costs.json (written by scripts/footprint --write-costs) is one too, so a new switch
cannot go unpriced.
"""
import json
import argparse
import difflib
import re
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "include/zq/config.h"
README = ROOT / "README.md"
KCONFIG = ROOT / "Kconfig"
COSTS = ROOT / "tools/footprint/feature_costs.json"
TOOL = "tools/gen_capacities.py"

SECTION = re.compile(r"^/\* ---- (.+?) -+ \*/$")
FIELD = re.compile(r"^(Unit|RAM|menuconfig):\s*(.*)$")
MENUCONFIG = re.compile(r'^([^,"]+), "([^"]+)", (\d+)\.\.(\d+), default (\d+)\.$')
MENUCONFIG_BOOL = re.compile(r'^([^,"]+), "([^"]+)", bool, default ([yn])\.$')
# A help line that port/esp32/gen_config.cmake or tools/esp-idf-stubs/gen_sdkconfig.py (which read
# the Kconfig line by line, not as kconfig does) would take for a symbol, a type or a dependency.
KCONFIG_SYNTAX = re.compile(r'^((menu)?config\s+[A-Z0-9_]+|depends\s+on\s+[A-Z0-9_]+|'
                            r'(int|bool|string|hex)\s+".*)$')


class Error(Exception):
    pass


def doc_fields(comment):
    """{'what': ..., 'Unit': ..., 'RAM': ..., 'menuconfig': ...} of a /** ... */ comment."""
    body = comment.strip()
    body = body[len("/**"):] if body.startswith("/**") else body
    body = body[:-len("*/")] if body.endswith("*/") else body
    fields = {"what": []}
    current = "what"
    for raw in body.split("\n"):
        line = raw.strip()
        line = line[1:].strip() if line.startswith("*") else line
        m = FIELD.match(line)
        if m:
            current = m.group(1)
            fields[current] = [m.group(2)]
        elif line:
            fields[current].append(line)
    return {k: " ".join(v).strip() for k, v in fields.items()}


def parse_config(text):
    """[(section, [entry...])] in file order; an entry is a dict of its macro and doc fields."""
    sections = []
    lines = text.split("\n")
    comment = None
    i = 0
    while i < len(lines):
        line = lines[i]
        m = SECTION.match(line)
        if m:
            if m.group(1) == "Cross-checks":
                break
            sections.append((m.group(1), []))
            comment = None
        elif line.startswith("/**"):
            start = i
            while not lines[i].rstrip().endswith("*/"):
                i += 1
            comment = "\n".join(lines[start:i + 1])
        elif sections and (line.startswith("#ifndef ZQ_") or line.startswith("#define ZQ_")):
            guarded = line.startswith("#ifndef")
            define = lines[i + 1] if guarded else line
            m = re.match(r"^#define (ZQ_[A-Z0-9_]+) (.+)$", define)
            if not m or (guarded and (m.group(1) != line.split()[1] or lines[i + 2] != "#endif")):
                raise Error(f"config.h:{i + 1}: expected #ifndef ZQ_X / #define ZQ_X value / #endif")
            if comment is None:
                raise Error(f"config.h:{i + 1}: {m.group(1)} has no /** comment */ above it")
            entry = dict(doc_fields(comment), name=m.group(1), value=m.group(2).strip(),
                         fixed=not guarded)
            check_entry(entry)
            sections[-1][1].append(entry)
            comment = None
            i += 2 if guarded else 0
        i += 1
    return sections


def check_entry(e):
    if e["fixed"]:
        return
    for field in ("Unit", "RAM"):
        if not e.get(field):
            raise Error(f"config.h: {e['name']} has no \"{field}:\" line in its comment")
    if "menuconfig" in e:
        m = MENUCONFIG_BOOL.match(e["menuconfig"])
        if m:
            menu, prompt, default = m.groups()
            e["kconfig"] = {"menu": menu.strip(), "prompt": prompt, "type": "bool",
                            "default": default}
            return
        m = MENUCONFIG.match(e["menuconfig"])
        if not m:
            raise Error(f"config.h: {e['name']}: menuconfig line is not "
                        f"'<menu>, \"<prompt>\", <min>..<max>, default <n>.': {e['menuconfig']}")
        menu, prompt, lo, hi, default = m.groups()
        if not int(lo) <= int(default) <= int(hi):
            raise Error(f"config.h: {e['name']}: menuconfig default {default} not in {lo}..{hi}")
        e["kconfig"] = {"menu": menu.strip(), "prompt": prompt, "type": "int", "min": lo,
                        "max": hi, "default": default}


# ---- README.md ---------------------------------------------------------------------------------

def cell(text):
    return text.replace("|", "\\|")


def readme_table(sections):
    out = []
    for title, entries in sections:
        out += [f"**{title}**", "",
                "| macro | default | ESP32 | what it bounds | unit | RAM per unit |",
                "|---|---|---|---|---|---|"]
        for e in entries:
            esp32 = e["kconfig"]["default"] if "kconfig" in e else ""
            if e["fixed"]:
                row = [f"`{e['name']}`", f"`{e['value']}` (fixed)", esp32, e["what"], "", ""]
            else:
                row = [f"`{e['name']}`", f"`{e['value']}`", esp32, e["what"],
                       e["Unit"].rstrip("."), e["RAM"].rstrip(".")]
            out.append("| " + " | ".join(cell(c) for c in row) + " |")
        out.append("")
    return out[:-1]


# ---- Kconfig ------------------------------------------------------------------------

def price(e, costs):
    """The help paragraph of a feature switch: what scripts/footprint measured it saves."""
    c = costs.get("features", {}).get(e["name"])
    if c is None:
        raise Error(f"{COSTS.relative_to(ROOT)}: no measured price for {e['name']}: "
                    f"run scripts/footprint cortex-m4")
    per_peer = f" ({c['ram_per_peer']} B of it per peer)" if c.get("ram_per_peer") else ""
    return (f"Price, measured by scripts/footprint on {costs['config']}, {costs['target']}: "
            f"flash {c['flash']} B, RAM {c['ram']} B{per_peer}.")


def kconfig_symbol(e, indent, costs):
    k = e["kconfig"]
    pad, attr, text = " " * indent, " " * (indent + 4), " " * (indent + 8)
    width = 96
    help_lines = []
    paragraphs = [e["what"], f"Unit: {e['Unit']} RAM: {e['RAM']}"]
    if k["type"] == "bool":
        paragraphs.append(price(e, costs))
    paragraphs.append(f"zq's own default (include/zq/config.h): {e['value']}.")
    for paragraph in paragraphs:
        if help_lines:
            help_lines.append("")
        help_lines += textwrap.wrap(paragraph, width - len(text), break_on_hyphens=False)
    for line in help_lines:
        if KCONFIG_SYNTAX.match(line):
            raise Error(f"config.h: {e['name']}: a help line would read as Kconfig syntax, "
                        f"reword it: {line!r}")
    out = [f"{pad}config {e['name']}", f'{attr}{k["type"]} "{k["prompt"]}"']
    if k["type"] == "int":
        out.append(f"{attr}range {k['min']} {k['max']}")
    out += [f"{attr}default {k['default']}", f"{attr}help"]
    out += [text + line if line else "" for line in help_lines]
    return out


def kconfig_region(sections, menu, indent, costs):
    entries = [e for _, es in sections for e in es if e.get("kconfig", {}).get("menu") == menu]
    if not entries:
        raise Error(f"Kconfig: the region for menu \"{menu}\" has no symbol in config.h")
    out = [""]
    for e in entries:
        out += kconfig_symbol(e, indent, costs) + [""]
    return out


# ---- Regions -----------------------------------------------------------------------------------

def begin_marker(prefix, name, suffix):
    return f"{prefix}BEGIN {name} (generated from include/zq/config.h by {TOOL}){suffix}"


def end_marker(prefix, name, suffix):
    return f"{prefix}END {name}{suffix}"


def fill_regions(text, prefix, suffix, content_of, path):
    """text with every BEGIN/END region replaced by content_of(name, indent); names seen."""
    begin = re.compile(r"^(\s*)" + re.escape(prefix) + r"BEGIN (.+?) \(generated from ")
    lines = text.split("\n")
    out, seen = [], []
    i = 0
    while i < len(lines):
        m = begin.match(lines[i])
        if not m:
            out.append(lines[i])
            i += 1
            continue
        indent, name = m.group(1), m.group(2)
        end = indent + end_marker(prefix, name, suffix)
        try:
            j = lines.index(end, i + 1)
        except ValueError:
            raise Error(f"{path}:{i + 1}: no \"{end.strip()}\" after this BEGIN") from None
        out.append(indent + begin_marker(prefix, name, suffix))
        out += content_of(name, len(indent))
        out.append(end)
        seen.append(name)
        i = j + 1
    return "\n".join(out), seen


def readme_text(sections, text):
    def content(name, _indent):
        if name != "capacity table":
            raise Error(f"README.md: unknown generated region \"{name}\"")
        return [""] + readme_table(sections) + [""]
    new, seen = fill_regions(text, "<!-- ", " -->", content, "README.md")
    if seen != ["capacity table"]:
        raise Error(f"README.md: expected one \"capacity table\" region, found {seen}")
    return new


def kconfig_text(sections, text):
    prefix = "# "
    costs = json.loads(COSTS.read_text(encoding="utf-8"))

    def content(name, indent):
        m = re.match(r'^menu "(.+)"$', name)
        if not m:
            raise Error(f"Kconfig: region name must be menu \"...\": {name}")
        return kconfig_region(sections, m.group(1), indent, costs)
    new, seen = fill_regions(text, prefix, "", content, "Kconfig")
    menus = {e["kconfig"]["menu"] for _, es in sections for e in es if "kconfig" in e}
    missing = menus - {re.match(r'^menu "(.+)"$', n).group(1) for n in seen}
    if missing:
        raise Error(f"Kconfig: no generated region for menu(s) {sorted(missing)}")
    check_no_hand_written_symbols(new)
    return new


def check_no_hand_written_symbols(text):
    """zq's ZQ_<NAME> symbols come from config.h only; ZQ_ESP32_<NAME> are the port's own."""
    inside = False
    for n, line in enumerate(text.split("\n"), 1):
        stripped = line.strip()
        if stripped.startswith("# BEGIN "):
            inside = True
        elif stripped.startswith("# END "):
            inside = False
        m = re.match(r"^config (ZQ_[A-Z0-9_]+)$", stripped)
        if m and not inside and not m.group(1).startswith("ZQ_ESP32_"):
            raise Error(f"Kconfig:{n}: {m.group(1)} is written by hand: give it a "
                        f"menuconfig line in include/zq/config.h instead")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true",
                    help="change nothing; exit 1 if a generated region is out of date")
    args = ap.parse_args()
    try:
        sections = parse_config(CONFIG.read_text(encoding="utf-8"))
        outputs = []
        for path, render in ((README, readme_text), (KCONFIG, kconfig_text)):
            old = path.read_text(encoding="utf-8")
            outputs.append((path, old, render(sections, old)))
    except Error as e:
        print(f"gen_capacities: {e}", file=sys.stderr)
        return 2
    stale = [(p, old, new) for p, old, new in outputs if old != new]
    if args.check:
        for path, old, new in stale:
            rel = path.relative_to(ROOT)
            sys.stdout.writelines(difflib.unified_diff(
                old.splitlines(True), new.splitlines(True), f"{rel} (now)",
                f"{rel} (from include/zq/config.h)"))
        if stale:
            print(f"gen_capacities: {', '.join(str(p.relative_to(ROOT)) for p, _, _ in stale)} "
                  f"out of date with include/zq/config.h: run {TOOL}", file=sys.stderr)
            return 1
        count = sum(len(es) for _, es in sections)
        print(f"gen_capacities: README.md and Kconfig match include/zq/config.h "
              f"({count} macros)")
        return 0
    for path, _, new in stale:
        path.write_text(new, encoding="utf-8")
        print(f"gen_capacities: wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
