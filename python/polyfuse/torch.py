"""polyfuse.torch: a .tc def as a PyTorch custom operator (torch.library), callable in eager mode
and inside functions compiled with torch.compile (its fake implementation gives the outputs'
shapes and dtypes without running anything).

    import polyfuse.torch
    gemm_bias_relu = polyfuse.torch.op("mylib::gemm_bias_relu", open("examples/gemm_bias_relu.tc").read())
    D = gemm_bias_relu(A, B, bias)        # also torch.ops.mylib.gemm_bias_relu(A, B, bias)

CUDA tensors run the def on the GPU (the "cuda" backend, on PyTorch's current stream); CPU
tensors on the CPU target ("cpu", or cpu_backend="emu" for the CUDA emulator). Each backend is
compiled at its first call, and each set of sizes the shapes give once (polyfuse's caches).
Inputs that are not contiguous are made so; the outputs are allocated with torch.empty on the
inputs' device. The operator has no autograd formula: it is for inference, and a backward
through it raises PyTorch's error for ops without one.
"""

from __future__ import annotations

import atexit
import re
import weakref
from typing import Any, Dict, List, Tuple

import torch

from . import _polyfuse
from ._errors import ArgumentError, Error
from ._kernel import _NUMPY_NAMES, _SIZE_NAME, Kernel, _output_shape, _Parameter, compile

_QUALNAME = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)::([A-Za-z_][A-Za-z0-9_]*)$")


# Every operator made: torch.library keeps them (and their compiled kernels) until the process
# ends, after the extension's own teardown; their kernels are released at exit, first.
_OPERATORS: "weakref.WeakSet[Op]" = weakref.WeakSet()
atexit.register(lambda: [operator._kernels.clear() for operator in list(_OPERATORS)])

# polyfuse.compile's options that are not sizes; those of the GPU path are left out on "cpu",
# those of the CPU target on the GPU path.
_GPU_OPTIONS = ("arch", "block", "warp", "mma", "split_k", "stages", "group", "consumer_schedule", "f32_matmul", "cluster",
                "autotune")
_CPU_OPTIONS = ("threads", "cpu_block", "min_parallel_flops")
_OPTIONS = _GPU_OPTIONS + _CPU_OPTIONS + ("fast_math", "line_info", "use_cache")


