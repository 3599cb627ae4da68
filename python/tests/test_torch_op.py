"""polyfuse.torch.op on CPU tensors: a .tc def registered as a torch.library operator, run on the
CPU target (and the emulator), checked by torch.library.opcheck (schema, fake implementation,
dispatch) and called inside torch.compile. Skipped, saying so, where torch is not installed
(the CI's environment); the GPU check kit's python stage runs the CUDA variant (test_gpu.py)."""

import itertools

import numpy as np
import pytest

import polyfuse
from references import assert_close, expected, inputs

torch = pytest.importorskip("torch", reason="torch is not installed: polyfuse.torch needs it")
import polyfuse.torch  # noqa: E402  (after the skip)

_names = (f"op{i}" for i in itertools.count())


def register(source, **options):
    """A fresh operator name per test: torch.library keeps names for the whole process."""
    return polyfuse.torch.op(f"polyfuse_test::{next(_names)}", source, **options)


def tensors(arrays):
    return [torch.from_numpy(a) for a in arrays]


@pytest.mark.parametrize("cpu_backend", ["cpu", "emu"])
def test_op_runs_on_cpu_tensors(example_source, cpu_backend):
    op = register(example_source("gemm_bias_relu"), cpu_backend=cpu_backend)
    assert op.schema == "(Tensor A, Tensor B, Tensor bias) -> Tensor"
    arrays = inputs("gemm_bias_relu")
    d = op(*tensors(arrays))
    assert d.dtype == torch.float16 and d.shape == (13, 24)
    assert_close(d.numpy(), expected("gemm_bias_relu", arrays)[0], "f16")
    # the same operator through torch.ops
    namespace, name = op.qualname.split("::")
    again = getattr(getattr(torch.ops, namespace), name)(*tensors(arrays))
    assert torch.equal(d, again)


def test_op_passes_opcheck(example_source):
    op = register(example_source("gemm_bias_relu"))
    namespace, name = op.qualname.split("::")
    torch.library.opcheck(getattr(getattr(torch.ops, namespace), name).default, tuple(tensors(inputs("gemm_bias_relu"))))


def test_op_in_torch_compile(example_source):
    op = register(example_source("softmax"))
    (x,) = inputs("softmax")

    @torch.compile(backend="aot_eager", fullgraph=True)  # traced with fake tensors, no code generated
    def scaled(t):
        return op(t * 2.0) * 0.5

    y = scaled(torch.from_numpy(x))
    assert_close(y.numpy() * 2.0, expected("softmax", [x * 2.0])[0], "f16")


def test_non_contiguous_inputs_are_made_contiguous(example_source):
    op = register(example_source("gemm"))
    a, b = inputs("gemm")
    bt = torch.from_numpy(np.ascontiguousarray(b.T)).t()  # the same values, column-major
    assert not bt.is_contiguous()
    assert_close(op(torch.from_numpy(a), bt).numpy(), expected("gemm", [a, b])[0], "f16")


def test_wrong_dtype_is_a_polyfuse_error(example_source):
    op = register(example_source("gemm"))
    a, b = inputs("gemm")
    with pytest.raises(polyfuse.ArgumentError, match="dtype float32 but the def declares f16"):
        op(torch.from_numpy(a).float(), torch.from_numpy(b))


def test_bad_names_and_sources_are_refused(example_source):
    with pytest.raises(polyfuse.Error, match='"namespace::name"'):
        polyfuse.torch.op("no_namespace", example_source("gemm"))
    with pytest.raises(polyfuse.Error, match='cpu_backend must be "cpu" or "emu"'):
        polyfuse.torch.op("polyfuse_test::bad_backend", example_source("gemm"), cpu_backend="cuda")
    with pytest.raises(polyfuse.SourceError):
        polyfuse.torch.op("polyfuse_test::bad_source", "def f(f16(M) A) -> (f16(M) B) { B(m) = }")
