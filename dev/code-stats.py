#!/usr/bin/env python3
"""Size of the workspace's non-test Rust source, per crate.

usage: dev/code-stats.py [ROOT]

Counts the lines of each crate's src/ and build.rs outside `#[cfg(test)]`
modules (a `#[cfg(test)]` item and the braces block after it), the files
over 1,000 such lines, the functions over 100 lines, and the modules that
allow `unsafe_code`. Prints one line per crate, then the totals.
"""
import os
import re
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CRATES = ["mem-core", "mem-core/text", "mem-vocab", "mem-lock", "mem-transcript", "mem-extract", "mem-index",
          "mem-recall", "mem-hook", "mem-dream", "mem-docs"]


def non_test_lines(text):
    """The lines of `text` outside #[cfg(test)] blocks."""
    out, skip, depth, armed = [], False, 0, False
    for line in text.split("\n"):
        s = line.strip()
        if not skip and s.startswith("#[cfg(test)]"):
            armed = True
            continue
        if armed and not skip:
            skip, depth, armed = True, 0, False
        if skip:
            depth += line.count("{") - line.count("}")
            if depth <= 0 and ("{" in line or "}" in line or s.endswith(";")):
                skip = False
            continue
        out.append(line)
    return out


FN = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?fn\s+(\w+)")


def long_fns(lines, limit=100):
    """Functions of more than `limit` lines (from `fn` to its closing brace)."""
    found, i = [], 0
    while i < len(lines):
        m = FN.match(lines[i])
        if m and not lines[i].rstrip().endswith(";"):
            depth, j, opened = 0, i, False
            while j < len(lines):
                depth += lines[j].count("{") - lines[j].count("}")
                opened = opened or "{" in lines[j]
                if opened and depth <= 0:
                    break
                j += 1
            if j - i + 1 > limit:
                found.append((m.group(1), j - i + 1))
            i = j + 1
        else:
            i += 1
    return found


def main():
    total = files_over = fns_over = unsafe = 0
    for c in CRATES:
        base = os.path.join(ROOT, c)
        if not os.path.isdir(base):
            continue
        paths = []
        for d, dirs, fs in os.walk(os.path.join(base, "src")):
            if c == "mem-core" and os.path.relpath(d, base).startswith("text"):
                continue
            paths += [os.path.join(d, f) for f in fs if f.endswith(".rs")]
        if os.path.exists(os.path.join(base, "build.rs")):
            paths.append(os.path.join(base, "build.rs"))
        n = big = longf = uns = 0
        for p in paths:
            text = open(p, encoding="utf-8").read()
            lines = non_test_lines(text)
            n += len(lines)
            big += len(lines) > 1000
            longf += len(long_fns(lines))
            uns += "allow(unsafe_code)" in text
        total += n
        files_over += big
        fns_over += longf
        unsafe += uns
        print(f"{c:16} {n:6} lines  {len(paths):3} files  {big} over 1000 lines  {longf:2} fns over 100 lines  {uns} unsafe")
    print(f"{'total':16} {total:6} lines  files over 1000 lines: {files_over}  fns over 100 lines: {fns_over}  unsafe modules: {unsafe}")


main()
