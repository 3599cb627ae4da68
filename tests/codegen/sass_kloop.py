#!/usr/bin/env python3
"""The static SASS check of the mma.sync main loop (issue 19 item 6).

    sass_kloop.py --cuobjdump PATH [--nvdisasm-dir DIR] [--max-bar N] [--min-hmma PERCENT]
                  [--hmma OPCODE] [--interleaved [--max-ldsm-run PERCENT]] [--table FILE] LABEL=OBJECT ...
    sass_kloop.py --cuobjdump PATH [--nvdisasm-dir DIR] --local-memory-only LABEL=OBJECT ...

Disassembles each object (cuobjdump -sass), finds in every kernel its k-loops (the range
from a backward branch's target to the branch, holding HMMA), counts per iteration of each
the HMMA, LDSM, LDGSTS, BAR and integer instructions, and prints a Markdown table row per
loop. Fails (exit 1), naming the object, kernel and numbers, unless every kernel:
  * has no local memory (no LDL / STL anywhere in it),
  * has at least one k-loop, and in each k-loop at most --max-bar BAR (default 1) and HMMA
    at least --min-hmma percent (default 40, the issue's) of the loop's instructions;
  * with --hmma (e.g. HMMA.1684.F32.TF32, the f32 matmuls' TF32 mma), every HMMA of each
    k-loop is that opcode.
  * with --interleaved (the k-loops of software-pipelined fragments, codegen/fragment_pipeline.h),
    LDSM interleaves with HMMA in each k-loop: no "LDSM run" longer than --max-ldsm-run percent
    (default 25, the issue's quarter) of the loop, and an LDSM between its first and last HMMA.
With --local-memory-only, only the first check, on every kernel of every object (kernels
without a k-loop too: the row-wise kernels of a plan), one table row per kernel.
"LDSM run" is the longest stretch of the loop between two HMMA (around the loop: its tail
and its head are one stretch) that holds an LDSM, as a share of the loop; without
--interleaved it is reported only.
Exit 77 (ctest's skip) when cuobjdump cannot run. Counts are static: one pass of the loop's
code, every instruction in its address range, whichever branch inside it runs.
"""
import argparse
import os
import re
import subprocess
import sys

SKIP = 77
# One SASS instruction: /*addr*/ [@[!]P] OPCODE operands ;
INSTRUCTION = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(?:@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_.]*)([^;]*);")
INTEGER = ("IMAD", "IADD3", "ISETP", "IMNMX", "IABS", "ISCADD", "LEA", "LOP3", "SHF", "SEL", "SGXT", "PRMT", "BMSK",
           "POPC", "FLO", "BREV", "UIMAD", "UIADD3", "UISETP", "ULEA", "ULOP3", "USHF", "USEL", "UPRMT")


def opcode_base(op):
    return op.split(".")[0]


def functions(sass):
    """{kernel name: [(address, opcode, operands)]} of cuobjdump -sass output."""
    result, name = {}, None
    for line in sass.splitlines():
        m = re.search(r"Function : (\S+)", line)
        if m:
            name = m.group(1)
            result[name] = []
            continue
        m = INSTRUCTION.search(line)
        if m and name:
            result[name].append((int(m.group(1), 16), m.group(2), m.group(3)))
    return result


def k_loops(code):
    """[(start, end) addresses] of the loops closed by a backward branch whose range holds HMMA."""
    loops = []
    for address, op, operands in code:
        if opcode_base(op) != "BRA":
            continue
        target = re.search(r"0x([0-9a-f]+)", operands)
        if not target or int(target.group(1), 16) >= address:
            continue
        start = int(target.group(1), 16)
        if any(start <= a <= address and opcode_base(o) == "HMMA" for a, o, _ in code):
            loops.append((start, address))
    return loops


def loop_facts(code, start, end):
    body = [op for address, op, _ in code if start <= address <= end]
    count = lambda names: sum(opcode_base(op) in names for op in body)
    facts = {"instructions": len(body), "HMMA": count(("HMMA",)), "LDSM": count(("LDSM",)),
             "LDGSTS": count(("LDGSTS",)), "BAR": count(("BAR",)), "integer": count(INTEGER),
             "LDGSTS.LTC128B": sum(op.startswith("LDGSTS") and ".LTC128B" in op for op in body),
             "HMMA opcodes": sorted({op for op in body if opcode_base(op) == "HMMA"})}
    # The longest HMMA-free stretch that holds an LDSM, around the loop (its tail and the
    # next iteration's head are one stretch): the body rotated to start after its last HMMA.
    last = max(i for i, op in enumerate(body) if opcode_base(op) == "HMMA")
    longest, stretch, has_ldsm = 0, 0, False
    for op in body[last + 1:] + body[:last + 1]:
        if opcode_base(op) == "HMMA":
            if has_ldsm:
                longest = max(longest, stretch)
            stretch, has_ldsm = 0, False
        else:
            stretch += 1
            has_ldsm = has_ldsm or opcode_base(op) == "LDSM"
    facts["ldsm_run"] = longest
    hmma = [i for i, op in enumerate(body) if opcode_base(op) == "HMMA"]
    facts["LDSM among HMMA"] = sum(opcode_base(op) == "LDSM" for op in body[hmma[0]:hmma[-1]])
    return facts


