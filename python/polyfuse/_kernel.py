"""polyfuse.compile and the Kernel it returns: a .tc def callable on arrays.

A call checks every array against the def's signature (count, dtype, rank, shape,
C-contiguity, device), takes the sizes left unbound from the arrays' shapes, compiles the def
for those sizes once (the C++ runtime's memory and disk caches are shared), allocates the
outputs unless out= gives them, and launches: NumPy arrays on the "emu" and "cpu" backends
(host memory), DLPack device arrays (PyTorch, CuPy, JAX) on "cuda", on the framework's
current stream.
"""

from __future__ import annotations

import json
import re
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from . import _polyfuse
from ._errors import ArgumentError, Error

# DLPack type codes and device types (dlpack.h).
_DL_INT, _DL_UINT, _DL_FLOAT, _DL_BFLOAT = 0, 1, 2, 4
_DL_CPU, _DL_CUDA = 1, 2
_DTYPES = {"f16": (_DL_FLOAT, 16), "bf16": (_DL_BFLOAT, 16), "f32": (_DL_FLOAT, 32),
           "int32": (_DL_INT, 32), "int64": (_DL_INT, 64), "uint8": (_DL_UINT, 8)}
_NUMPY_NAMES = {"f16": "float16", "bf16": "bfloat16", "f32": "float32",
                "int32": "int32", "int64": "int64", "uint8": "uint8"}
_SIZE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_BACKENDS = ("cuda", "emu", "cpu")


def _dtype_text(code_bits: Tuple[int, int]) -> str:
    for element, dl in _DTYPES.items():
        if dl == tuple(code_bits):
            return _NUMPY_NAMES[element]
    code, bits = code_bits
    return {0: "int", 1: "uint", 2: "float", 4: "bfloat", 5: "complex", 6: "bool"}.get(code, f"code{code}") + str(bits)


class _Parameter:
    """One tensor of the def's signature."""

    def __init__(self, name: str, kind: str, element: str, shape: Sequence[str]):
        self.name, self.kind, self.element, self.shape = name, kind, element, list(shape)

    def declaration(self) -> str:
        return f"{self.element}({', '.join(self.shape)}) {self.name}"


def compile(
    source: str,
    *,
    backend: Optional[str] = None,
    def_: str = "",
    name: str = "<source>",
    arch: Optional[str] = None,
    block: Optional[str] = None,
    warp: Optional[str] = None,
    mma: Optional[str] = None,
    split_k: int = 0,
    stages: int = 0,
    group: Optional[int] = None,
    consumer_schedule: Optional[str] = None,
    f32_matmul: Optional[str] = None,
    cluster: Optional[str] = None,
    autotune: bool = False,
    fast_math: bool = False,
    line_info: bool = False,
    use_cache: bool = True,
    threads: Optional[int] = None,
    constant_inputs: Sequence[str] = (),
    cpu_block: Optional[str] = None,
    min_parallel_flops: Optional[int] = None,
    **sizes: int,
) -> "Kernel":
    """Compiles the def `def_` (default: the first) of the .tc text `source`.

    sizes: values of size names (M=1024, ...); those left out are taken from the arguments
    of each call. backend: "cuda" (a GPU; DLPack device arrays), "emu" (the CUDA emulator;
    NumPy arrays) or "cpu" (the CPU target's C++; NumPy arrays); default "cuda" when a GPU is
    present, else "emu". arch ("sm_80", "sm_90a", ...), block and warp ("128x128x32"), mma
    ("m16n8k16"), split_k, stages, group, consumer_schedule ("cooperative" or "pingpong": the
    sm_90a kernel's consumer warpgroups), f32_matmul ("tf32", "3xtf32" or "f32": f32 operands'
    matmuls) and cluster ("1x1", "2x1" or "1x2": the sm_90a kernel's thread-block clusters) are
    the GPU path's options (refused with "cpu");
    autotune=True lets the autotuner choose them (polyfuse/autotune.h: timed on a GPU, a static
    ranking without one; the winner cached per program, sizes and GPU; refused beside them);
    threads is the CPU target's (OpenMP threads of its loops; default every core; refused on
    the GPU backends), and so is constant_inputs (names of inputs whose values do not change
    between calls with the same array, e.g. weights: their packed copies are kept between calls
    until another array is passed or Kernel.forget_constants() is called), cpu_block ("64x256x256":
    the mc x nc output blocks and kc-deep reduction slices of every blocked stage; default from
    the caches) and min_parallel_flops (a stage with fewer flops runs on the calling thread;
    default 2**23; 0: every stage of more than one block on the threads); name is the file name used in error messages. Raises SourceError (with file, line,
    column), CompileError.
    """
    if backend is None:
        backend = "cuda" if _polyfuse.cuda_device_available() else "emu"
    if backend not in _BACKENDS:
        raise Error(f'polyfuse: error: backend must be "cuda", "emu" or "cpu", got {backend!r}')
    for size, value in sizes.items():
        if not isinstance(value, int) or isinstance(value, bool):
            raise Error(f"polyfuse: error: size {size} must be an int, got {value!r}")
    options = _polyfuse.Options()
    options.backend = backend
    options.arch, options.block, options.warp, options.mma = arch, block, warp, mma
    options.split_k, options.stages, options.group = split_k, stages, group
    options.consumer_schedule, options.f32_matmul, options.cluster = consumer_schedule, f32_matmul, cluster
    options.autotune = autotune
    options.fast_math, options.line_info, options.use_cache = fast_math, line_info, use_cache
    options.threads = threads
    options.constant_inputs = list(constant_inputs)
    options.cpu_block, options.min_parallel_flops = cpu_block, min_parallel_flops
    return Kernel(source, name, def_, dict(sizes), options)


