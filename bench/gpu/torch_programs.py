#!/usr/bin/env python3
"""Whole .tc programs against PyTorch on one GPU: attention, an f32 linear layer, an MLP — the
programs polyfuse-bench's GEMM-shaped idioms do not cover. For each program of PROGRAMS (an
example or a def written below, its sizes, and what a PyTorch user writes for it) the script
compiles it with polyfuse.compile(backend="cuda"), checks its output against a float64
evaluation of the program's definition on sampled rows, checks every PyTorch call the same way,
and times them all as polyfuse-bench and torch_baselines.py do (CUDA events, warm-up calls, the
median of the timed ones, the L2 flushed before each). One line per program and call, a
`summary:` line per program at the end ((x): the call's time over polyfuse's), and a CSV:

    python3 bench/gpu/torch_programs.py --csv programs.csv
    python3 bench/gpu/torch_programs.py --program attention_s256 --repeats 50
    python3 bench/gpu/torch_programs.py --dry-run     # compiles every program (no GPU, no torch needed)

Needs polyfuse's Python package (the GPU kit's python stage builds it) and torch with CUDA. The
polyfuse kernel is compiled once per program, before timing (its NVRTC compile is not timed);
it runs on PyTorch's current stream. Exit status 1 when a check fails (the failing call gets no
time).
"""

import argparse
import csv
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from torch_baselines import median_ms  # noqa: E402 - the same timing as polyfuse-bench's baselines

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

LINEAR_F32 = """def linear_f32(f32(M, K) A, f32(N, K) W, f32(N) bias) -> (f32(M, N) D) {
  C(m, n) +=! A(m, k) * W(n, k)
  D(m, n) = relu(C(m, n) + bias(n))
}
"""

# name: (source: an example's name or a def's text, sizes, {label: PyTorch expression}, what it
# is). Expressions see the inputs by name, torch, F (torch.nn.functional) and math. Labels
# ending in "(tf32)" run with torch.backends.cuda.matmul.allow_tf32 = True, the others with it
# False (PyTorch's default).
PROGRAMS = {
    "linear_f32": (
        LINEAR_F32, {"M": 4096, "N": 4096, "K": 4096},
        {"torch (tf32)": "torch.relu(F.linear(A, W, bias))", "torch (f32)": "torch.relu(F.linear(A, W, bias))"},
        "relu(A W^T + bias), f32, nn.Linear's layout; polyfuse: TF32 (TMA + wgmma on sm_90a)"),
    "attention_s256": (
        "attention", {"B": 32, "S": 256, "T": 256, "D": 64},
        {"torch eager": "torch.softmax(Q @ K.transpose(-1, -2) / math.sqrt(64), dim=-1) @ V",
         "torch sdpa": "F.scaled_dot_product_attention(Q, K, V)"},
        "softmax(Q K^T / sqrt(D)) V, f16; polyfuse: one attention kernel (online softmax, e rounded to f16)"),
    "attention_s1024": (
        "attention", {"B": 8, "S": 1024, "T": 1024, "D": 64},
        {"torch eager": "torch.softmax(Q @ K.transpose(-1, -2) / math.sqrt(64), dim=-1) @ V",
         "torch sdpa": "F.scaled_dot_product_attention(Q, K, V)"},
        "the same at T = 1024; polyfuse: one attention kernel (16 key tiles)"),
    "attention_s2048_d128": (
        "attention", {"B": 16, "S": 2048, "T": 2048, "D": 128},
        {"torch eager": "torch.softmax(Q @ K.transpose(-1, -2) / math.sqrt(128), dim=-1) @ V",
         "torch sdpa": "F.scaled_dot_product_attention(Q, K, V)"},
        "a head of 128 at T = 2048 (FlashAttention's benchmark shape); polyfuse: one attention kernel"),
    "causal_attention_s256": (
        "causal_attention", {"B": 32, "S": 256, "T": 256, "D": 64},
        {"torch eager": "torch.softmax((Q @ K.transpose(-1, -2) / math.sqrt(64)).masked_fill("
                        "torch.ones(256, 256, dtype=torch.bool, device=Q.device).triu(1), float('-inf')), dim=-1) @ V",
         "torch sdpa": "F.scaled_dot_product_attention(Q, K, V, is_causal=True)"},
        "the same with a causal mask (t <= s); polyfuse: one attention kernel, the mask a step on the scores"),
    "gemm_f32": (
        "gemm_f32", {"M": 4096, "N": 4096, "K": 4096},
        {"torch (tf32)": "torch.relu(torch.addmm(bias, A, B))", "torch (f32)": "torch.relu(torch.addmm(bias, A, B))"},
        "relu(A B + bias), f32, B(k, n); polyfuse: TF32 mma.sync (wgmma reads K-major tiles only)"),
    "mlp": (
        "mlp", {"M": 4096, "K": 1024, "H": 4096, "N": 1024},
        {"torch eager": "torch.addmm(b2, torch.relu(torch.addmm(b1, X, W1)), W2)"},
        "relu(X W1 + b1) W2 + b2, f16"),
}