def check_object(label, path, cuobjdump, max_bar, min_hmma, hmma=None, max_ldsm_run=None, local_only=False):
    """(table rows, failures) of one object."""
    done = subprocess.run([cuobjdump, "-sass", path], capture_output=True, text=True)
    if done.returncode != 0:
        return [], [f"{label}: cuobjdump -sass {path} failed: {done.stderr.strip()}"]
    kernels = functions(done.stdout)
    if not kernels:
        return [], [f"{label}: no kernel in the SASS of {path}"]
    rows, failures = [], []
    for name, code in kernels.items():
        local = [f"{op} at {address:#06x}" for address, op, _ in code if opcode_base(op) in ("LDL", "STL")]
        if local:
            failures.append(f"{label} {name}: local memory ({len(local)} LDL/STL, first {local[0]})")
        if local_only:
            rows.append(f"| {label} | {name} | {len(local)} |")
            continue
        loops = k_loops(code)
        if not loops:
            failures.append(f"{label} {name}: no k-loop (no backward branch over HMMA)")
        for start, end in loops:
            f = loop_facts(code, start, end)
            share = f["HMMA"] / f["instructions"]
            run = f["ldsm_run"] / f["instructions"]
            rows.append(f"| {label} | {name} | {start:#06x}-{end:#06x} | {f['instructions']} | {f['HMMA']} ({share:.1%}) | "
                        f"{f['LDSM']} | {f['LDGSTS']} ({f['LDGSTS.LTC128B']} .LTC128B) | {f['BAR']} | {f['integer']} | "
                        f"{f['ldsm_run']} ({run:.1%}) | {len(local)} |")
            where = f"{label} {name} k-loop {start:#06x}-{end:#06x}"
            if f["BAR"] > max_bar:
                failures.append(f"{where}: {f['BAR']} BAR per iteration, at most {max_bar} allowed")
            if share * 100 < min_hmma:
                failures.append(f"{where}: HMMA {f['HMMA']} of {f['instructions']} instructions ({share:.1%}), "
                                f"at least {min_hmma}% required")
            if max_ldsm_run is not None and run * 100 > max_ldsm_run:
                failures.append(f"{where}: an LDSM run of {f['ldsm_run']} instructions between two HMMA ({run:.1%} of "
                                f"the loop), at most {max_ldsm_run}% allowed")
            if max_ldsm_run is not None and f["LDSM among HMMA"] == 0:
                failures.append(f"{where}: no LDSM between the first and the last HMMA (fragments not interleaved)")
            if hmma and f["HMMA opcodes"] != [hmma]:
                failures.append(f"{where}: HMMA opcodes {', '.join(f['HMMA opcodes'])}, only {hmma} expected")
    return rows, failures


HEADER = ("| object | kernel | k-loop (SASS addresses) | instructions | HMMA | LDSM | LDGSTS | BAR | integer | "
          "LDSM run | LDL+STL |\n|---|---|---|---|---|---|---|---|---|---|---|")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cuobjdump", required=True)
    parser.add_argument("--nvdisasm-dir", help="put on PATH (cuobjdump -sass runs nvdisasm)")
    parser.add_argument("--max-bar", type=int, default=1, help="most BAR per k-loop iteration (default 1)")
    parser.add_argument("--min-hmma", type=int, default=40, help="least HMMA share of a k-loop in percent (default 40)")
    parser.add_argument("--hmma", help="the one HMMA opcode every k-loop may hold (e.g. HMMA.1684.F32.TF32)")
    parser.add_argument("--interleaved", action="store_true",
                        help="require LDSM interleaved with HMMA (software-pipelined fragments)")
    parser.add_argument("--max-ldsm-run", type=int, default=25,
                        help="with --interleaved: the longest LDSM run in percent of the loop (default 25)")
    parser.add_argument("--table", help="also write the table to this file")
    parser.add_argument("--local-memory-only", action="store_true",
                        help="only fail on LDL/STL, in every kernel (no k-loop needed)")
    parser.add_argument("objects", nargs="+", metavar="LABEL=OBJECT")
    args = parser.parse_args()
    if args.nvdisasm_dir:
        os.environ["PATH"] = args.nvdisasm_dir + os.pathsep + os.environ.get("PATH", "")
    try:
        subprocess.run([args.cuobjdump, "--version"], capture_output=True, check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"skipped: cannot run cuobjdump ({e})")
        return SKIP
    rows, failures = [], []
    for item in args.objects:
        label, _, path = item.partition("=")
        r, f = check_object(label, path, args.cuobjdump, args.max_bar, args.min_hmma, args.hmma,
                            args.max_ldsm_run if args.interleaved else None, args.local_memory_only)
        rows += r
        failures += f
    header = "| object | kernel | LDL+STL |\n|---|---|---|" if args.local_memory_only else HEADER
    table = header + "\n" + "\n".join(rows) + "\n"
    print(table)
    if args.table:
        with open(args.table, "w") as out:
            out.write(table)
    for failure in failures:
        print("FAILED: " + failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
