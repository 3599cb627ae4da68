#!/usr/bin/env python3
"""Tests of sass_kloop.py (the static SASS k-loop check) on SASS text shaped like
cuobjdump's, with a stand-in cuobjdump: the loop found from its backward branch, the
counts, the LDSM stretch around the loop, and each failure it must report (a second BAR,
local memory, an HMMA share under the floor, no k-loop). Runs without a CUDA toolkit.

    sass_kloop_test.py
"""
import os
import stat
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import sass_kloop  # noqa: E402


def sass(*kernels):
    """cuobjdump -sass text of kernels given as (name, [instruction, ...]), 16 bytes apart."""
    text = "\tcode for sm_80\n"
    for name, code in kernels:
        text += f"\t\tFunction : {name}\n"
        for i, instruction in enumerate(code):
            text += f"        /*{16 * i:04x}*/                   {instruction} ;   /* 0x000 */\n"
            text += "                                                     /* 0x000 */\n"
    return text


# A prologue, then a loop at 0x0030..0x00e0 closed by a branch back to it, then the exit.
LOOP = ["S2R R0, SR_TID.X", "IMAD R1, R0, 0x2, RZ", "LDGSTS.E.BYPASS.LTC128B.128 [R1], [R2.64]",
        "DEPBAR.LE SB0, 0x0", "BAR.SYNC.DEFER_BLOCKING 0x0", "LDSM.16.M88.4 R4, [R1]", "IADD3 R1, R1, 0x20, RZ",
        "LDSM.16.M88.4 R8, [R1]", "HMMA.16816.F32 R12, R4, R8, R12", "HMMA.16816.F32 R16, R4, R10, R16",
        "ISETP.NE.AND P0, PT, R1, 0x100, PT", "HMMA.16816.F32 R20, R6, R8, R20", "HMMA.16816.F32 R24, R6, R10, R24",
        "LDGSTS.E.BYPASS.LTC128B.128 [R1], [R2.64]", "@P0 BRA 0x30", "EXIT", "BRA 0xf0"]


def run_check(text, *args):
    with tempfile.TemporaryDirectory() as tmp:
        listing = os.path.join(tmp, "k.sass")
        with open(listing, "w") as out:
            out.write(text)
        tool = os.path.join(tmp, "cuobjdump")
        with open(tool, "w") as out:  # prints the listing for -sass OBJECT; --version works
            out.write(f"#!/bin/sh\n[ \"$1\" = --version ] && exit 0\ncat '{listing}'\n")
        os.chmod(tool, stat.S_IRWXU)
        done = subprocess.run([sys.executable, os.path.join(HERE, "sass_kloop.py"), "--cuobjdump", tool, *args,
                               "k=" + os.path.join(tmp, "k.o")], capture_output=True, text=True)
        return done.returncode, done.stdout


class Facts(unittest.TestCase):
    def test_loop_and_counts(self):
        code = sass_kloop.functions(sass(("gemm", LOOP)))["gemm"]
        self.assertEqual(sass_kloop.k_loops(code), [(0x30, 0xe0)])  # not the self-loop after EXIT
        f = sass_kloop.loop_facts(code, 0x30, 0xe0)
        self.assertEqual((f["instructions"], f["HMMA"], f["LDSM"], f["LDGSTS"], f["BAR"]), (12, 4, 2, 1, 1))
        self.assertEqual(f["integer"], 2)  # IADD3, ISETP
        self.assertEqual(f["LDGSTS.LTC128B"], 1)
        # After the last HMMA: LDGSTS, BRA, then the head up to the first HMMA (DEPBAR .. LDSM).
        self.assertEqual(f["ldsm_run"], 2 + 5)


