"""bench/gpu/torch_programs.py without a GPU or torch: --dry-run compiles every program (the
emulator backend, sm_90a) and lists its PyTorch calls, so that a GPU run of the kit does not
find a broken program or expression first."""

import os
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "gpu" / "torch_programs.py"


def run(*args):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, env=env, timeout=600)


def test_dry_run_compiles_every_program():
    result = run("--dry-run")
    assert result.returncode == 0, result.stderr
    out = "\n" + result.stdout
    for program in ("linear_f32", "attention_s256", "attention_s1024", "attention_s2048_d128", "causal_attention_s256",
                    "gemm_f32", "mlp"):
        assert f"\n{program}: " in out, out
    # the f32 linear layer (A(m, k), W(n, k)) takes TF32 wgmma, the B(k, n) GEMM mma.sync
    assert "(wgmma m64n128k8)" in out.split("\nlinear_f32: ")[1].split("\nattention_s256: ")[0], out
    assert "mma m16n8k8 tf32" in out.split("\ngemm_f32: ")[1].split("\nmlp: ")[0], out
    assert "causal_attention_s256: " in out and "1 kernel(s)" in out.split("\ncausal_attention_s256: ")[1].split("\ngemm_f32: ")[0]
    assert "torch sdpa: F.scaled_dot_product_attention(Q, K, V)" in out
    assert "median of 30, L2 flushed before each" in out


def test_unknown_program_is_refused():
    result = run("--dry-run", "--program", "nope")
    assert result.returncode == 2
    assert "invalid choice: 'nope'" in result.stderr
