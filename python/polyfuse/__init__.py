"""polyfuse: tensor programs (.tc) compiled to fused CUDA kernels, run on a GPU, on the CUDA
emulator or as C++ on the CPU.

    import polyfuse, numpy as np
    k = polyfuse.compile(open("examples/gemm.tc").read(), backend="emu")
    C = k(A, B)          # sizes M, N, K taken from A and B; C allocated (or k(A, B, out=C))
"""

from ._errors import ArgumentError, CompileError, CudaError, EmulatorError, Error, NoDeviceError, SourceError
from ._kernel import Kernel, compile
from ._polyfuse import cuda_device_available, cuda_device_description

__version__ = "0.1.0"

__all__ = [
    "compile",
    "Kernel",
    "cuda_device_available",
    "cuda_device_description",
    "Error",
    "SourceError",
    "CompileError",
    "ArgumentError",
    "CudaError",
    "NoDeviceError",
    "EmulatorError",
]
