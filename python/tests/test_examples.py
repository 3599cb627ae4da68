"""Every example of examples/ through NumPy on the emulator and the CPU target, against the
NumPy references of references.py; the compiled kernel's facts (source, config, plan)."""

import numpy as np
import pytest

import polyfuse
from conftest import EXAMPLES_DIR
from references import COMPILE_SIZES, EXAMPLES, assert_close, expected, inputs

ALL_EXAMPLES = sorted(path.stem for path in EXAMPLES_DIR.glob("*.tc"))
# What each backend refuses (with a located SourceError): batch-reduce matmuls on the GPU path.
REFUSED = {"cpu": set(), "emu": {"brgemm"}}


def _outputs(result):
    return result if isinstance(result, tuple) else (result,)


@pytest.mark.parametrize("backend", ["emu", "cpu"])
@pytest.mark.parametrize("example", ALL_EXAMPLES)
def test_example_matches_numpy(example, backend, example_source):
    if example not in EXAMPLES:
        pytest.skip(f"examples/{example}.tc has no NumPy reference in python/tests/references.py")
    arrays = inputs(example)
    try:
        sizes = {name: EXAMPLES[example][0][name] for name in COMPILE_SIZES.get(example, ())}
        kernel = polyfuse.compile(example_source(example), backend=backend, name=f"{example}.tc", **sizes)
        result = kernel(*arrays)  # every other size taken from the arrays
    except polyfuse.SourceError as e:
        if example in REFUSED[backend]:
            pytest.skip(f"backend {backend!r} refuses {example} ({e.file}:{e.line}:{e.column})")
        raise
    for actual, reference in zip(_outputs(result), expected(example, arrays)):
        assert actual.shape == reference.shape
        assert_close(actual, reference, "f16" if actual.dtype == np.float16 else "f32")


def test_sizes_given_to_compile_and_out(example_source):
    kernel = polyfuse.compile(example_source("gemm"), backend="emu", M=13, N=24, K=40)
    assert "__global__" in kernel.cuda_source
    assert kernel.config["kernel"] == "gemm"
    assert kernel.config["kernel_count"] == 1
    assert kernel.config["workspace_bytes"] == 0
    assert kernel.metadata["kernel"] == "gemm"
    assert "kernel" in kernel.plan
    a, b = inputs("gemm")
    c = np.full((13, 24), np.nan, dtype=np.float16)
    assert kernel(a, b, out=c) is c
    assert_close(c, expected("gemm", [a, b])[0], "f16")


def test_autotune_chooses_the_tiles(example_source):
    # no GPU here: the autotuner ranks its candidates by ptxas's facts (NVRTC) and compiles
    # the static winner; the kernel must still compute the GEMM
    try:
        kernel = polyfuse.compile(example_source("gemm"), backend="emu", autotune=True, M=13, N=24, K=40)
        a, b = inputs("gemm")
        c = kernel(a, b)
    except polyfuse.Error as error:
        if "built without the CUDA toolkit" in str(error):
            pytest.skip("autotune needs NVRTC: " + str(error))
        raise
    assert_close(c, expected("gemm", [a, b])[0], "f16")
    with pytest.raises(polyfuse.SourceError, match="autotune chooses the tile options itself"):
        polyfuse.compile(example_source("gemm"), backend="emu", autotune=True, stages=3, M=13, N=24, K=40)


def test_sm90a_kernel_options(example_source):
    # the sm_90a TMA + wgmma kernel's own options: its consumers' schedule and a cluster of two
    # blocks sharing B by TMA multicast, on the emulator
    kernel = polyfuse.compile(example_source("gemm"), backend="emu", arch="sm_90a", consumer_schedule="pingpong",
                              cluster="2x1", M=13, N=24, K=40)
    assert "cluster" in kernel.cuda_source
    a, b = inputs("gemm")
    assert_close(kernel(a, b), expected("gemm", [a, b])[0], "f16")
    with pytest.raises(polyfuse.SourceError, match="only the sm_90a warp-specialised TMA \\+ wgmma kernel has thread-block clusters"):
        polyfuse.compile(example_source("gemm"), backend="emu", arch="sm_80", cluster="2x1", M=13, N=24, K=40)
    with pytest.raises(polyfuse.SourceError, match="unknown cluster '3x1'"):
        polyfuse.compile(example_source("gemm"), backend="emu", arch="sm_90a", cluster="3x1", M=13, N=24, K=40)
    with pytest.raises(polyfuse.SourceError, match="CompileOptions::cluster has no meaning for Backend::cpu"):
        polyfuse.compile(example_source("gemm"), backend="cpu", cluster="2x1", M=13, N=24, K=40)


