#!/usr/bin/env python3
"""PyTorch baselines for polyfuse-bench's results: for every problem of a polyfuse-bench CSV,
times what a PyTorch user writes for the same idiom (eager mode: `torch.addmm` then the
activation, `torch.softmax`, `F.layer_norm`, `F.silu(A @ B) * (A @ F)`, ...) on the same GPU,
the same way polyfuse-bench times (CUDA events around each call, warm-up calls, the median of
the timed ones, the L2 flushed before each), and adds two columns to the CSV: `torch_ms` and
`speedup_best_vs_torch` (torch_ms / polyfuse_best_ms). Prints the geomean speedup per idiom
and dtype.

    python3 bench/gpu/torch_baselines.py bench.csv                  # adds the columns in place
    python3 bench/gpu/torch_baselines.py bench.csv -o with-torch.csv
    python3 bench/gpu/torch_baselines.py bench.csv --dry-run        # lists the calls; no torch needed

Each PyTorch result is checked against a float64 evaluation of the idiom's definition (written
out: max, exp and sum for the softmax, mean and centred variance for the layer norm) on three rows (the tolerance of polyfuse-bench's checks) before it is timed; a problem whose PyTorch
result is wrong gets no time, and the script exits 1. Needs torch with CUDA (not for
--dry-run). `--time-limit S` starts no new problem after S seconds; the rows left have empty
torch columns, and the summary says how many. Convolution rows (polyfuse-bench --conv) have
no PyTorch baseline yet: they are left out, and the summary says how many.
"""

import argparse
import csv
import math
import statistics
import sys
import time

# The PyTorch expression of each idiom of bench/gpu/idioms.cc, on tensors named as in its
# .tc signature (A, B, E, F, bias, gamma, beta). `F` is torch.nn.functional in `call`.
EXPRESSIONS = {
    "gemm": "A @ B",
    "gemm_bias_relu": "torch.relu(torch.addmm(bias, A, B))",
    "relu_gemm": "torch.relu(A) @ B",
    "add_gemms": "torch.addmm(A @ B, E, F_)",
    "gemm_bias_tanh": "torch.tanh(torch.addmm(bias, A, B))",
    "batched_gemm_bias": "torch.bmm(A, B) + bias",
    "gemm_bias_gelu": "F.gelu(torch.addmm(bias, A, B))",
    "swiglu": "F.silu(A @ B) * (A @ F_)",
    "gemm_softmax": "torch.softmax(A @ B, dim=-1)",
    "gemm_layernorm": "F.layer_norm(torch.addmm(bias, A, B), (N,), gamma, beta, 1e-5)",
}
# The tensors of each idiom besides A and B (bench/gpu/idioms.cc's tensors()); F is F_ in the
# expressions (F is the functional module).
EXTRA_TENSORS = {
    "add_gemms": ["E", "F_"],
    "swiglu": ["F_"],
    "gemm_bias_relu": ["bias"],
    "gemm_bias_tanh": ["bias"],
    "batched_gemm_bias": ["bias"],
    "gemm_bias_gelu": ["bias"],
    "gemm_layernorm": ["bias", "gamma", "beta"],
}
# polyfuse-bench --conv's idioms: no PyTorch baseline yet (their rows keep empty torch columns).
CONV_IDIOMS = ["conv", "conv_bias_relu", "conv_bias_residual_relu", "conv_grouped", "conv_grouped_bias_relu"]
NEEDED = ["idiom", "dtype", "M", "N", "K", "batch", "polyfuse_best_ms"]
ADDED = ["torch_ms", "speedup_best_vs_torch"]


def read_csv(path):
    with open(path, newline="") as handle:
        reader = csv.DictReader(handle)
        rows = list(reader)
        columns = list(reader.fieldnames or [])
    missing = [name for name in NEEDED if name not in columns]
    if missing:
        sys.exit(f"torch_baselines.py: {path} is not a polyfuse-bench CSV: no column {', '.join(missing)}")
    for row in rows:
        if row["idiom"] not in EXPRESSIONS and row["idiom"] not in CONV_IDIOMS:
            sys.exit(f"torch_baselines.py: {path}: unknown idiom '{row['idiom']}' (known: {', '.join(EXPRESSIONS)})")
    return rows, columns + [name for name in ADDED if name not in columns]


