#!/usr/bin/env python3
"""Tests of the GPU check kit's parsers (scripts/kit) on inputs shaped like the real
tools' output, for the cases the stand-in run (check_test.sh) does not reach: a test that
never finished, a crash between shards, Nsight Compute's long export and PC-sampling
stall counts, a kernel that was not profiled.

    scripts_test.py SCRIPTS_KIT_DIR
"""
import os
import subprocess
import sys
import tempfile
import unittest

KIT = sys.argv.pop(1) if len(sys.argv) > 1 else None


def run(script, *args):
    result = subprocess.run([sys.executable, os.path.join(KIT, script), *args], capture_output=True, text=True)
    return result.returncode, result.stdout


class GtestTable(unittest.TestCase):
    def test_outcomes_reasons_and_unfinished_tests(self):
        with tempfile.TemporaryDirectory() as tmp:
            first = os.path.join(tmp, "codegen_gpu_tests.shard0.log")
            with open(first, "w") as log:
                log.write("[ RUN      ] Idioms/CudaVsEmu.AgreeWithinTolerance/gemm\n"
                          "[       OK ] Idioms/CudaVsEmu.AgreeWithinTolerance/gemm (40 ms)\n"
                          "[ RUN      ] CudaLarge.Bf16Gemm4096\n"
                          "gpu_run_test.cc:59: Skipped\n"
                          "no CUDA device: the CUDA driver could not be loaded\n"
                          "\n"
                          "[  SKIPPED ] CudaLarge.Bf16Gemm4096 (0 ms)\n"
                          "[ RUN      ] Idioms/CudaOddShapes.MatchReference/gemm\n"
                          "some output before the process died\n")
            second = os.path.join(tmp, "gpu_emu_tests.shard0.log")
            with open(second, "w") as log:
                log.write("[ RUN      ] GpuVsEmu.SwizzledCopiesAndLdmatrix\n"
                          "gpu_vs_emu_test.cc:104: Failure\n"
                          "Expected equality of these values:\n"
                          "[  FAILED  ] GpuVsEmu.SwizzledCopiesAndLdmatrix (3 ms)\n"
                          "[ RUN      ] Configs/CudaGemm.MatchesReference/rowrow_m16n8k16_splitk1_stages1\n"
                          "gpu_run_test.cc:47: Failure\n"
                          "[  FAILED  ] Configs/CudaGemm.MatchesReference/rowrow_m16n8k16_splitk1_stages1, "
                          "where GetParam() = rowrow m16n8k16 split-K 1 stages 1 (20 ms)\n")
            summary = os.path.join(tmp, "summary.txt")
            status, out = run("gtest_table.py", "--summary", summary, first, second)
            self.assertEqual(status, 0)
            self.assertIn("skipped (1 tests): no CUDA device: the CUDA driver could not be loaded", out)
            self.assertIn("UNFINISHED: codegen_gpu_tests Idioms/CudaOddShapes.MatchReference/gemm", out)
            self.assertIn("FAILED: gpu_emu_tests GpuVsEmu.SwizzledCopiesAndLdmatrix: gpu_vs_emu_test.cc:104: Failure", out)
            self.assertIn("FAILED: gpu_emu_tests Configs/CudaGemm.MatchesReference/rowrow_m16n8k16_splitk1_stages1: "
                          "gpu_run_test.cc:47: Failure", out)
            self.assertEqual(out.strip().splitlines()[-1], "TOTAL passed=1 failed=2 skipped=1 unfinished=1")
            with open(summary) as f:
                text = f.read()
            self.assertIn("CudaVsEmu 1/1,", text)
            self.assertIn("CudaLarge 0/1 (1 skipped)", text)
            self.assertIn("CudaOddShapes 0/1 (1 FAILED)", text)
            self.assertIn("GpuVsEmu 0/1 (1 FAILED)", text)


class NcuSummary(unittest.TestCase):
    def summarize(self, text, kernel="gemm"):
        with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as f:
            f.write(text)
        try:
            return run("ncu_summary.py", f.name, kernel, str(2 * 4096 ** 3))
        finally:
            os.unlink(f.name)

    def test_long_export_and_pc_sampling_stalls(self):
        rows = [("gpu__time_duration.sum", "usecond", "1,250"),
                ("sm__inst_executed_pipe_tensor_op_hmma.avg.pct_of_peak_sustained_active", "%", "64.0"),
                ("smsp__pcsamp_warps_issue_stalled_barrier", "", "30"),
                ("smsp__pcsamp_warps_issue_stalled_barrier_not_issued", "", "99"),
                ("smsp__pcsamp_warps_issue_stalled_math_pipe_throttle", "", "70")]
        text = '"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"\n'
        text += "".join(f'"0","gemm","{n}","{u}","{v}"\n' for n, u, v in rows)
        text += '"1","gemm","gpu__time_duration.sum","usecond","999"\n'
        status, out = self.summarize(text)
        self.assertEqual(status, 0, out)
        self.assertIn("gemm: 1250.0 usecond, 110.0 TFLOP/s", out)
        self.assertIn("tensor pipe: inst_executed_pipe_tensor_op_hmma 64.0%;", out)
        self.assertIn("occupancy n/a (theoretical n/a)", out)
        self.assertIn("stalls (% of the PC samples): math_pipe_throttle 70.00, barrier 30.00", out)

    def test_a_kernel_that_was_not_profiled(self):
        status, out = self.summarize('"ID","Kernel Name","gpu__time_duration.sum"\n"","","msecond"\n"0","other","1"\n')
        self.assertEqual(status, 1)
        self.assertIn("gemm: no profiled launch of it", out)


if __name__ == "__main__":
    unittest.main()
