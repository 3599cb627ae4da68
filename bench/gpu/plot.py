#!/usr/bin/env python3
"""Plot polyfuse-bench results: speedup against problem size, one panel per idiom.

Reads the CSV that polyfuse-bench writes (bench/gpu/csv.h lists its columns) and draws,
like the paper's Figures 18-21, for each idiom the speedup of polyfuse (baseline time /
polyfuse time, > 1: polyfuse faster) against each library baseline over the problem
size (M*N*K, times the batch for batched idioms, log scale), with a line at 1.0 and
issue 7's goal where one exists. Convolution rows (polyfuse-bench --conv) are drawn against
cuDNN (its fastest algorithm, its fused conv + bias + ReLU call) over their implicit GEMM's
M*N*K (N*P*Q x K x R*S*C: half the FLOP count).

    python3 bench/gpu/plot.py polyfuse-bench.csv -o speedup.png
    python3 bench/gpu/plot.py polyfuse-bench.csv -o speedup-default.png --polyfuse default --dtype f16

Needs matplotlib. Writes only the PNG named by -o.
"""

import argparse
import csv
import math
import sys

# The issues' goals (H100, f16, polyfuse's best configuration): (idiom, baseline) -> geomean
# (bench/gpu/goals.cc).
GOALS = {
    ("gemm", "cublas_cudnn"): 0.9,
    ("gemm_bias_relu", "cublas_cudnn"): 1.3,
    ("gemm_bias_relu", "cublaslt"): 1.0,
    ("add_gemms", "cublas_cudnn"): 1.3,
    ("gemm_bias_tanh", "cublaslt"): 1.2,
    ("swiglu", "cublas_cudnn"): 1.3,
    ("gemm_softmax", "cublas_cudnn"): 1.2,
    ("gemm_layernorm", "cublaslt"): 1.2,
    ("conv", "cudnn_conv"): 0.9,
    ("conv_bias_relu", "cudnn_fused"): 1.0,
}
# Idioms in report order, with titles (bench/gpu/idioms.cc).
IDIOMS = [
    ("gemm", "GEMM"),
    ("gemm_bias_relu", "GEMM + bias + ReLU"),
    ("relu_gemm", "ReLU + GEMM (prologue)"),
    ("add_gemms", "Add(GEMM, GEMM)"),
    ("gemm_bias_tanh", "GEMM + bias + tanh"),
    ("batched_gemm_bias", "batched GEMM + bias"),
    ("gemm_bias_gelu", "GEMM + bias + GELU (extra)"),
    ("swiglu", "SwiGLU gate silu(A*B) * (A*F) (issue 21)"),
    ("gemm_softmax", "GEMM + softmax over rows (issue 20)"),
    ("gemm_layernorm", "GEMM + bias + LayerNorm over rows (issue 20)"),
    ("conv", "conv (NHWC, KRSC)"),
    ("conv_bias_relu", "conv + bias + ReLU"),
    ("conv_bias_residual_relu", "conv + bias + residual + ReLU"),
    ("conv_grouped", "grouped conv (NHWC, G x KRSC)"),
    ("conv_grouped_bias_relu", "grouped conv + bias + ReLU"),
]
CONV_IDIOMS = {"conv", "conv_bias_relu", "conv_bias_residual_relu", "conv_grouped", "conv_grouped_bias_relu"}
BASELINES = [("cublas_cudnn", "vs cuBLAS (+cuDNN)"), ("cublaslt", "vs cuBLASLt (+extra kernel)"),
             ("cudnn_conv", "vs cuDNN conv, fastest algorithm (+pointwise)"), ("cudnn_fused", "vs cuDNN fused conv+bias+act")]
MARKERS = {"f16": "o", "bf16": "^"}
COLORS = {"cublas_cudnn": "tab:blue", "cublaslt": "tab:orange", "cudnn_conv": "tab:green", "cudnn_fused": "tab:red"}


def read_rows(path):
    """The CSV's rows as dicts; exits with a message if a needed column is missing."""
    with open(path, newline="") as handle:
        reader = csv.DictReader(handle)
        needed = {"gpu", "idiom", "dtype", "M", "N", "K", "batch"}
        missing = needed - set(reader.fieldnames or [])
        if missing:
            sys.exit(f"plot.py: error: {path} lacks the columns {', '.join(sorted(missing))} (not a polyfuse-bench CSV?)")
        return list(reader)


