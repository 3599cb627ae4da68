#!/usr/bin/env python3
"""bench/gpu/torch_baselines.py without a GPU or torch, on a SYNTHETIC CSV (made up here, in a
temporary directory that is deleted afterwards; never a result): --dry-run lists the PyTorch
call of every idiom polyfuse-bench has (the idiom list read from `polyfuse-bench --dry-run`, so
a new idiom without a PyTorch expression fails here), and a CSV that is not polyfuse-bench's,
or names an unknown idiom, is refused.

    torch_baselines_test.py TORCH_BASELINES_PY POLYFUSE_BENCH
"""

import csv
import os
import re
import subprocess
import sys
import tempfile

SCRIPT, BENCH = sys.argv[1], sys.argv[2]

listing = subprocess.run([BENCH, "--dry-run", "--size", "128x128x128"], capture_output=True, text=True, check=True)
idioms = re.findall(r"^  (\w+) \(.*\):$", listing.stdout, re.M)
if len(idioms) < 10:
    sys.exit(f"expected polyfuse-bench's idioms in its --dry-run listing, found {idioms}")

COLUMNS = ["gpu", "idiom", "dtype", "M", "N", "K", "batch", "polyfuse_best_ms", "check"]


def run(*arguments):
    return subprocess.run([sys.executable, SCRIPT, *arguments], capture_output=True, text=True)


with tempfile.TemporaryDirectory(prefix="polyfuse-torch-test-") as directory:
    path = os.path.join(directory, "synthetic.csv")
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(COLUMNS)
        for idiom in idioms:
            for dtype in ["f16", "bf16"]:
                writer.writerow(["SYNTHETIC (not a GPU)", idiom, dtype, 256, 128, 64, 2, "0.5", "ok"])
        writer.writerow(["SYNTHETIC (not a GPU)", "conv_bias_relu", "f16", 100352, 64, 576, 1, "0.5", "ok"])
    before = open(path).read()
    result = run(path, "--dry-run")
    if result.returncode != 0:
        sys.exit(f"--dry-run failed: rc {result.returncode}\n{result.stdout}{result.stderr}")
    for idiom in idioms:
        if not re.search(rf"^  {idiom} +2 problems: \S", result.stdout, re.M):
            sys.exit(f"--dry-run does not list a PyTorch call for '{idiom}':\n{result.stdout}")
    if "1 convolution problems: no PyTorch baseline" not in result.stdout:
        sys.exit(f"--dry-run does not say the convolution rows are left out:\n{result.stdout}")
    if "softmax" not in result.stdout or "F.layer_norm" not in result.stdout:
        sys.exit(f"--dry-run lists the wrong calls:\n{result.stdout}")
    if open(path).read() != before:
        sys.exit("--dry-run wrote to the CSV")

    bad = os.path.join(directory, "bad.csv")
    with open(bad, "w") as handle:
        handle.write("idiom,dtype\ngemm,f16\n")
    result = run(bad, "--dry-run")
    if result.returncode == 0 or "not a polyfuse-bench CSV" not in result.stderr:
        sys.exit(f"a CSV without the columns was not refused:\n{result.stdout}{result.stderr}")
    unknown = os.path.join(directory, "unknown.csv")
    with open(unknown, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(COLUMNS)
        writer.writerow(["x", "conv3d", "f16", 1, 1, 1, 1, "1", "ok"])
    result = run(unknown, "--dry-run")
    if result.returncode == 0 or "unknown idiom 'conv3d'" not in result.stderr:
        sys.exit(f"an unknown idiom was not refused:\n{result.stdout}{result.stderr}")
print(f"torch_baselines.py: --dry-run lists all {len(idioms)} idioms; bad CSVs refused")