def source_of(program):
    text = PROGRAMS[program][0]
    return text if "def " in text else (EXAMPLES / f"{text}.tc").read_text()


def reference_rows(torch, program, t, rows):
    """The program's output on `rows` (indices along its second-to-last dimension) in float64,
    written out from the definition."""
    d = {name: value.double() for name, value in t.items()}
    if "attention" in program:
        scores = d["Q"][:, rows, :] @ d["K"].transpose(-1, -2) / math.sqrt(d["Q"].shape[-1])
        if program.startswith("causal"):  # position s attends to t <= s
            t = torch.arange(scores.shape[-1], device=scores.device)
            scores = torch.where(t[None, :] <= torch.tensor(rows, device=scores.device)[:, None], scores, -1e30)
        e = torch.exp(scores - scores.max(dim=-1, keepdim=True).values)  # f32 in attention.tc: no rounding
        return (e @ d["V"]) / e.sum(dim=-1, keepdim=True)
    if program == "linear_f32":
        return (d["A"][rows, :] @ d["W"].T + d["bias"]).clamp_min(0)
    if program == "gemm_f32":
        return (d["A"][rows, :] @ d["B"] + d["bias"]).clamp_min(0)
    if program == "mlp":
        hidden = (d["X"][rows, :] @ d["W1"] + d["b1"]).clamp_min(0).half().double()  # A is f16 in mlp.tc
        return hidden @ d["W2"] + d["b2"]
    raise KeyError(program)


def tolerance(program, sizes):
    """(relative, absolute): loose enough for TF32 and f16 tensor cores in any summation order,
    tight enough that a lost k-block or a wrong scale fails."""
    if "attention" in program:
        return 2.0**-7, 2.0**-9  # an average of f16 values in [-1, 1): f16 output rounding and exp
    k = sizes["K"]
    if program in ("linear_f32", "gemm_f32"):
        return 2.0**-8, 4 * 2.0**-10 * math.sqrt(k)  # TF32 factors: 2^-10 each, random signs
    return 2.0**-7, 4 * 2.0**-11 * (math.sqrt(k) + math.sqrt(sizes["H"]) * math.sqrt(k) / 3)


def make_inputs(torch, kernel, sizes, device):
    """Uniform [-1, 1) inputs in the def's element types, by name, in signature order."""
    types = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}
    generator = torch.Generator(device=device).manual_seed(1)
    tensors = {}
    for parameter in kernel._inputs:  # the def's inputs (polyfuse's own package)
        extents = [sizes[s] if s in sizes else int(s) for s in parameter.shape]
        tensors[parameter.name] = (torch.rand(extents, generator=generator, device=device) * 2 - 1).to(types[parameter.element])
    return tensors


