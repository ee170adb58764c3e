#!/usr/bin/env python3
"""Folds `perf script` output (call-graph samples) into the one-line-per-stack
format flame graph tools read: `frame;frame;frame count`, root first.
Used by bench/profile (docs/performance.md "Profile")."""

import collections
import re
import sys

FRAME = re.compile(r"^\s+[0-9a-f]+\s+(.+?)\s+\((.*)\)\s*$")


def main() -> None:
    counts: collections.Counter[str] = collections.Counter()
    stack: list[str] = []
    comm = ""
    for line in sys.stdin:
        if not line.strip():
            if stack:
                counts[";".join([comm, *reversed(stack)])] += 1
            stack = []
            continue
        if not line.startswith((" ", "\t")):
            comm = line.split()[0]
            continue
        match = FRAME.match(line)
        if match:
            symbol = re.sub(r"\+0x[0-9a-f]+$", "", match.group(1))
            stack.append(symbol.replace(";", ":"))
    if stack:
        counts[";".join([comm, *reversed(stack)])] += 1
    for folded, count in counts.most_common():
        print(f"{folded} {count}")


if __name__ == "__main__":
    main()