def shapes(idiom, m, n, k, batch):
    """The shape of each tensor of the problem, by name."""
    lead = [batch] if idiom == "batched_gemm_bias" else []
    result = {"A": lead + [m, k], "B": lead + [k, n]}
    for name in EXTRA_TENSORS.get(idiom, []):
        result[name] = {"E": [m, k], "F_": [k, n]}.get(name, [n])
    return result


def reference_rows(torch, idiom, tensors, rows):
    """The idiom on `rows` (indices into the rows of the output) in float64, written out from
    its definition (bench/gpu/idioms.h) rather than with the calls above, so that a call that
    computes something else fails the check."""
    t = {name: value.double() for name, value in tensors.items()}
    c = torch.matmul(t["A"][..., rows, :], t["B"])
    if idiom == "relu_gemm":
        c = torch.matmul(t["A"][..., rows, :].clamp_min(0), t["B"])
    if idiom == "add_gemms":
        c = c + torch.matmul(t["E"][rows, :], t["F_"])
    if "bias" in t:
        c = c + t["bias"]
    if idiom == "gemm_bias_relu":
        c = c.clamp_min(0)
    if idiom == "gemm_bias_tanh":
        c = torch.tanh(c)
    if idiom == "gemm_bias_gelu":
        c = 0.5 * c * (1 + torch.erf(c / 2**0.5))
    if idiom == "swiglu":
        c = c / (1 + torch.exp(-c)) * torch.matmul(t["A"][rows, :], t["F_"])
    if idiom == "gemm_softmax":
        e = torch.exp(c - c.max(dim=-1, keepdim=True).values)
        c = e / e.sum(dim=-1, keepdim=True)
    if idiom == "gemm_layernorm":
        d = c - c.mean(dim=-1, keepdim=True)
        c = d / torch.sqrt((d * d).mean(dim=-1, keepdim=True) + 1e-5) * t["gamma"] + t["beta"]
    return c


def tolerance(idiom, dtype, k):
    """polyfuse-bench's check tolerance (bench/gpu/checks.cc), times 2: (relative, absolute)."""
    u = 2.0**-11 if dtype == "f16" else 2.0**-8
    terms = 2 * k if idiom in ("add_gemms", "swiglu") else k
    absolute = u * math.sqrt(terms) + 8 * 2.0**-24 * terms + (2.0**-24 if dtype == "f16" else 0)
    if idiom == "gemm_softmax":
        return 2 * (2 * u + 4 * (u * math.sqrt(k) + 8 * 2.0**-24 * k)), 2 * 2.0**-24
    if idiom == "gemm_layernorm":
        return 2 * 4 * u, 2 * 12 * u
    return 2 * 4 * u, 2 * absolute