class Verdicts(unittest.TestCase):
    def test_a_good_loop_passes(self):
        rc, out = run_check(sass(("gemm", LOOP)), "--min-hmma", "30")
        self.assertEqual(rc, 0, out)
        self.assertIn("| k | gemm | 0x0030-0x00e0 | 12 | 4 (33.3%) | 2 | 1 (1 .LTC128B) | 1 | 2 | 7 (58.3%) | 0 |", out)

    def test_each_failure_is_reported(self):
        two_bars = LOOP[:10] + ["BAR.SYNC.DEFER_BLOCKING 0x0"] + LOOP[10:]
        cases = {"2 BAR per iteration, at most 1": (two_bars, "30"),
                 "HMMA 4 of 12 instructions (33.3%), at least 40% required": (LOOP, "40"),
                 "local memory (1 LDL/STL": (LOOP[:1] + ["STL [R1+0x4], R0"] + LOOP[2:], "0"),
                 "no k-loop": ([i for i in LOOP if not i.startswith("@P0 BRA")], "0")}
        for message, (code, floor) in cases.items():
            rc, out = run_check(sass(("gemm", code)), "--min-hmma", floor)
            self.assertEqual(rc, 1, out)
            self.assertIn(message, out)

    def test_interleaving(self):
        # LOOP: an LDSM run of 7 of 12 instructions, no LDSM between the first and last HMMA
        rc, out = run_check(sass(("gemm", LOOP)), "--min-hmma", "30", "--interleaved")
        self.assertEqual(rc, 1, out)
        self.assertIn("an LDSM run of 7 instructions between two HMMA (58.3% of the loop), at most 25% allowed", out)
        self.assertIn("no LDSM between the first and the last HMMA", out)
        # the second LDSM moved under the HMMAs: 11 instructions, the run around the loop 2 + 3
        # (LDGSTS, BRA; DEPBAR, BAR, LDSM), 1 LDSM among the HMMAs
        woven = LOOP[:6] + ["HMMA.16816.F32 R12, R4, R8, R12", "LDSM.16.M88.4 R8, [R1]"] + LOOP[9:]
        code = sass_kloop.functions(sass(("gemm", woven)))["gemm"]
        self.assertEqual(sass_kloop.k_loops(code), [(0x30, 0xd0)])
        f = sass_kloop.loop_facts(code, 0x30, 0xd0)
        self.assertEqual((f["instructions"], f["ldsm_run"], f["LDSM among HMMA"]), (11, 2 + 3, 1))
        rc, out = run_check(sass(("gemm", woven)), "--min-hmma", "30", "--interleaved", "--max-ldsm-run", "50")
        self.assertEqual(rc, 0, out)
        rc, out = run_check(sass(("gemm", woven)), "--min-hmma", "30", "--interleaved")
        self.assertEqual(rc, 1, out)
        self.assertIn("at most 25% allowed", out)
        self.assertNotIn("no LDSM between", out)

    def test_local_memory_only(self):
        # every kernel, a k-loop or not (a row-wise kernel): only LDL/STL fail
        row_wise = ["S2R R0, SR_TID.X", "LDG.E R2, [R4.64]", "STG.E [R4.64], R2", "EXIT"]
        rc, out = run_check(sass(("gemm", LOOP), ("softmax", row_wise)), "--local-memory-only")
        self.assertEqual(rc, 0, out)
        self.assertIn("| k | softmax | 0 |", out)
        rc, out = run_check(sass(("gemm", LOOP), ("softmax", row_wise[:2] + ["LDL R3, [R1]"] + row_wise[2:])),
                            "--local-memory-only")
        self.assertEqual(rc, 1, out)
        self.assertIn("FAILED: k softmax: local memory (1 LDL/STL, first LDL at 0x0020)", out)

    def test_missing_cuobjdump_skips(self):
        done = subprocess.run([sys.executable, os.path.join(HERE, "sass_kloop.py"), "--cuobjdump", "/nonexistent/cuobjdump",
                               "k=k.o"], capture_output=True, text=True)
        self.assertEqual(done.returncode, 77)
        self.assertIn("skipped: cannot run cuobjdump", done.stdout)


if __name__ == "__main__":
    unittest.main()