def test_f32_matmul_modes():
    # f32 operands on TF32 tensor cores (the default), 3xTF32, or exactly on CUDA cores; the
    # plan says which; an f32 A beside an f16 B (mixed types) runs on TF32 too, B widened
    rng = np.random.default_rng(3)
    a = (rng.integers(-8, 8, size=(13, 40)) / 8 + 1 / 3).astype(np.float32)
    b = (rng.integers(-8, 8, size=(40, 24)) / 8 + 1 / 7).astype(np.float32)
    exact = a.astype(np.float64) @ b.astype(np.float64)
    gemm = "def gemm(f32(M, K) A, f32(K, N) B) -> (f32(M, N) C) {\n  C(m, n) +=! A(m, k) * B(k, n)\n}\n"
    errors = {}
    for mode, plan_text in [("tf32", "TF32 (f32_matmul=tf32"), ("3xtf32", "3xTF32"), ("f32", "reduction")]:
        kernel = polyfuse.compile(gemm, backend="emu", f32_matmul=mode, M=13, N=24, K=40)
        assert plan_text in kernel.plan, kernel.plan
        errors[mode] = np.abs(kernel(a, b) - exact).max()
    assert errors["3xtf32"] < 1e-4 < errors["tf32"] < 1e-1
    mixed = polyfuse.compile("def mixed(f32(M, K) A, f16(K, N) B) -> (f32(M, N) C) {\n  C(m, n) +=! A(m, k) * B(k, n)\n}\n",
                             backend="emu", M=13, N=24, K=40)
    assert "mixed operands: A is f32 and B is f16" in mixed.plan, mixed.plan
    b16 = b.astype(np.float16)
    np.testing.assert_allclose(mixed(a, b16), a.astype(np.float64) @ b16.astype(np.float64), rtol=1e-2, atol=1e-1)
    with pytest.raises(polyfuse.SourceError, match="f32_matmul"):
        polyfuse.compile(gemm, backend="emu", f32_matmul="fp64", M=13, N=24, K=40)


def test_a_plan_is_called_like_one_kernel(example_source):
    # A row of 264 columns does not fit a block tile: the matmul kernel, then the row chain's.
    kernel = polyfuse.compile(example_source("gemm_softmax"), backend="emu", M=9, N=264, K=24)
    assert kernel.config["kernel_count"] > 1
    assert kernel.config["workspace_bytes"] > 0
    assert kernel.metadata[-1]["workspace_bytes"] == kernel.config["workspace_bytes"]
    assert "gemm_softmax_k1 (row chain)" in kernel.plan
    rng = np.random.default_rng(1)
    a = (rng.integers(-8, 8, size=(9, 24)) / 8).astype(np.float16)
    b = (rng.integers(-8, 8, size=(24, 264)) / 8).astype(np.float16)
    assert_close(kernel(a, b), expected("gemm_softmax", [a, b])[0], "f16")


def test_a_row_chain_runs_in_the_matmul_kernel(example_source):
    # A row of 40 columns fits a block tile: softmax on the accumulators, one kernel.
    kernel = polyfuse.compile(example_source("gemm_softmax"), backend="emu", M=9, N=40, K=24)
    assert kernel.config["kernel_count"] == 1
    assert "runs in the epilogue on the accumulator fragments" in kernel.plan
    a, b = inputs("gemm_softmax")
    assert_close(kernel(a, b), expected("gemm_softmax", [a, b])[0], "f16")


def test_unbound_sizes_compile_once_per_shape(example_source):
    kernel = polyfuse.compile(example_source("softmax"), backend="emu")
    assert kernel.unbound_sizes == ["M", "N"]
    for rows in (3, 5, 3):
        x = inputs("softmax")[0][:rows].copy()
        assert_close(kernel(x), expected("softmax", [x])[0], "f16")
    assert len(kernel._compiled) == 2
    assert "polyfuse_launch_softmax" in kernel.cuda_source


def test_cpu_backend_runs_the_cpu_target(example_source):
    kernel = polyfuse.compile(example_source("gemm"), backend="cpu", M=13, N=24, K=40)
    assert "polyfuse_gemm" in kernel.source
    assert kernel.plan == ""
    a, b = inputs("gemm")
    assert_close(kernel(a, b), expected("gemm", [a, b])[0], "f16")


def test_cpu_constant_inputs_are_kept_until_forgotten(example_source):
    kernel = polyfuse.compile(example_source("gemm"), backend="cpu", constant_inputs=["B"], M=13, N=24, K=40)
    a, b = inputs("gemm")
    first = expected("gemm", [a, b])[0]
    kernel.forget_constants()
    assert_close(kernel(a, b), first, "f16")
    saved = b.copy()
    b[...] = -b  # other values in the same array: the kept packed copy is used
    assert_close(kernel(a, b), first, "f16")
    kernel.forget_constants()
    assert_close(kernel(a, b), expected("gemm", [a, b])[0], "f16")
    b[...] = saved
    with pytest.raises(polyfuse.SourceError):
        polyfuse.compile(example_source("gemm"), backend="cpu", constant_inputs=["W"], M=13, N=24, K=40)


def test_read_only_inputs_are_accepted(example_source):
    kernel = polyfuse.compile(example_source("softmax"), backend="emu")
    (x,) = inputs("softmax")
    x.flags.writeable = False
    assert_close(kernel(x), expected("softmax", [x])[0], "f16")