def measure(torch, row, args):
    """(torch_ms, check message or None) for one CSV row."""
    idiom, dtype = row["idiom"], row["dtype"]
    m, n, k, batch = (int(row[name]) for name in ("M", "N", "K", "batch"))
    element = torch.float16 if dtype == "f16" else torch.bfloat16
    generator = torch.Generator(device=args.device).manual_seed(1)
    tensors = {
        name: (torch.rand(shape, generator=generator, device=args.device) * 2 - 1).to(element)
        for name, shape in shapes(idiom, m, n, k, batch).items()
    }
    F = torch.nn.functional
    env = dict(tensors, torch=torch, F=F, N=n)
    code = compile(EXPRESSIONS[idiom], idiom, "eval")

    def call():
        return eval(code, env)  # noqa: S307 - the table above, not input

    out = call()
    rows = sorted({0, out.shape[-2] - 1, out.shape[-2] // 2})
    expected = reference_rows(torch, idiom, tensors, rows)
    actual = out[..., rows, :].double()
    relative, absolute = tolerance(idiom, dtype, k)
    bad = (actual - expected).abs() > relative * expected.abs() + absolute
    if bool(bad.any()):
        return None, f"{int(bad.sum())} of {bad.numel()} checked elements out of tolerance"

    flush = torch.empty(2 * args.l2_bytes, dtype=torch.uint8, device=args.device)
    return median_ms(torch, call, args.warmup, args.repeats, flush, args.device), None


def median_ms(torch, call, warmup, repeats, flush, device="cuda"):
    """The median time of `repeats` calls of `call` after `warmup` untimed ones, in ms: CUDA
    events around each call, `flush` (a buffer twice the L2) zeroed before each. Also used by
    torch_programs.py."""
    times = []
    for repeat in range(warmup + repeats):
        flush.zero_()
        if device == "cuda":
            start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            call()
            stop.record()
            stop.synchronize()
            elapsed = start.elapsed_time(stop)
        else:  # --device cpu: only to test this script where there is no GPU
            begin = time.perf_counter()
            call()
            elapsed = (time.perf_counter() - begin) * 1e3
        if repeat >= warmup:
            times.append(elapsed)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description="Time PyTorch's version of each problem of a polyfuse-bench CSV.")
    parser.add_argument("csv", help="polyfuse-bench's --csv output")
    parser.add_argument("-o", "--output", help="where to write the CSV with the torch columns (default: in place)")
    parser.add_argument("--dry-run", action="store_true", help="list the calls; run nothing, write nothing")
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--time-limit", type=float, default=0, help="seconds; start no new problem after them")
    parser.add_argument("--device", choices=["cuda", "cpu"], default="cuda",
                        help="cpu only tests this script without a GPU: its times are not a baseline")
    args = parser.parse_args()
    rows, columns = read_csv(args.csv)
    if args.device == "cpu" and not args.dry_run and not args.output:
        sys.exit("torch_baselines.py: --device cpu writes only to -o (its times are no baseline for a GPU run's CSV)")

    if args.dry_run:
        print(f"torch_baselines.py --dry-run: {len(rows)} problems of {args.csv}; nothing is run or written")
        for idiom, expression in EXPRESSIONS.items():
            count = sum(row["idiom"] == idiom for row in rows)
            if count:
                print(f"  {idiom:<18} {count:>4} problems: {expression}")
        convolutions = sum(row["idiom"] in CONV_IDIOMS for row in rows)
        if convolutions:
            print(f"  {convolutions} convolution problems: no PyTorch baseline (not done yet), left out")
        print(f"method: CUDA events, {args.warmup} warm-up calls, median of {args.repeats}, L2 flushed before each")
        return 0

    try:
        import torch
    except ImportError:
        sys.exit("torch_baselines.py: torch is not installed (needed to time; --dry-run needs none)")
    if args.device == "cuda" and not torch.cuda.is_available():
        sys.exit("torch_baselines.py: torch sees no CUDA device")
    args.l2_bytes = torch.cuda.get_device_properties(0).L2_cache_size if args.device == "cuda" else 1 << 20
    torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False
    torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = False

    start, left_out, failures = time.monotonic(), 0, []
    speedups = {}
    convolutions = sum(row["idiom"] in CONV_IDIOMS for row in rows)
    for row in rows:
        if row["idiom"] in CONV_IDIOMS:
            continue
        if args.time_limit and time.monotonic() - start > args.time_limit:
            left_out += 1
            continue
        torch_ms, failure = measure(torch, row, args)
        if failure:
            failures.append(f"{row['idiom']} {row['dtype']} {row['M']}x{row['N']}x{row['K']}: {failure}")
            continue
        row["torch_ms"] = f"{torch_ms:.6g}"
        if row["polyfuse_best_ms"]:
            speedup = torch_ms / float(row["polyfuse_best_ms"])
            row["speedup_best_vs_torch"] = f"{speedup:.4g}"
            speedups.setdefault((row["idiom"], row["dtype"]), []).append(speedup)

    with open(args.output or args.csv, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns)
        writer.writeheader()
        for row in rows:
            writer.writerow({name: row.get(name, "") for name in columns})

    device = torch.cuda.get_device_name(0) if args.device == "cuda" else "CPU (a test of the script, not a baseline)"
    print(f"torch {torch.__version__}, {device}: eager PyTorch vs polyfuse_best")
    for (idiom, dtype), values in speedups.items():
        geomean = math.exp(sum(math.log(v) for v in values) / len(values))
        print(f"{idiom} {dtype} polyfuse_best vs torch: geomean {geomean:.3f}x over {len(values)} problems")
    if convolutions:
        print(f"{convolutions} convolution problems left out: no PyTorch baseline for them yet")
    if left_out:
        print(f"stopped at the time limit: {left_out} problems left out")
    for failure in failures:
        print(f"TORCH CHECK FAILED: {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