class Kernel:
    """A compiled def. Call it on arrays: k(A, B) returns the output (a tuple for several),
    k(A, B, out=C) writes C. The properties describe the compiled code of the last call's
    sizes (or of the sizes given to compile when they bind every size)."""

    def __init__(self, source: str, name: str, def_: str, sizes: Dict[str, int], options: Any):
        self._source, self._name, self._def, self._sizes, self._options = source, name, def_, sizes, options
        signature = _polyfuse.signature(source, name, sizes, def_)
        self._inputs = [_Parameter(*p) for p in signature if p[1] == "input"]
        self._outputs = [_Parameter(*p) for p in signature if p[1] == "output"]
        self._unbound = [p[0] for p in signature if p[1] == "size"]
        self._compiled: Dict[Tuple[Tuple[str, int], ...], Any] = {}
        self._last: Any = None
        if not self._unbound:
            self._last = self._specialised({})

    # --- what was compiled

    @property
    def backend(self) -> str:
        """"cuda", "emu" or "cpu"."""
        return self._options.backend

    @property
    def unbound_sizes(self) -> List[str]:
        """The sizes each call takes from its arguments."""
        return list(self._unbound)

    def _compiled_kernel(self) -> Any:
        if self._last is None:
            raise Error(
                f"polyfuse: sizes {', '.join(self._unbound)} are unbound: call the kernel (its sizes come from the "
                "arguments) or pass them to polyfuse.compile before asking for the compiled code"
            )
        return self._last

    @property
    def source(self) -> str:
        """The generated code: CUDA ("cuda", "emu") or C++ ("cpu")."""
        return self._compiled_kernel().source

    @property
    def cuda_source(self) -> str:
        """The generated CUDA source (every kernel of a plan and its launcher)."""
        if self.backend == "cpu":
            raise Error('polyfuse: backend "cpu" generates C++, not CUDA: see Kernel.source')
        return self._compiled_kernel().source

    @property
    def plan(self) -> str:
        """The def's partition into kernels and why each cut was made (`polyfuse compile --emit=plan`);
        "" on the cpu backend."""
        return self._compiled_kernel().plan

    @property
    def metadata(self) -> Any:
        """The JSON sidecar of `polyfuse compile`, parsed: one kernel's object, or a plan's list
        (every kernel, then the plan with its workspace_bytes)."""
        return json.loads(self._compiled_kernel().metadata_json)

    @property
    def config(self) -> Dict[str, Any]:
        """The launch configuration: kernel name, arch, tile options, grid, block, shared memory,
        kernel count and workspace bytes."""
        k = self._compiled_kernel()
        meta = self.metadata
        first = meta[0] if isinstance(meta, list) else meta
        return {
            "kernel": k.name,
            "backend": k.backend,
            "arch": first.get("arch", ""),
            "options": first.get("options", ""),
            "grid": first.get("grid"),
            "block": first.get("block"),
            "dynamic_shared_bytes": first.get("dynamic_shared_bytes", 0),
            "kernel_count": k.kernel_count,
            "workspace_bytes": k.workspace_bytes,
        }

    @property
    def ptx(self) -> str:
        """NVRTC's PTX ("cuda" backend, one kernel; else "")."""
        return self._compiled_kernel().ptx

    @property
    def cache_status(self) -> str:
        """Where the cubin came from: "miss", "memory_hit", "disk_hit", "disabled", ..."""
        return self._compiled_kernel().cache_status

    # --- calls

    def __call__(self, *args: Any, out: Any = None, stream: Optional[int] = None) -> Any:
        """Runs the def on `args` (its inputs in signature order) and returns its outputs (one
        array, or a tuple in signature order). out: the output array, or a sequence of them.
        stream ("cuda"): a CUstream as an int; default the current stream of the arrays'
        framework (PyTorch, CuPy), else the default stream. Raises ArgumentError."""
        if len(args) != len(self._inputs):
            raise ArgumentError(
                f"{self._label()} takes {len(self._inputs)} input{'s' if len(self._inputs) != 1 else ''} "
                f"({', '.join(p.declaration() for p in self._inputs)}) but got {len(args)}"
            )
        sizes = dict(self._sizes)
        origins: Dict[str, str] = {name: "compile()" for name in sizes}
        buffers = []
        for index, (array, parameter) in enumerate(zip(args, self._inputs)):
            buffers.append(self._check(array, parameter, f"argument {index + 1}", sizes, origins))
        outputs = self._output_arrays(out, args, sizes, origins)
        for parameter, array in zip(self._outputs, outputs):
            buffers.append(self._check(array, parameter, f"out ({parameter.name})", sizes, origins))
        kernel = self._specialised({name: sizes[name] for name in self._unbound})
        kernel.launch(buffers, self._stream(args, stream))
        self._last = kernel
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    def forget_constants(self) -> None:
        """The values of a constant input (compile's constant_inputs) changed in place: the next
        call packs them again."""
        for kernel in self._compiled.values():
            kernel.forget_constants()

    def _label(self) -> str:
        return f"polyfuse kernel '{self._def or self._first_def()}'"

    def _first_def(self) -> str:
        return _polyfuse.defs(self._source, self._name)[0]

    def _specialised(self, sizes: Dict[str, int]) -> Any:
        key = tuple(sorted(sizes.items()))
        if key not in self._compiled:
            self._compiled[key] = _polyfuse.compile(self._source, self._name, {**self._sizes, **sizes}, self._def,
                                                    self._options)
        return self._compiled[key]

    def _check(self, array: Any, parameter: _Parameter, where: str, sizes: Dict[str, int],
               origins: Dict[str, str]) -> Tuple[int, int]:
        """(pointer, bytes) of `array` after checking it against `parameter`; binds the sizes it gives."""
        what = f"{self._label()}: {where} ({parameter.declaration()}, {parameter.kind})"
        try:
            pointer, shape, strides, dtype, device = _polyfuse.array_info(array)
        except TypeError:
            raise ArgumentError(f"{what}: expected a NumPy array or an array with __dlpack__, got "
                                f"{type(array).__name__}") from None
        if parameter.element not in _DTYPES:  # e4m3, e5m2
            raise ArgumentError(f"{what}: the Python package takes no {parameter.element} arrays yet (the C++ API "
                                f"and the command line run FP8 defs)")
        if tuple(dtype) != _DTYPES[parameter.element]:
            raise ArgumentError(f"{what}: dtype {_dtype_text(dtype)} but the def declares {parameter.element} "
                                f"({_NUMPY_NAMES[parameter.element]})")
        if len(shape) != len(parameter.shape):
            raise ArgumentError(f"{what}: rank {len(shape)} (shape {tuple(shape)}) but the def declares rank "
                                f"{len(parameter.shape)}")
        for dim, (extent, declared) in enumerate(zip(shape, parameter.shape)):
            if _SIZE_NAME.match(declared):
                if declared not in sizes:
                    sizes[declared], origins[declared] = extent, f"{where} dimension {dim}"
                elif sizes[declared] != extent:
                    raise ArgumentError(f"{what}: dimension {dim} is {extent} but {declared} = {sizes[declared]} "
                                        f"(from {origins[declared]})")
            elif declared.isdigit() and int(declared) != extent:
                raise ArgumentError(f"{what}: dimension {dim} is {extent} but the def declares {declared}")
        expected = 1
        for dim in reversed(range(len(shape))):
            if shape[dim] != 1 and strides[dim] != expected:
                raise ArgumentError(f"{what}: not C-contiguous (strides {tuple(strides)} in elements for shape "
                                    f"{tuple(shape)}): pass a contiguous copy (numpy.ascontiguousarray, "
                                    "tensor.contiguous())")
            expected *= shape[dim]
        wanted = _DL_CUDA if self.backend == "cuda" else _DL_CPU
        if device[0] != wanted:
            place = "CUDA device memory (a PyTorch, CuPy or JAX GPU array)" if wanted == _DL_CUDA else \
                "host memory (a NumPy array)"
            raise ArgumentError(f"{what}: backend {self.backend!r} runs on {place}, but the array is on DLPack device "
                                f"type {device[0]} (device {device[1]})")
        if parameter.kind == "output" and not _writeable(array):
            raise ArgumentError(f"{what}: the output array is read-only")
        bits = _DTYPES[parameter.element][1]
        return pointer, expected * bits // 8

    def _output_arrays(self, out: Any, args: Sequence[Any], sizes: Dict[str, int], origins: Dict[str, str]) -> List[Any]:
        if out is not None:
            outputs = list(out) if isinstance(out, (list, tuple)) else [out]
            if len(outputs) != len(self._outputs):
                raise ArgumentError(f"{self._label()}: out= has {len(outputs)} array{'s' if len(outputs) != 1 else ''} "
                                    f"but the def has {len(self._outputs)} output{'s' if len(self._outputs) != 1 else ''} "
                                    f"({', '.join(p.declaration() for p in self._outputs)})")
            return outputs
        return [_empty_like_framework(args, _output_shape(parameter, sizes, self._label(),
                                                         "pass it to polyfuse.compile or give out="),
                                      parameter.element, self.backend)
                for parameter in self._outputs]

    def _stream(self, args: Sequence[Any], stream: Optional[int]) -> int:
        if self.backend != "cuda":
            return 0
        if stream is not None:
            return int(stream)
        for array in args:
            module = type(array).__module__.split(".")[0]
            if module == "torch":
                import torch

                return int(torch.cuda.current_stream(array.device).cuda_stream)
            if module == "cupy":
                import cupy

                return int(cupy.cuda.get_current_stream().ptr)
        return 0

    def __repr__(self) -> str:
        sig = ", ".join(p.declaration() for p in self._inputs) + " -> " + ", ".join(p.declaration() for p in self._outputs)
        return f"<polyfuse.Kernel {self._def or self._first_def()}({sig}) backend={self.backend!r}>"


