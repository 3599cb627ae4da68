#!/usr/bin/env python3
"""bench/cpu/plot.py on a SYNTHETIC CSV (made up here, in a temporary directory that is
deleted afterwards; never a result): it writes a non-empty PNG, and rejects a CSV that is
not polyfuse-bench-cpu's. Exits 77 (CTest: skipped) when matplotlib is missing."""

import csv
import os
import random
import subprocess
import sys
import tempfile

try:
    import matplotlib  # noqa: F401
except ImportError:
    print("matplotlib is not installed: skipped")
    sys.exit(77)

PLOT = sys.argv[1]
# bench/cpu/report.h's columns (bench_cpu.Report.NoPeakFractionAboveOneReachesTheCsv checks the C++ side).
COLUMNS = ["cpu", "date", "isa", "pinning", "section", "problem", "dtype", "M", "N", "K", "batch", "threads",
           "implementation", "median_ms", "gflops", "peak_fraction", "ratio", "check"]
SECTIONS = {"brgemm": ["libxsmm"], "gemm": ["openblas", "libxsmm"], "fused_bias_relu": ["onednn", "openblas+pass"],
            "batched_gemm": ["onednn", "openblas_loop"]}

with tempfile.TemporaryDirectory(prefix="polyfuse-cpu-plot-test-") as directory:
    path = os.path.join(directory, "synthetic.csv")
    generator = random.Random(1)
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(COLUMNS)
        for section, baselines in SECTIONS.items():
            for threads in [1, 2]:
                for s in [64, 256, 1024]:
                    batch = 8 if section == "batched_gemm" else 1
                    ours = generator.uniform(0.1, 2.0)
                    for name in ["polyfuse"] + baselines:
                        ms = ours if name == "polyfuse" else generator.uniform(0.1, 2.0)
                        writer.writerow(["SYNTHETIC, not a CPU", "2000-01-01T00:00:00Z", "avx2", "none", section,
                                         f"{s}x{s}x{s}", "f32", s, s, s, batch, threads, name, f"{ms:.6g}", "1",
                                         "0.5", f"{ms / ours:.4g}", "ok"])
    png = os.path.join(directory, "speedup.png")
    result = subprocess.run([sys.executable, PLOT, path, "-o", png], capture_output=True, text=True)
    if result.returncode != 0 or not os.path.exists(png) or os.path.getsize(png) < 10000:
        sys.exit(f"plot.py failed on the synthetic CSV: rc {result.returncode}\n{result.stdout}{result.stderr}")
    with open(png, "rb") as handle:
        if handle.read(8) != b"\x89PNG\r\n\x1a\n":
            sys.exit("plot.py did not write a PNG")
    bad = os.path.join(directory, "bad.csv")
    with open(bad, "w") as handle:
        handle.write("a,b\n1,2\n")
    result = subprocess.run([sys.executable, PLOT, bad, "-o", os.path.join(directory, "bad.png")],
                            capture_output=True, text=True)
    if result.returncode == 0 or "lacks the columns" not in result.stderr:
        sys.exit(f"plot.py accepted a CSV that is not polyfuse-bench-cpu's: {result.stdout}{result.stderr}")
print("plot.py: ok on a synthetic CSV (deleted)")