def speedup(row, polyfuse, baseline):
    """The row's speedup of polyfuse_<polyfuse> over <baseline>, or None when unmeasured."""
    text = row.get(f"speedup_{polyfuse}_vs_{baseline}", "")
    try:
        value = float(text)
    except ValueError:
        return None
    return value if value > 0 and math.isfinite(value) else None


def problem_size(row):
    """M * N * K (times the batch for batched idioms)."""
    size = int(row["M"]) * int(row["N"]) * int(row["K"])
    if row["idiom"].startswith("batched"):
        size *= int(row["batch"])
    return size


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def main(argv=None):
    parser = argparse.ArgumentParser(description="Plot polyfuse-bench speedups against problem size, per idiom.")
    parser.add_argument("csv", help="the CSV written by polyfuse-bench")
    parser.add_argument("-o", "--output", default="speedup.png", help="the PNG to write (default: speedup.png)")
    parser.add_argument("--polyfuse", choices=["best", "default"], default="best",
                        help="polyfuse's best tile configuration (default) or the default configuration alone")
    parser.add_argument("--dtype", choices=["f16", "bf16"], action="append",
                        help="element types to plot (repeatable; default: those in the CSV)")
    args = parser.parse_args(argv)

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("plot.py: error: matplotlib is not installed (pip install matplotlib)")

    rows = read_rows(args.csv)
    if not rows:
        sys.exit(f"plot.py: error: {args.csv} has no rows")
    dtypes = args.dtype or sorted({row["dtype"] for row in rows}, key=lambda d: (d != "f16", d))
    present = [(name, title) for name, title in IDIOMS if any(row["idiom"] == name for row in rows)]
    columns = min(3, len(present))
    lines = math.ceil(len(present) / columns)
    figure, axes = plt.subplots(lines, columns, figsize=(5.5 * columns, 4.2 * lines), squeeze=False)
    for index, (idiom, title) in enumerate(present):
        axis = axes[index // columns][index % columns]
        legend = []
        for baseline, label in BASELINES:
            for dtype in dtypes:
                points = sorted((problem_size(row), s) for row in rows
                                if row["idiom"] == idiom and row["dtype"] == dtype
                                and (s := speedup(row, args.polyfuse, baseline)) is not None)
                if not points:
                    continue
                mean = geomean([s for _, s in points])
                axis.scatter([p[0] for p in points], [p[1] for p in points], s=14, marker=MARKERS.get(dtype, "o"),
                             color=COLORS[baseline], alpha=0.75,
                             label=f"{label}, {dtype} (geomean {mean:.2f}x)")
                legend.append(baseline)
        axis.axhline(1.0, color="black", linewidth=0.8)
        for baseline, _ in BASELINES:
            goal = GOALS.get((idiom, baseline))
            if goal is not None and args.polyfuse == "best" and "f16" in dtypes:
                axis.axhline(goal, color=COLORS[baseline], linestyle="--", linewidth=0.8,
                             label=f"goal {goal:.1f}x (H100, f16)")
        axis.set_xscale("log")
        axis.set_yscale("log", base=2)  # ratios: 2x faster and 2x slower equally far from 1
        axis.set_title(title)
        if idiom in CONV_IDIOMS:
            axis.set_xlabel("implicit GEMM M*N*K (N*P*Q x K x R*S*C)")
        else:
            axis.set_xlabel("problem size M*N*K" + (" * batch" if idiom.startswith("batched") else ""))
        axis.set_ylabel(f"speedup of polyfuse ({args.polyfuse})")
        axis.grid(True, which="both", alpha=0.3)
        if legend:
            axis.legend(fontsize=7)
        else:
            axis.text(0.5, 0.5, "no measured speedups", transform=axis.transAxes, ha="center")
    for index in range(len(present), lines * columns):
        axes[index // columns][index % columns].axis("off")
    gpu = rows[0].get("gpu", "")
    date = rows[0].get("date", "")
    figure.suptitle(f"polyfuse speedup over library baselines — {gpu} {date}".strip())
    figure.tight_layout()
    figure.savefig(args.output, dpi=120)
    print(f"plot.py: wrote {args.output} ({len(rows)} rows, {len(present)} idioms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
