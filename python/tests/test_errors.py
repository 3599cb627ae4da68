"""Every error path of the package: bad source and options, and calls whose arrays do not match
the def (count, dtype, rank, shape, contiguity, device, unknown size, out=)."""

import numpy as np
import pytest

import polyfuse

GEMM = "def gemm(f16(M, K) A, f16(K, N) B) -> (f16(M, N) C) {\n  C(m, n) +=! A(m, k) * B(k, n)\n}\n"


def _gemm(**sizes):
    return polyfuse.compile(GEMM, backend="emu", name="gemm.tc", **sizes)


def _f16(*shape):
    return np.zeros(shape, dtype=np.float16)


def test_source_error_carries_file_line_column():
    with pytest.raises(polyfuse.SourceError) as info:
        polyfuse.compile("def broken(f16(M) A) -> (f16(M) B) {\n  B(m) = X(m)\n}\n", name="broken.tc", backend="emu")
    assert (info.value.file, info.value.line) == ("broken.tc", 2)
    assert info.value.column > 0
    assert "broken.tc:2:" in str(info.value) and "'X'" in str(info.value)
    assert isinstance(info.value, polyfuse.Error)


def test_unknown_def_and_bad_options():
    with pytest.raises(polyfuse.SourceError, match="no def of that name"):
        polyfuse.compile(GEMM, backend="emu", def_="nope")
    with pytest.raises(polyfuse.SourceError, match="split_k must be 1, 2 or 4, got 3"):
        polyfuse.compile(GEMM, backend="emu", split_k=3, M=64, N=64, K=64)
    with pytest.raises(polyfuse.SourceError):
        polyfuse.compile(GEMM, backend="emu", block="64x64", M=64, N=64, K=64)
    with pytest.raises(polyfuse.SourceError):
        polyfuse.compile(GEMM, backend="emu", arch="sm_70", M=64, N=64, K=64)
    with pytest.raises(polyfuse.Error, match='backend must be "cuda", "emu" or "cpu"'):
        polyfuse.compile(GEMM, backend="tpu")
    with pytest.raises(polyfuse.Error, match="size M must be an int"):
        polyfuse.compile(GEMM, backend="emu", M=1.5)
    with pytest.raises(polyfuse.SourceError, match="size M = 0 must be at least 1"):
        polyfuse.compile(GEMM, backend="emu", M=0)


def test_gpu_options_are_refused_on_cpu():
    with pytest.raises(polyfuse.SourceError, match="block has no meaning for Backend::cpu"):
        polyfuse.compile(GEMM, backend="cpu", block="64x64x32", M=64, N=64, K=64)


def test_threads_are_the_cpu_targets():
    # several row blocks on any machine (the block height follows the host's L2): a parallel loop
    kernel = polyfuse.compile(GEMM, backend="cpu", threads=2, M=2048, N=256, K=64)
    assert "num_threads(2)" in kernel.source
    with pytest.raises(polyfuse.SourceError, match="threads is an option of the CPU target"):
        polyfuse.compile(GEMM, backend="emu", threads=2, M=64, N=64, K=64)
    with pytest.raises(polyfuse.SourceError, match="threads = 0 must be at least 1"):
        polyfuse.compile(GEMM, backend="cpu", threads=0, M=64, N=64, K=64)


def test_wrong_argument_count():
    with pytest.raises(polyfuse.ArgumentError,
                       match=r"polyfuse kernel 'gemm' takes 2 inputs \(f16\(M, K\) A, f16\(K, N\) B\) but got 1"):
        _gemm()(_f16(4, 8))


def test_wrong_dtype():
    with pytest.raises(polyfuse.ArgumentError,
                       match=r"argument 2 \(f16\(K, N\) B, input\): dtype float32 but the def declares f16 \(float16\)"):
        _gemm()(_f16(4, 8), np.zeros((8, 8), dtype=np.float32))


def test_wrong_rank():
    with pytest.raises(polyfuse.ArgumentError, match=r"argument 1 \(f16\(M, K\) A, input\): rank 3 \(shape \(1, 4, 8\)\)"
                       r" but the def declares rank 2"):
        _gemm()(_f16(1, 4, 8), _f16(8, 8))


