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


@requires_gpu
def test_torch_op_on_cuda_tensors_and_in_torch_compile(example_source):
    torch = pytest.importorskip("torch")
    import polyfuse.torch

    op = polyfuse.torch.op("polyfuse_gpu_test::gemm_bias_relu", example_source("gemm_bias_relu"))
    arrays = inputs("gemm_bias_relu")
    cuda = [torch.from_numpy(a).cuda() for a in arrays]
    d = op(*cuda)
    assert d.is_cuda and d.dtype == torch.float16
    assert_close(d.cpu().numpy(), expected("gemm_bias_relu", arrays)[0], "f16")
    torch.library.opcheck(torch.ops.polyfuse_gpu_test.gemm_bias_relu.default, tuple(cuda))

    @torch.compile(backend="aot_eager", fullgraph=True)
    def doubled(a, b, bias):
        return op(a, b, bias) * 2.0

    assert_close(doubled(*cuda).cpu().numpy() / 2.0, expected("gemm_bias_relu", arrays)[0], "f16")