class Op:
    """A registered operator: call it like the def, on tensors in signature order."""

    def __init__(self, qualname: str, source: str, def_: str, name: str, cpu_backend: str,
                 options: Dict[str, Any]):
        self.qualname = qualname
        self._source, self._def, self._name, self._cpu_backend = source, def_, name, cpu_backend
        self._options = {k: v for k, v in options.items() if k in _OPTIONS}
        self._sizes = {k: v for k, v in options.items() if k not in _OPTIONS}
        signature = _polyfuse.signature(source, name, self._sizes, def_)  # SourceError for a bad source
        self._inputs = [_Parameter(*p) for p in signature if p[1] == "input"]
        self._outputs = [_Parameter(*p) for p in signature if p[1] == "output"]
        self._kernels: Dict[str, Kernel] = {}

    @property
    def schema(self) -> str:
        """The operator's schema, e.g. "(Tensor A, Tensor B) -> Tensor"."""
        inputs = ", ".join(f"Tensor {p.name}" for p in self._inputs)
        outputs = "Tensor" if len(self._outputs) == 1 else "(" + ", ".join("Tensor" for _ in self._outputs) + ")"
        return f"({inputs}) -> {outputs}"

    def __call__(self, *tensors: torch.Tensor) -> Any:
        namespace, operator = self.qualname.split("::")
        return getattr(getattr(torch.ops, namespace), operator)(*tensors)

    def __repr__(self) -> str:
        return f"<polyfuse.torch.Op {self.qualname}{self.schema}>"

    def _kernel(self, device_type: str) -> Kernel:
        backend = "cuda" if device_type == "cuda" else self._cpu_backend
        if backend not in self._kernels:
            options = dict(self._options)
            if backend != "cuda":  # the GPU path's options do not apply to the host backends
                options = {k: v for k, v in options.items() if k not in _GPU_OPTIONS}
            if backend != "cpu":  # nor the CPU target's to the GPU path
                options = {k: v for k, v in options.items() if k not in _CPU_OPTIONS}
            self._kernels[backend] = compile(self._source, backend=backend, def_=self._def, name=self._name,
                                             **options, **self._sizes)
        return self._kernels[backend]

    def _output_specs(self, tensors: Tuple[torch.Tensor, ...]) -> List[Tuple[Tuple[int, ...], torch.dtype]]:
        """The shape and dtype of each output, from the sizes the inputs' shapes bind."""
        if len(tensors) != len(self._inputs):
            raise ArgumentError(f"polyfuse op {self.qualname} takes {len(self._inputs)} tensors "
                                f"({', '.join(p.declaration() for p in self._inputs)}) but got {len(tensors)}")
        sizes = dict(self._sizes)
        for tensor, parameter in zip(tensors, self._inputs):
            if tensor.dim() != len(parameter.shape):
                raise ArgumentError(f"polyfuse op {self.qualname}: {parameter.declaration()} has rank "
                                    f"{len(parameter.shape)} but the tensor has shape {tuple(tensor.shape)}")
            for declared, extent in zip(parameter.shape, tensor.shape):
                if _SIZE_NAME.match(declared):
                    sizes.setdefault(declared, extent)
        return [(_output_shape(parameter, sizes, f"polyfuse op {self.qualname}", "bind it in polyfuse.torch.op()"),
                 getattr(torch, _NUMPY_NAMES[parameter.element])) for parameter in self._outputs]

    def _empty_outputs(self, tensors: Tuple[torch.Tensor, ...]) -> List[torch.Tensor]:
        device = tensors[0].device if tensors else torch.device("cpu")
        return [torch.empty(shape, dtype=dtype, device=device) for shape, dtype in self._output_specs(tensors)]

    def _run(self, *tensors: torch.Tensor) -> Any:
        """The implementation on CPU and CUDA tensors."""
        outputs = self._empty_outputs(tensors)
        device_type = tensors[0].device.type if tensors else "cpu"
        self._kernel(device_type)(*(t.contiguous() for t in tensors), out=outputs)
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    def _fake(self, *tensors: torch.Tensor) -> Any:
        """The fake (meta) implementation: the outputs' shapes and dtypes, nothing run."""
        outputs = self._empty_outputs(tensors)
        return outputs[0] if len(outputs) == 1 else tuple(outputs)


def op(qualname: str, source: str, *, def_: str = "", name: str = "<source>", cpu_backend: str = "cpu",
       **options: Any) -> Op:
    """Registers the def `def_` (default: the first) of the .tc text `source` as the PyTorch
    operator `qualname` ("namespace::name", as torch.library wants) and returns it.

    cpu_backend: "cpu" (the CPU target) or "emu" (the CUDA emulator) for CPU tensors. options:
    polyfuse.compile's (sizes such as M=1024 to bind; arch, block, warp, ... for the GPU path;
    fast_math, use_cache). Raises polyfuse.SourceError for a bad source, polyfuse.Error for a bad
    name or backend; calls raise polyfuse.ArgumentError for tensors the def does not accept."""
    if not _QUALNAME.match(qualname):
        raise Error(f'polyfuse.torch.op: the name must be "namespace::name" (identifiers), got {qualname!r}')
    if cpu_backend not in ("cpu", "emu"):
        raise Error(f'polyfuse.torch.op: cpu_backend must be "cpu" or "emu", got {cpu_backend!r}')
    operator = Op(qualname, source, def_, name, cpu_backend, options)
    _OPERATORS.add(operator)
    torch.library.define(qualname, operator.schema)
    torch.library.register_kernel(qualname, ("cpu", "cuda"), operator._run)
    torch.library.register_fake(qualname, operator._fake)
    return operator
