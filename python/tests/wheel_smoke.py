"""Run by scripts/test.d/60-python.sh with the Python of a fresh virtual environment into which
only the polyfuse wheel (and numpy) was installed: the package imports from there, and an
example and a plan run on the emulator and the CPU target against NumPy."""

import pathlib
import sys

import numpy as np

import polyfuse

examples = pathlib.Path(sys.argv[1])
assert "site-packages" in polyfuse.__file__, polyfuse.__file__

rng = np.random.default_rng(1)
a = (rng.integers(-8, 8, size=(13, 40)) / 8).astype(np.float16)
b = (rng.integers(-8, 8, size=(40, 24)) / 8).astype(np.float16)
for backend in ("emu", "cpu"):
    gemm = polyfuse.compile((examples / "gemm.tc").read_text(), backend=backend)
    np.testing.assert_allclose(gemm(a, b).astype(np.float64), a.astype(np.float64) @ b, rtol=1e-2, atol=1e-2)

softmax = polyfuse.compile((examples / "softmax.tc").read_text(), backend="emu")
x = (rng.integers(-8, 8, size=(5, 37)) / 8).astype(np.float16)
e = np.exp(x - x.max(axis=1, keepdims=True)).astype(np.float64)
np.testing.assert_allclose(softmax(x).astype(np.float64), e / e.sum(axis=1, keepdims=True), rtol=1e-2, atol=1e-3)
assert softmax.config["kernel_count"] == 1 and "(row chain)" in softmax.plan  # a plan of one row-chain kernel
print(f"wheel: polyfuse {polyfuse.__version__} from {pathlib.Path(polyfuse.__file__).parent}: gemm (emu, cpu) and "
      "softmax (a plan, emu) match NumPy")
