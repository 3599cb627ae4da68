"""NumPy references of the examples in examples/: the def, its sizes for the tests (small and
odd, so that the emulator is quick), random inputs and the expected outputs (computed in
float64 from the inputs as given)."""

import numpy as np


def _softmax_rows(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _layernorm_rows(x, gamma, beta, eps=1e-5):
    mean = x.mean(axis=1, keepdims=True)
    d = x - mean
    var = (d * d).mean(axis=1, keepdims=True)
    return d / np.sqrt(var + eps) * gamma + beta


def _cross_entropy(x, t):
    mx = x.max(axis=1, keepdims=True)
    lse = mx + np.log(np.exp(x - mx).sum(axis=1, keepdims=True))
    return (t * (lse - x)).sum(axis=1)


# example -> (sizes, input shapes and dtypes as functions of the sizes, reference on float64 inputs)
EXAMPLES = {
    "gemm": (dict(M=13, N=24, K=40),
             lambda s: [("f16", (s["M"], s["K"])), ("f16", (s["K"], s["N"]))],
             lambda a, b: [a @ b]),
    "gemm_bias_relu": (dict(M=13, N=24, K=40),
                       lambda s: [("f16", (s["M"], s["K"])), ("f16", (s["K"], s["N"])), ("f16", (s["N"],))],
                       lambda a, b, bias: [np.maximum(a @ b + bias, 0)]),
    "relu_gemm": (dict(M=13, N=24, K=40),
                  lambda s: [("f16", (s["M"], s["K"])), ("f16", (s["K"], s["N"]))],
                  lambda a, b: [np.maximum(a, 0) @ b]),
    "add_gemms": (dict(M=13, N=24, K=40),
                  lambda s: [("f16", (s["M"], s["K"])), ("f16", (s["K"], s["N"])), ("f16", (s["M"], s["K"])),
                             ("f16", (s["K"], s["N"]))],
                  lambda a, b, e, f: [a @ b + e @ f]),
    "batched_gemm": (dict(B=3, M=13, N=24, K=40),
                     lambda s: [("f16", (s["B"], s["M"], s["K"])), ("f16", (s["B"], s["K"], s["N"]))],
                     lambda a, w: [a @ w]),
    "brgemm": (dict(R=3, M=13, N=24, K=40),
               lambda s: [("f32", (s["R"], s["M"], s["K"])), ("f32", (s["R"], s["K"], s["N"]))],
               lambda a, b: [np.einsum("rmk,rkn->mn", a, b)]),
    "softmax": (dict(M=5, N=37),
                lambda s: [("f16", (s["M"], s["N"]))],
                lambda x: [_softmax_rows(x)]),
    "layernorm_rows": (dict(M=5, N=37),
                       lambda s: [("f16", (s["M"], s["N"])), ("f16", (s["N"],)), ("f16", (s["N"],))],
                       lambda x, gamma, beta: [_layernorm_rows(x, gamma, beta)]),
    "cross_entropy": (dict(M=5, N=37),
                      lambda s: [("f32", (s["M"], s["N"])), ("f32", (s["M"], s["N"]))],
                      lambda x, t: [_cross_entropy(x, t)]),
    "gemm_softmax": (dict(M=9, N=40, K=24),
                     lambda s: [("f16", (s["M"], s["K"])), ("f16", (s["K"], s["N"]))],
                     lambda a, b: [_softmax_rows(a @ b)]),
    "layernorm": (dict(M=7, N=24, K=16),
                  lambda s: [("f16", (s["M"], s["K"])), ("f16", (s["K"], s["N"])), ("f16", (s["N"],)),
                             ("f16", (s["N"],)), ("f16", (s["N"],))],
                  lambda a, b, bias, gamma, beta: [_layernorm_rows(a @ b + bias, gamma, beta)]),
    "rmsnorm": (dict(M=7, N=24, K=16),
                lambda s: [("f16", (s["M"], s["K"])), ("f16", (s["K"], s["N"])), ("f16", (s["N"],))],
                lambda a, b, gamma: [(a @ b) / np.sqrt(((a @ b) ** 2).mean(axis=1, keepdims=True) + 1e-6) * gamma]),
}

_NUMPY = {"f16": np.float16, "f32": np.float32}


def inputs(example, seed=1):
    """Random inputs of `example` in [-1, 1) (multiples of 1/8: exact in f16)."""
    sizes, shapes, _ = EXAMPLES[example]
    rng = np.random.default_rng(seed)
    return [(rng.integers(-8, 8, size=shape) / 8).astype(_NUMPY[element]) for element, shape in shapes(sizes)]


def expected(example, arrays):
    """The reference outputs of `example` on `arrays`, in float64."""
    return EXAMPLES[example][2](*[a.astype(np.float64) for a in arrays])


def assert_close(actual, reference, element):
    """actual (f16 or f32) within the rounding of its type plus f32 accumulation of the reference."""
    tolerance = 1e-2 if element == "f16" else 1e-4
    scale = np.maximum(1.0, np.abs(reference).max())
    np.testing.assert_allclose(actual.astype(np.float64), reference, rtol=tolerance, atol=tolerance * scale)
