"""NumPy references of the examples in examples/: the def, its sizes for the tests (small and
odd, so that the emulator is quick), random inputs and the expected outputs (computed in
float64 from the inputs as given)."""

import numpy as np


def _softmax_rows(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _attention(q, k, v, causal=False):
    scores = q @ k.transpose(0, 2, 1) / np.sqrt(q.shape[-1])
    if causal:  # position s attends to t <= s
        s, t = scores.shape[-2:]
        scores = np.where(np.arange(t)[None, :] <= np.arange(s)[:, None], scores, -1e30)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True) @ v


def _layernorm_rows(x, gamma, beta, eps=1e-5):
    mean = x.mean(axis=1, keepdims=True)
    d = x - mean
    var = (d * d).mean(axis=1, keepdims=True)
    return d / np.sqrt(var + eps) * gamma + beta


def _cross_entropy(x, t):
    mx = x.max(axis=1, keepdims=True)
    lse = mx + np.log(np.exp(x - mx).sum(axis=1, keepdims=True))
    return (t * (lse - x)).sum(axis=1)


def _conv_nhwc(x, f, stride=1, pad=0, out=None):
    """O(n, p, q, k) = sum over r, s, c of x(n, stride p + r - pad, stride q + s - pad, c) f(k, r, s, c),
    reads outside x being 0; `out` (P, Q) or the sizes that keep the window inside the padding."""
    n, h, w, _ = x.shape
    k, r, s, _ = f.shape
    p, q = out if out else ((h + 2 * pad - r) // stride + 1, (w + 2 * pad - s) // stride + 1)
    high_h = max(0, stride * (p - 1) + r - pad - h)
    high_w = max(0, stride * (q - 1) + s - pad - w)
    xp = np.pad(x, ((0, 0), (pad, high_h), (pad, high_w), (0, 0)))
    o = np.zeros((n, p, q, k))
    for i in range(r):
        for j in range(s):
            window = xp[:, i:i + stride * (p - 1) + 1:stride, j:j + stride * (q - 1) + 1:stride, :]
            o += np.einsum("npqc,kc->npqk", window, f[:, i, j, :])
    return o


def _conv_grouped(x, f, pad=0):
    """x(n, h, w, g, c), f(g, k, r, s, c): one convolution per group g."""
    return np.stack([_conv_nhwc(x[:, :, :, g, :], f[g], pad=pad) for g in range(x.shape[3])], axis=3)


_CONV = dict(N=2, H=6, W=5, C=3, K=4, R=3, S=3)


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
    "swiglu": (dict(M=13, N=24, K=40),
               lambda s: [("f16", (s["M"], s["K"])), ("f16", (s["K"], s["N"])), ("f16", (s["K"], s["N"]))],
               lambda x, wg, wu: [(x @ wg) / (1 + np.exp(-(x @ wg))) * (x @ wu)]),
    "mlp": (dict(M=13, N=24, K=40, H=16),
            lambda s: [("f16", (s["M"], s["K"])), ("f16", (s["K"], s["H"])), ("f16", (s["H"],)),
                       ("f16", (s["H"], s["N"])), ("f16", (s["N"],))],
            lambda x, w1, b1, w2, b2: [np.maximum(x @ w1 + b1, 0).astype(np.float16).astype(np.float64) @ w2 + b2]),
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
    "attention": (dict(B=2, S=9, T=21, D=16),
                  lambda s: [("f16", (s["B"], s["S"], s["D"])), ("f16", (s["B"], s["T"], s["D"])),
                             ("f16", (s["B"], s["T"], s["D"]))],
                  lambda q, k, v: [_attention(q, k, v)]),
    "causal_attention": (dict(B=2, S=21, T=21, D=16),
                         lambda s: [("f16", (s["B"], s["S"], s["D"])), ("f16", (s["B"], s["T"], s["D"])),
                                    ("f16", (s["B"], s["T"], s["D"]))],
                         lambda q, k, v: [_attention(q, k, v, causal=True)]),
    "layernorm": (dict(M=7, N=24, K=16),
                  lambda s: [("f16", (s["M"], s["K"])), ("f16", (s["K"], s["N"])), ("f16", (s["N"],)),
                             ("f16", (s["N"],)), ("f16", (s["N"],))],
                  lambda a, b, bias, gamma, beta: [_layernorm_rows(a @ b + bias, gamma, beta)]),
    "rmsnorm": (dict(M=7, N=24, K=16),
                lambda s: [("f16", (s["M"], s["K"])), ("f16", (s["K"], s["N"])), ("f16", (s["N"],))],
                lambda a, b, gamma: [(a @ b) / np.sqrt(((a @ b) ** 2).mean(axis=1, keepdims=True) + 1e-6) * gamma]),
    "dequant_gemm": (dict(M=13, N=24, K=40),
                     lambda s: [("f16", (s["M"], s["K"])), ("f16", (s["K"],)), ("f16", (s["K"], s["N"]))],
                     lambda a, scale, b: [(a * scale) @ b]),
    "multihead_batched_gemm": (dict(B=2, H=3, M=13, N=24, K=40),
                               lambda s: [("f16", (s["B"], s["H"], s["M"], s["K"])),
                                          ("f16", (s["B"], s["H"], s["K"], s["N"]))],
                               lambda q, w: [q @ w]),
    "tensordot": (dict(A=6, B=5, K=4, L=9, C=24),
                  lambda s: [("f16", (s["A"], s["B"], s["K"], s["L"])), ("f16", (s["K"], s["L"], s["C"]))],
                  lambda x, y: [np.tensordot(x, y, axes=2)]),
    "conv2d": (_CONV,
               lambda s: [("f32", (s["N"], s["H"], s["W"], s["C"])), ("f32", (s["K"], s["R"], s["S"], s["C"]))],
               lambda x, f: [_conv_nhwc(x, f)]),
    "conv2d_strided": (dict(_CONV, H=9, W=7, P=5, Q=4),
                       lambda s: [("f32", (s["N"], s["H"], s["W"], s["C"])), ("f32", (s["K"], s["R"], s["S"], s["C"]))],
                       lambda x, f: [_conv_nhwc(x, f, stride=2, pad=1, out=(5, 4))]),
    "conv2d_1x1": (dict(N=2, H=6, W=5, C=3, K=4),
                   lambda s: [("f32", (s["N"], s["H"], s["W"], s["C"])), ("f32", (s["K"], s["C"]))],
                   lambda x, f: [np.einsum("nhwc,kc->nhwk", x, f)]),
    "conv2d_grouped": (dict(_CONV, G=2),
                       lambda s: [("f32", (s["N"], s["H"], s["W"], s["G"], s["C"])),
                                  ("f32", (s["G"], s["K"], s["R"], s["S"], s["C"]))],
                       lambda x, f: [_conv_grouped(x, f)]),
    "conv2d_bias_relu": (_CONV,
                         lambda s: [("f32", (s["N"], s["H"], s["W"], s["C"])), ("f32", (s["K"], s["R"], s["S"], s["C"])),
                                    ("f32", (s["K"],))],
                         lambda x, f, bias: [np.maximum(_conv_nhwc(x, f, pad=1) + bias, 0)]),
    "conv2d_residual": (dict(_CONV, K=3),
                        lambda s: [("f32", (s["N"], s["H"], s["W"], s["C"])), ("f32", (s["C"], s["R"], s["S"], s["C"])),
                                   ("f32", (s["C"],))],
                        lambda x, f, bias: [np.maximum(_conv_nhwc(x, f, pad=1) + bias + x, 0)]),
    "conv2d_grouped_bias_relu": (dict(_CONV, G=2),
                                 lambda s: [("f32", (s["N"], s["H"], s["W"], s["G"], s["C"])),
                                            ("f32", (s["G"], s["K"], s["R"], s["S"], s["C"])),
                                            ("f32", (s["G"], s["K"]))],
                                 lambda x, f, bias: [np.maximum(_conv_grouped(x, f, pad=1) + bias, 0)]),
}

# The sizes bound at compile: those only an output has (P, Q), every size of a def whose
# inferred ranges depend on several sizes (h in 0..H - R: the def needs them bound to parse),
# every size of a general contraction (its grouped GEMM's view has constant extents), and every
# size of a plan of several kernels (the workspace's layout is fixed at compile time).
COMPILE_SIZES = {"conv2d_strided": ("P", "Q"), "conv2d": tuple(_CONV), "conv2d_grouped": tuple(_CONV) + ("G",),
                 "tensordot": ("A", "B", "K", "L", "C"), "attention": ("B", "S", "T", "D"),
                 "causal_attention": ("B", "S", "T", "D")}

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
