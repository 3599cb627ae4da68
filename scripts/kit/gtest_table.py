#!/usr/bin/env python3
"""Pass/fail/skip per test family from GoogleTest console logs (gpu-kit/check).

    gtest_table.py [--summary FILE] LOG...

Each LOG is the console output of one test process (a binary or one shard of it), named
<binary>.<anything>.log. The console, not --gtest_output=json, is read: it carries the
reason of every skip, and a process that crashed or ran out of time leaves its last test
started but not finished, which is reported as such. A family is a test suite without
its instantiation prefix ("Configs/CudaGemm" -> CudaGemm).

Prints the full table; --summary FILE gets a few lines for the check's summary. The last
line printed is "TOTAL passed=N failed=N skipped=N unfinished=N".
"""
import collections
import os
import re
import sys

RUN = re.compile(r"^\[ RUN      \] (\S+)")
# "[  FAILED  ] Suite.Name/3, where GetParam() = ... (12 ms)": the name ends at the comma.
END = re.compile(r"^\[ +(OK|FAILED|SKIPPED) +\] ([^\s,]+)")
SKIP_AT = re.compile(r"^\S+:\d+: Skipped$")


def family_of(test):
    suite = test.split(".", 1)[0]
    return suite.rsplit("/", 1)[-1]


def parse(path):
    """Yields (test, outcome, detail) for one log; outcome OK, FAILED, SKIPPED or UNFINISHED."""
    current, lines = None, []
    with open(path, errors="replace") as log:
        for raw in log:
            line = raw.rstrip("\n")
            run = RUN.match(line)
            if run:
                if current:
                    yield current, "UNFINISHED", "no result line"
                current, lines = run.group(1), []
                continue
            end = END.match(line)
            if end and current and end.group(2) == current:
                outcome = end.group(1)
                detail = ""
                if outcome == "SKIPPED":
                    for i, text in enumerate(lines):
                        if SKIP_AT.match(text) and i + 1 < len(lines):
                            detail = lines[i + 1].strip()
                            break
                elif outcome == "FAILED":
                    detail = next((t.strip() for t in lines if "Failure" in t or "error" in t.lower()), "")
                    after = [t.strip() for t in lines if t.strip()]
                    if after:
                        detail = (detail + " | " if detail else "") + after[-1][:200]
                yield current, outcome, detail
                current, lines = None, []
                continue
            if current:
                lines.append(line)
    if current:
        yield current, "UNFINISHED", "the process stopped (crash or time limit) during this test"


def main(argv):
    summary_path = None
    if len(argv) > 2 and argv[1] == "--summary":
        summary_path, argv = argv[2], [argv[0]] + argv[3:]
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    counts = collections.OrderedDict()
    problems, skip_reasons = [], collections.Counter()
    for path in argv[1:]:
        binary = os.path.basename(path).split(".", 1)[0]
        for test, outcome, detail in parse(path):
            key = (binary, family_of(test))
            row = counts.setdefault(key, collections.Counter())
            row[outcome] += 1
            if outcome in ("FAILED", "UNFINISHED"):
                problems.append(f"{outcome}: {binary} {test}: {detail}")
            elif outcome == "SKIPPED":
                skip_reasons[detail or "(no reason given)"] += 1
    width = max([len(f"{b}: {f}") for b, f in counts] + [20])
    print(f"{'family':<{width}}  passed  failed  skipped  unfinished")
    total = collections.Counter()
    for (binary, family), row in counts.items():
        total.update(row)
        print(f"{binary + ': ' + family:<{width}}  {row['OK']:>6}  {row['FAILED']:>6}  {row['SKIPPED']:>7}  {row['UNFINISHED']:>10}")
    for reason, n in skip_reasons.most_common():
        print(f"skipped ({n} tests): {reason}")
    for problem in problems:
        print(problem)
    if summary_path:
        with open(summary_path, "w") as out:
            merged = collections.OrderedDict()  # a family's tests may lie in several binaries
            for (binary, family), row in counts.items():
                merged.setdefault(family, collections.Counter()).update(row)
            families = []
            for family, row in merged.items():
                item = f"{family} {row['OK']}/{sum(row.values())}"
                if row["SKIPPED"]:
                    item += f" ({row['SKIPPED']} skipped)"
                if row["FAILED"] or row["UNFINISHED"]:
                    item += f" ({row['FAILED'] + row['UNFINISHED']} FAILED)"
                families.append(item)
            lines, line = [], "families (passed/tests):"
            for item in families:
                if len(line) + len(item) > 92:
                    lines.append(line.rstrip(","))
                    line = " "
                line += f" {item},"
            lines.append(line.rstrip(","))
            if len(lines) > 6:
                lines = lines[:5] + [f"  ... {len(lines) - 5} more lines of families in the log"]
            out.write("\n".join(lines) + "\n")
            for reason, n in skip_reasons.most_common(2):
                out.write(f"skipped {n}: {reason[:90]}\n")
            for problem in problems[:4]:
                out.write(problem[:110] + "\n")
            if len(problems) > 4:
                out.write(f"... {len(problems) - 4} more failures in the log\n")
    print(f"TOTAL passed={total['OK']} failed={total['FAILED']} skipped={total['SKIPPED']} unfinished={total['UNFINISHED']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
