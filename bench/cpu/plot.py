#!/usr/bin/env python3
"""Plot polyfuse-bench-cpu results: polyfuse's speedup over each baseline against problem
size, one panel per section (BRGEMM, GEMM, each fused epilogue, batched GEMM, ...).

Reads the CSV that `polyfuse-bench-cpu --csv FILE` writes (bench/cpu/report.h lists its
columns: one line per problem x implementation x thread count, `ratio` = the
implementation's median time / polyfuse's) and draws, like bench/gpu/plot.py, the speedup
(> 1: polyfuse faster) on a log scale over the problem size M*N*K*batch, one colour per
baseline and one marker per thread count, with a line at 1.0 and issue 26's goals.

    python3 bench/cpu/plot.py polyfuse-bench-cpu.csv -o speedup-cpu.png

Needs matplotlib (scripts/deps installs Debian's python3-matplotlib, for /usr/bin/python3).
Writes only the PNG named by -o.
"""

import argparse
import csv
import math
import sys

# Issue 26's goals (2-core AVX2 machine): (section prefix, baseline) -> geomean speedup.
GOALS = {
    ("gemm", "openblas"): 1.0,
    ("brgemm", "libxsmm"): 1.0,
    ("fused_bias_relu", "onednn"): 1.1,
    ("fused_bias_gelu", "onednn"): 1.1,
    ("fused_bias_relu", "openblas+pass"): 1.3,
    ("fused_bias_gelu", "openblas+pass"): 1.3,
}
NEEDED = {"section", "implementation", "threads", "M", "N", "K", "batch", "ratio"}
MARKERS = ["o", "^", "s", "D", "v", "P"]


def read_rows(path):
    """The CSV's rows as dicts; exits with a message if a needed column is missing."""
    with open(path, newline="") as handle:
        reader = csv.DictReader(handle)
        missing = NEEDED - set(reader.fieldnames or [])
        if missing:
            sys.exit(f"plot.py: error: {path} lacks the columns {', '.join(sorted(missing))} "
                     "(not a polyfuse-bench-cpu CSV?)")
        return list(reader)


def ratio(row):
    """The row's speedup of polyfuse over its implementation, or None when unmeasured."""
    try:
        value = float(row["ratio"])
    except ValueError:
        return None
    return value if value > 0 and math.isfinite(value) else None


def problem_size(row):
    return int(row["M"]) * int(row["N"]) * int(row["K"]) * max(1, int(row["batch"] or 1))


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def main(argv=None):
    parser = argparse.ArgumentParser(description="Plot polyfuse-bench-cpu speedups against problem size, per section.")
    parser.add_argument("csv", help="the CSV written by polyfuse-bench-cpu --csv")
    parser.add_argument("-o", "--output", default="speedup-cpu.png", help="the PNG to write (default: speedup-cpu.png)")
    args = parser.parse_args(argv)

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("plot.py: error: matplotlib is not installed (Debian: python3-matplotlib; or pip install matplotlib)")

    rows = [row for row in read_rows(args.csv) if row["implementation"] != "polyfuse"]
    if not rows:
        sys.exit(f"plot.py: error: {args.csv} has no baseline rows")
    sections = list(dict.fromkeys(row["section"] for row in rows))
    baselines = list(dict.fromkeys(row["implementation"] for row in rows))
    threads = sorted({int(row["threads"]) for row in rows})
    colors = {name: f"C{i % 10}" for i, name in enumerate(baselines)}
    markers = {t: MARKERS[i % len(MARKERS)] for i, t in enumerate(threads)}
    columns = min(3, len(sections))
    lines = math.ceil(len(sections) / columns)
    figure, axes = plt.subplots(lines, columns, figsize=(5.5 * columns, 4.2 * lines), squeeze=False)
    for index, section in enumerate(sections):
        axis = axes[index // columns][index % columns]
        for baseline in baselines:
            for t in threads:
                points = sorted((problem_size(row), r) for row in rows
                                if row["section"] == section and row["implementation"] == baseline
                                and int(row["threads"]) == t and (r := ratio(row)) is not None)
                if not points:
                    continue
                mean = geomean([r for _, r in points])
                axis.plot([p[0] for p in points], [p[1] for p in points], marker=markers[t], color=colors[baseline],
                          linewidth=0.8, alpha=0.8, label=f"vs {baseline}, {t} thr (geomean {mean:.2f}x)")
            goal = GOALS.get((section, baseline))
            if goal is not None and any(r["section"] == section and r["implementation"] == baseline for r in rows):
                axis.axhline(goal, color=colors[baseline], linestyle="--", linewidth=0.8, label=f"goal {goal:.1f}x")
        axis.axhline(1.0, color="black", linewidth=0.8)
        axis.set_xscale("log")
        axis.set_yscale("log", base=2)  # ratios: 2x faster and 2x slower equally far from 1
        axis.set_title(section)
        axis.set_xlabel("problem size M*N*K*batch")
        axis.set_ylabel("speedup of polyfuse")
        axis.grid(True, which="both", alpha=0.3)
        axis.legend(fontsize=7)
    for index in range(len(sections), lines * columns):
        axes[index // columns][index % columns].axis("off")
    first = rows[0]
    figure.suptitle(f"polyfuse (CPU) speedup over library baselines — {first.get('cpu', '')} "
                    f"{first.get('date', '')}".strip())
    figure.tight_layout()
    figure.savefig(args.output, dpi=120)
    print(f"plot.py: wrote {args.output} ({len(rows)} baseline rows, {len(sections)} sections)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