def _output_shape(parameter: _Parameter, sizes: Dict[str, int], label: str, remedy: str) -> Tuple[int, ...]:
    """The shape of output `parameter` from the bound `sizes`; ArgumentError naming `label` and
    the `remedy` when a size is bound by no input."""
    shape = []
    for declared in parameter.shape:
        if declared.isdigit():
            shape.append(int(declared))
        elif declared in sizes:
            shape.append(sizes[declared])
        else:
            raise ArgumentError(f"{label}: size {declared} of output {parameter.declaration()} is not given by any "
                                f"input: {remedy}")
    return tuple(shape)


def _writeable(array: Any) -> bool:
    flags = getattr(array, "flags", None)
    return bool(getattr(flags, "writeable", True))


def _empty_like_framework(args: Sequence[Any], shape: Tuple[int, ...], element: str, backend: str) -> Any:
    """An uninitialised array for an output: NumPy on the host backends, the first input's
    framework (PyTorch, CuPy) on cuda."""
    if backend != "cuda":
        import numpy

        try:
            dtype = numpy.dtype(_NUMPY_NAMES[element])
        except TypeError:
            raise ArgumentError(f"NumPy has no {_NUMPY_NAMES[element]} dtype (install ml_dtypes) for an output of "
                                f"type {element}: pass out=") from None
        return numpy.empty(shape, dtype=dtype)
    for array in args:
        module = type(array).__module__.split(".")[0]
        if module == "torch":
            import torch

            return torch.empty(shape, dtype=getattr(torch, _NUMPY_NAMES[element]), device=array.device)
        if module == "cupy":
            import cupy

            return cupy.empty(shape, dtype=_NUMPY_NAMES[element])
    raise ArgumentError("polyfuse: backend 'cuda' allocates outputs with the inputs' framework (PyTorch or CuPy); "
                        "for other arrays pass out=")
