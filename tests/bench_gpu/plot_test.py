#!/usr/bin/env python3
"""bench/gpu/plot.py on a SYNTHETIC CSV (made up here, in a temporary directory that is
deleted afterwards; never a result): it writes a non-empty PNG, and rejects a CSV that
is not polyfuse-bench's. Exits 77 (CTest: skipped) when matplotlib is missing."""

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
COLUMNS = ["gpu", "driver", "cuda_runtime", "cublas", "cudnn", "date", "idiom", "dtype", "M", "N", "K", "batch",
           "l2_flush", "repeats", "cublas_cudnn_ms", "cublaslt_ms", "polyfuse_default_ms", "polyfuse_best_ms",
           "polyfuse_best_config", "speedup_best_vs_cublas_cudnn", "speedup_best_vs_cublaslt",
           "speedup_default_vs_cublas_cudnn", "speedup_default_vs_cublaslt", "cudnn_conv_ms", "cudnn_fused_ms",
           "speedup_best_vs_cudnn_conv", "speedup_best_vs_cudnn_fused", "speedup_default_vs_cudnn_conv",
           "speedup_default_vs_cudnn_fused", "layer", "check", "notes"]
IDIOMS = ["gemm", "gemm_bias_relu", "relu_gemm", "add_gemms", "gemm_bias_tanh", "batched_gemm_bias", "gemm_bias_gelu"]

with tempfile.TemporaryDirectory(prefix="polyfuse-plot-test-") as directory:
    path = os.path.join(directory, "synthetic.csv")
    generator = random.Random(1)
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(COLUMNS)
        for idiom in IDIOMS:
            for dtype in ["f16", "bf16"]:
                for _ in range(12):
                    m, n, k = (128 * generator.randint(1, 32) for _ in range(3))
                    times = {name: generator.uniform(0.1, 2.0) for name in ["cublas", "lt", "default", "best"]}
                    cublas = "" if idiom == "gemm_bias_gelu" else f"{times['cublas']:.6g}"
                    speed = lambda base, ours: f"{float(base) / ours:.4g}" if base else ""
                    writer.writerow(["SYNTHETIC (not a GPU)", "0", "0", "0", "0", "2000-01-01T00:00:00Z", idiom,
                                     dtype, m, n, k, 8 if idiom.startswith("batched") else 1, "yes", 20, cublas,
                                     f"{times['lt']:.6g}", f"{times['default']:.6g}", f"{times['best']:.6g}",
                                     "default", speed(cublas, times["best"]), speed(times["lt"], times["best"]),
                                     speed(cublas, times["default"]), speed(times["lt"], times["default"]), "", "",
                                     "", "", "", "", "", "ok", ""])
        # Convolution rows (polyfuse-bench --conv): cuDNN's times, M, N, K of the implicit GEMM.
        for idiom in ["conv", "conv_bias_relu"]:
            for _ in range(6):
                times = {name: generator.uniform(0.1, 2.0) for name in ["conv", "fused", "best"]}
                fused = "" if idiom == "conv" else f"{times['fused']:.6g}"
                speed = lambda base, ours: f"{float(base) / ours:.4g}" if base else ""
                writer.writerow(["SYNTHETIC (not a GPU)", "0", "0", "0", "0", "2000-01-01T00:00:00Z", idiom, "f16",
                                 32 * 56 * 56, 64, 576, 1, "yes", 20, "", "", f"{times['best']:.6g}",
                                 f"{times['best']:.6g}", "default", "", "", "", "", f"{times['conv']:.6g}", fused,
                                 speed(times["conv"], times["best"]), speed(fused, times["best"]),
                                 speed(times["conv"], times["best"]), speed(fused, times["best"]),
                                 "res2 3x3: N32 56x56 C64 K64 3x3 s1 p1", "ok", ""])
    png = os.path.join(directory, "speedup.png")
    result = subprocess.run([sys.executable, PLOT, path, "-o", png], capture_output=True, text=True)
    if result.returncode != 0 or not os.path.exists(png) or os.path.getsize(png) < 10000:
        sys.exit(f"plot.py failed on the synthetic CSV: rc {result.returncode}\n{result.stdout}{result.stderr}")
    if f"{len(IDIOMS) + 2} idioms" not in result.stdout:  # the two convolution idioms drawn too
        sys.exit(f"plot.py did not draw every idiom of the CSV: {result.stdout}")
    with open(png, "rb") as handle:
        if handle.read(8) != b"\x89PNG\r\n\x1a\n":
            sys.exit("plot.py did not write a PNG")
    default_png = os.path.join(directory, "default.png")
    result = subprocess.run([sys.executable, PLOT, path, "-o", default_png, "--polyfuse", "default", "--dtype", "f16"],
                            capture_output=True, text=True)
    if result.returncode != 0 or not os.path.exists(default_png):
        sys.exit(f"plot.py --polyfuse default failed: {result.stdout}{result.stderr}")
    bad = os.path.join(directory, "bad.csv")
    with open(bad, "w") as handle:
        handle.write("a,b\n1,2\n")
    result = subprocess.run([sys.executable, PLOT, bad, "-o", os.path.join(directory, "bad.png")],
                            capture_output=True, text=True)
    if result.returncode == 0 or "lacks the columns" not in result.stderr:
        sys.exit(f"plot.py accepted a CSV that is not polyfuse-bench's: {result.stdout}{result.stderr}")
print("plot.py: ok on a synthetic CSV (deleted)")
