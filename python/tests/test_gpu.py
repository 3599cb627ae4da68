"""GPU tests: PyTorch and CuPy device arrays through DLPack on the cuda backend, on the
framework's current stream. Skipped (with the reason) without a CUDA device or the framework;
the GPU check kit runs them."""

import numpy as np
import pytest

import polyfuse
from references import assert_close, expected, inputs

requires_gpu = pytest.mark.skipif(not polyfuse.cuda_device_available(),
                                  reason=f"needs a CUDA device ({polyfuse.cuda_device_description()})")


@requires_gpu
def test_torch_gemm_allocates_on_the_inputs_device(example_source):
    torch = pytest.importorskip("torch")
    a, b = inputs("gemm")
    kernel = polyfuse.compile(example_source("gemm"), backend="cuda")
    c = kernel(torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda())
    assert c.is_cuda and c.dtype == torch.float16
    assert_close(c.cpu().numpy(), expected("gemm", [a, b])[0], "f16")


@requires_gpu
def test_torch_plan_runs_on_the_current_stream(example_source):
    torch = pytest.importorskip("torch")
    (x,) = inputs("softmax")
    kernel = polyfuse.compile(example_source("softmax"), backend="cuda")
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        xs = torch.from_numpy(x).cuda(non_blocking=True)
        y = torch.empty_like(xs)
        kernel(xs, out=y)  # queued on `stream`, after the copy
    stream.synchronize()
    assert_close(y.cpu().numpy(), expected("softmax", [x])[0], "f16")


@requires_gpu
def test_cupy_gemm(example_source):
    cupy = pytest.importorskip("cupy")
    a, b = inputs("gemm")
    kernel = polyfuse.compile(example_source("gemm"), backend="cuda")
    c = kernel(cupy.asarray(a), cupy.asarray(b))
    assert_close(cupy.asnumpy(c), expected("gemm", [a, b])[0], "f16")


@requires_gpu
def test_host_array_is_refused_on_cuda(example_source):
    kernel = polyfuse.compile(example_source("gemm"), backend="cuda")
    a, b = inputs("gemm")
    with pytest.raises(polyfuse.ArgumentError, match="runs on CUDA device memory"):
        kernel(a, np.asarray(b))