def check(torch, program, sizes, tensors, out):
    rows = sorted({0, out.shape[-2] // 2, out.shape[-2] - 1})
    expected = reference_rows(torch, program, tensors, rows)
    actual = out[..., rows, :].double()
    relative, absolute = tolerance(program, sizes)
    bad = (actual - expected).abs() > relative * expected.abs() + absolute
    if bool(bad.any()):
        worst = float((actual - expected).abs().max())
        return f"{int(bad.sum())} of {bad.numel()} checked elements out of tolerance (largest error {worst:.3g})"
    return None


def main():
    parser = argparse.ArgumentParser(description="Time whole .tc programs against PyTorch on one GPU.")
    parser.add_argument("--csv", help="where to write one row per program and call")
    parser.add_argument("--program", action="append", choices=sorted(PROGRAMS), help="only these (repeatable)")
    parser.add_argument("--dry-run", action="store_true", help="compile every program and list the calls; time nothing")
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--time-limit", type=float, default=0, help="seconds; start no new program after them")
    args = parser.parse_args()
    import polyfuse

    names = args.program or list(PROGRAMS)
    if args.dry_run:
        for name in names:
            _, sizes, calls, what = PROGRAMS[name]
            kernel = polyfuse.compile(source_of(name), backend="emu", arch="sm_90a", **sizes)
            config = kernel.config
            print(f"{name}: {what}")
            print(f"  sizes {' '.join(f'{k}={v}' for k, v in sizes.items())}; polyfuse for sm_90a: "
                  f"{config['kernel_count']} kernel(s), the first: {config['options'][:80]}")
            for label, expression in calls.items():
                print(f"  {label}: {expression}")
        print(f"method: CUDA events, {args.warmup} warm-up calls, median of {args.repeats}, L2 flushed before each")
        return 0

    try:
        import torch
    except ImportError:
        sys.exit("torch_programs.py: torch is not installed (needed to time; --dry-run needs none)")
    if not torch.cuda.is_available():
        sys.exit("torch_programs.py: torch sees no CUDA device")
    torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False
    flush = torch.empty(2 * torch.cuda.get_device_properties(0).L2_cache_size, dtype=torch.uint8, device="cuda")
    F = torch.nn.functional
    device = torch.cuda.get_device_name(0)
    print(f"torch {torch.__version__}, polyfuse {polyfuse.__version__}, {device}")

    rows, failures, summaries, start, left_out = [], [], [], time.monotonic(), 0
    for name in names:
        if args.time_limit and time.monotonic() - start > args.time_limit:
            left_out += 1
            continue
        _, sizes, calls, what = PROGRAMS[name]
        kernel = polyfuse.compile(source_of(name), backend="cuda", **sizes)
        tensors = make_inputs(torch, kernel, sizes, "cuda")
        inputs = list(tensors.values())
        out = kernel(*inputs)
        out = out[0] if isinstance(out, tuple) else out
        results = {}
        failure = check(torch, name, sizes, tensors, out)
        if failure:
            failures.append(f"{name} polyfuse: {failure}")
        else:
            results["polyfuse"] = median_ms(torch, lambda: kernel(*inputs, out=out), args.warmup, args.repeats, flush)
        env = dict(tensors, torch=torch, F=F, math=math)
        for label, expression in calls.items():
            code = compile(expression, label, "eval")
            torch.backends.cuda.matmul.allow_tf32 = label.endswith("(tf32)")
            failure = check(torch, name, sizes, tensors, eval(code, env))  # noqa: S307 - the table above
            if failure:
                failures.append(f"{name} {label}: {failure}")
                continue
            results[label] = median_ms(torch, lambda code=code: eval(code, env), args.warmup, args.repeats, flush)  # noqa: S307
        torch.backends.cuda.matmul.allow_tf32 = False
        if "polyfuse" in results:
            summaries.append(f"{name} polyfuse {results['polyfuse']:.3f} ms; " + "; ".join(
                f"{label} {ms:.3f} ms ({ms / results['polyfuse']:.2f}x)" for label, ms in results.items() if label != "polyfuse"))
        print(f"{name}: {what}")
        for label, ms in results.items():
            speedup = f"  (polyfuse {ms / results['polyfuse']:.2f}x)" if "polyfuse" in results and label != "polyfuse" else ""
            print(f"  {label:<14} {ms:9.4f} ms{speedup}")
            rows.append({"program": name, "sizes": " ".join(f"{k}={v}" for k, v in sizes.items()), "call": label,
                         "ms": f"{ms:.6g}", "device": device,
                         "speedup_polyfuse": f"{ms / results['polyfuse']:.4g}" if "polyfuse" in results else ""})
    if args.csv:
        with open(args.csv, "w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=["program", "sizes", "call", "ms", "speedup_polyfuse", "device"])
            writer.writeheader()
            writer.writerows(rows)
    print(f"method: CUDA events, {args.warmup} warm-up calls, median of {args.repeats}, L2 flushed before each")
    for line in summaries:  # one line a program: the GPU kit's notes
        print(f"summary: {line}")
    if left_out:
        print(f"stopped at the time limit: {left_out} programs left out")
    for failure in failures:
        print(f"CHECK FAILED: {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
