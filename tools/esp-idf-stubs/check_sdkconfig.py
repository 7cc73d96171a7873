#!/usr/bin/env python3
"""Checks that every CONFIG_ symbol an sdkconfig.defaults names exists in an ESP-IDF tree.

  check_sdkconfig.py --defaults examples/esp32-sensor/sdkconfig.defaults \\
      --kconfig Kconfig --kconfig examples/esp32-sensor/main/Kconfig.projbuild \\
      IDF_DIR [IDF_DIR ...]

IDF_DIR is a checked-out ESP-IDF tree (or an extract of its Kconfig, components/ and
examples/common_components/); this script only reads it, it never fetches one. A symbol is
known when a `config`/`menuconfig` line of a Kconfig file there (Kconfig, Kconfig.projbuild,
Kconfig.*, *.in) or of a --kconfig file declares it; a name that only an sdkconfig.rename
lists as the old name of another is reported as renamed (kconfgen accepts it, with a
warning, and writes the new name). Anything else is unknown: kconfgen ignores such a line
of sdkconfig.defaults with a warning, so a setting there would silently not apply.

A setting meant for one major release says so in the comment block right above it, with a
comment line that starts "# 5.x only" (or 6.x). Such a symbol unknown in a tree of another major release (its
tools/cmake/version.cmake) is expected; unknown in its own, or unmarked and unknown, it is an
error. A marked symbol that a tree of another release knows after all is reported too.

Exit status 1 on an error; the report names the tree and the line.
"""
import argparse
import os
import re
import sys

CONFIG_LINE = re.compile(r"^\s*(?:menu)?config\s+([A-Za-z0-9_]+)\s*$")
CHOICE_LINE = re.compile(r"^\s*choice\s+([A-Za-z0-9_]+)\s*$")
SET_LINE = re.compile(r"^CONFIG_([A-Za-z0-9_]+)=")
UNSET_LINE = re.compile(r"^#\s*CONFIG_([A-Za-z0-9_]+) is not set")
ONLY_MARK = re.compile(r"^#\s*(\d+)\.x only\b")
MAJOR_LINE = re.compile(r"set\(IDF_VERSION_MAJOR\s+(\d+)\)")


def is_kconfig(name):
    return name == "Kconfig" or name.startswith("Kconfig.") or name.endswith(".in")


def symbols_of(path, into):
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = CONFIG_LINE.match(line) or CHOICE_LINE.match(line)
            if m:
                into.add(m.group(1))


def renames_of(path, into):
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            parts = line.split()
            if len(parts) == 2 and not parts[0].startswith("#"):
                into[parts[0].removeprefix("CONFIG_")] = parts[1].removeprefix("CONFIG_")


def scan_tree(root):
    known, renamed = set(), {}
    for d, _, files in os.walk(root):
        for name in files:
            path = os.path.join(d, name)
            if is_kconfig(name):
                symbols_of(path, known)
            elif name == "sdkconfig.rename" or name.startswith("sdkconfig.rename."):
                renames_of(path, renamed)
    return known, renamed


def defaults_symbols(path):
    """[(line number, symbol, the major release its comment block restricts it to, or None)]."""
    out = []
    only = None
    after_setting = True  # a comment after a setting (or a blank line) starts a new block
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.strip()
            m = SET_LINE.match(line) or UNSET_LINE.match(line)
            if m:
                out.append((n, m.group(1), only))
                after_setting = True
            elif line.startswith("#"):
                if after_setting:
                    only, after_setting = None, False
                mark = ONLY_MARK.match(line)
                if mark:
                    only = int(mark.group(1))
            else:
                only, after_setting = None, True
    return out


def major_of(tree):
    try:
        with open(os.path.join(tree, "tools", "cmake", "version.cmake"), encoding="utf-8") as f:
            m = MAJOR_LINE.search(f.read())
            return int(m.group(1)) if m else None
    except OSError:
        return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--defaults", action="append", required=True)
    ap.add_argument("--kconfig", action="append", default=[],
                    help="the project's own Kconfig files (zq's, the example's)")
    ap.add_argument("trees", nargs="+", metavar="IDF_DIR")
    args = ap.parse_args()

    own = set()
    for path in args.kconfig:
        symbols_of(path, own)
    errors = 0
    for tree in args.trees:
        known, renamed = scan_tree(tree)
        known |= own
        major = major_of(tree)
        print(f"{tree}: ESP-IDF {major}.x, {len(known)} symbols, {len(renamed)} renames")
        for path in args.defaults:
            for n, sym, only in defaults_symbols(path):
                where = f"  {path}:{n}: CONFIG_{sym}"
                if sym in known:
                    if only is not None and only != major:
                        print(f"{where} marked {only}.x only, but {major}.x knows it")
                elif sym in renamed:
                    print(f"{where} renamed to CONFIG_{renamed[sym]} (accepted, with a warning)")
                elif only is not None and only != major:
                    print(f"{where} unknown, as marked ({only}.x only): ignored with a warning")
                else:
                    print(f"{where} UNKNOWN: kconfgen would ignore it")
                    errors += 1
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
