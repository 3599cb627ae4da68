#!/usr/bin/env python3
"""Static instruction profile of the loops of a kernel's SASS (no GPU needed).

Reads `cuobjdump -sass` output and reports every loop (a backward branch and the
instructions from its target up to it) that contains tensor-core MMAs (HMMA): its
instruction count, MMAs, global/shared/local memory instructions and predicated
instructions. Used to measure what the partial-tile predication costs per k-step:
the full blocks' k-loop and the edge blocks' k-loop of one kernel side by side.

    cuobjdump -sass kernel.cubin | python3 bench/gpu/sass_loops.py
"""
import re
import sys

LINE = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")


def parse(text):
    instructions = []  # (address, text)
    for line in text.splitlines():
        m = LINE.search(line)
        if m:
            instructions.append((int(m.group(1), 16), m.group(2).strip()))
    return instructions


def loops(instructions):
    index = {address: i for i, (address, _) in enumerate(instructions)}
    for i, (address, text) in enumerate(instructions):
        m = re.search(r"BRA\s+(?:`?\(?)(0x[0-9a-f]+)", text)
        if not m:
            continue
        target = int(m.group(1), 16)
        if target < address and target in index:
            yield instructions[index[target]: i + 1]


def profile(body):
    ops = [text.split()[1] if text.startswith("@") else text.split()[0] for _, text in body]
    count = lambda *prefixes: sum(1 for op in ops if op.startswith(prefixes))
    return {
        "instructions": len(body),
        "hmma": count("HMMA"),
        "global": count("LDG", "STG", "LDGSTS"),
        "shared": count("LDS", "STS", "LDSM"),
        "local": count("LDL", "STL"),
        "predicated": sum(1 for _, text in body if text.startswith("@")),
        "start": hex(body[0][0]),
    }


def main():
    rows = [profile(body) for body in loops(parse(sys.stdin.read()))]
    rows = [r for r in rows if r["hmma"] > 0]
    keys = ["start", "instructions", "hmma", "global", "shared", "local", "predicated"]
    print(" ".join(f"{k:>12}" for k in keys))
    for r in rows:
        print(" ".join(f"{r[k]:>12}" for k in keys))


if __name__ == "__main__":
    main()