def test_inconsistent_shapes():
    with pytest.raises(polyfuse.ArgumentError,
                       match=r"argument 2 \(f16\(K, N\) B, input\): dimension 0 is 7 but K = 8 "
                             r"\(from argument 1 dimension 1\)"):
        _gemm()(_f16(4, 8), _f16(7, 8))
    with pytest.raises(polyfuse.ArgumentError, match=r"dimension 0 is 5 but the def declares 4"):
        _gemm(M=4)(_f16(5, 8), _f16(8, 8))


def test_non_contiguous_input():
    with pytest.raises(polyfuse.ArgumentError, match=r"argument 1 \(f16\(M, K\) A, input\): not C-contiguous"):
        _gemm()(_f16(8, 4).T, _f16(8, 8))


def test_not_an_array():
    with pytest.raises(polyfuse.ArgumentError, match="expected a NumPy array or an array with __dlpack__, got list"):
        _gemm()([[1.0]], _f16(1, 8))


def test_host_array_on_cuda_backend():
    kernel = polyfuse.compile(GEMM, backend="cuda")  # unbound sizes: nothing compiled yet
    with pytest.raises(polyfuse.ArgumentError, match="backend 'cuda' runs on CUDA device memory"):
        kernel(_f16(4, 8), _f16(8, 8))


def test_size_given_by_no_input():
    source = "def widen(f32(M) A) -> (f32(M, N) B) {\n  B(m, n) = A(m)\n}\n"
    kernel = polyfuse.compile(source, backend="emu")
    with pytest.raises(polyfuse.ArgumentError, match=r"size N of output f32\(M, N\) B is not given by any input"):
        kernel(np.zeros(4, dtype=np.float32))
    out = np.zeros((4, 3), dtype=np.float32)
    kernel(np.arange(4, dtype=np.float32), out=out)
    np.testing.assert_array_equal(out, np.repeat(np.arange(4, dtype=np.float32)[:, None], 3, axis=1))


def test_bad_out():
    kernel = _gemm()
    a, b = _f16(4, 8), _f16(8, 8)
    with pytest.raises(polyfuse.ArgumentError, match=r"out= has 2 arrays but the def has 1 output \(f16\(M, N\) C\)"):
        kernel(a, b, out=(_f16(4, 8), _f16(4, 8)))
    with pytest.raises(polyfuse.ArgumentError, match=r"out \(C\) \(f16\(M, N\) C, output\): dimension 1 is 9 but N = 8"):
        kernel(a, b, out=_f16(4, 9))
    read_only = _f16(4, 8)
    read_only.flags.writeable = False
    with pytest.raises(polyfuse.ArgumentError, match="the output array is read-only"):
        kernel(a, b, out=read_only)


def test_compiled_facts_need_the_sizes():
    with pytest.raises(polyfuse.Error, match="sizes M, K, N are unbound"):
        _gemm().cuda_source


def test_cpu_backend_has_no_cuda_source():
    kernel = polyfuse.compile(GEMM, backend="cpu", M=16, N=16, K=16)
    with pytest.raises(polyfuse.Error, match='backend "cpu" generates C\\+\\+, not CUDA'):
        kernel.cuda_source


def test_cpu_blocks_and_parallel_threshold_are_the_cpu_targets():
    """cpu_block and min_parallel_flops reach the CPU target's schedule; refused on the GPU path."""
    kernel = polyfuse.compile(GEMM, backend="cpu", cpu_block="5x7x3", min_parallel_flops=0, threads=3, M=13, N=24, K=40)
    assert "(mc=5 nc=7 kc=3)" in kernel.source
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((13, 40)).astype(np.float16), rng.standard_normal((40, 24)).astype(np.float16)
    expected = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(kernel(a, b).astype(np.float64), expected, rtol=2e-2, atol=2e-2)
    with pytest.raises(polyfuse.SourceError, match="cpu_block is an option of the CPU target"):
        polyfuse.compile(GEMM, backend="emu", cpu_block="8x8x8", M=64, N=64, K=64)
    with pytest.raises(polyfuse.SourceError, match="min_parallel_flops = -1 must be at least 0"):
        polyfuse.compile(GEMM, backend="cpu", min_parallel_flops=-1, M=64, N=64, K=64)
