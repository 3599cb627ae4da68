// The language of issue 20 on the command line: the reduction operators (`*=!`, `max=!`,
// `min=!` and their accumulating forms) and reductions of any expression print as IR; the
// GPU path compiles and runs them as plans of several kernels (`--emit=plan`); the CPU
// target refuses what needs kernel plans where a matmul is involved with a located error
// naming the rule (exit code 1, never an internal error), and without one runs plain loop
// nests, checked against the reference; the new functions run in GPU epilogues (emulator)
// and on the CPU target against the reference.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include "cli_runner.h"

namespace {

using Result = polyfuse::testing::CliResult;

Result run(const std::string& args) { return polyfuse::testing::run_cli(args); }

// The sizes each example needs (every size it declares).
std::string sizes_of(const std::string& example) {
  if (example == "softmax" || example == "cross_entropy" || example == "layernorm_rows") return "-D M=20 -D N=24";
  return "-D M=20 -D N=264 -D K=16";  // a row wider than a block tile: the two-kernel plan
}

// The def of examples/<example>.tc.
std::string def_of(const std::string& example) {
  return example == "layernorm" || example == "rmsnorm" ? "gemm_" + example : example;
}

struct Refusal {
  std::string example;
  std::string place;   // "LINE:COL" of the first statement the compilers refuse
  std::string reason;  // why it is not a matmul
  bool no_matmul;  // the GPU plan is one row-chain kernel (nothing cut from it)
};

const Refusal kRefusals[] = {
    {"gemm_softmax", "5:3", "it is a max reduction ('max=!'), not a sum", false},
    {"softmax", "4:3", "it is a max reduction ('max=!'), not a sum", true},
    {"layernorm", "7:3", "the right-hand side is not a product", false},
    {"rmsnorm", "5:3", "the result has fewer than two dimensions", false},
    {"cross_entropy", "5:3", "it is a max reduction ('max=!'), not a sum", true},
    {"layernorm_rows", "4:3", "the right-hand side is not a product", true},
};

void PrintTo(const Refusal& refusal, std::ostream* out) { *out << refusal.example; }

class RowReductionExamples : public ::testing::TestWithParam<Refusal> {};

TEST_P(RowReductionExamples, IrPrints) {
  const Refusal& r = GetParam();
  const Result ir = run(fmt::format("compile examples/{}.tc {} --emit=ir", r.example, sizes_of(r.example)));
  EXPECT_EQ(ir.exit_code, 0) << ir.err;
  EXPECT_NE(ir.out.find("idioms:"), std::string::npos);
}

// The GPU path compiles each to a plan (`--emit=plan` says why each cut was made) and runs it on the emulator against the reference; the CPU target runs
// each reduction as a loop-nest stage of its blocked schedule.
TEST_P(RowReductionExamples, GpuPathRunsThemAsPlans) {
  const Refusal& r = GetParam();
  const std::string file = "examples/" + r.example + ".tc";
  const std::string sizes = sizes_of(r.example);
  const Result plan = run(fmt::format("compile {} {} --emit=plan", file, sizes));
  EXPECT_EQ(plan.exit_code, 0) << plan.err;
  EXPECT_NE(plan.out.find(fmt::format("plan of def {}: ", def_of(r.example))), std::string::npos) << plan.out;
  // Without a matmul the def is one row-chain kernel; with one, the matmul kernel is cut from it.
  EXPECT_NE(plan.out.find("(row chain)\n"), std::string::npos) << plan.out;
  EXPECT_EQ(plan.out.find("  cut: ") != std::string::npos, !r.no_matmul) << plan.out;
  const Result cuda = run(fmt::format("compile {} {} --emit=cuda", file, sizes));
  EXPECT_EQ(cuda.exit_code, 0) << cuda.err;
  EXPECT_NE(cuda.out.find(fmt::format("extern \"C\" cudaError_t polyfuse_launch_{}(", def_of(r.example))), std::string::npos);
  const Result emu = run(fmt::format("run {} {} --backend=emu", file, sizes));
  EXPECT_EQ(emu.exit_code, 0) << emu.err;
  EXPECT_NE(emu.out.find("check: ok"), std::string::npos) << emu.out << emu.err;
  // The stages that show one fused kernel say that this def is a plan.
  const Result schedule = run(fmt::format("compile {} {} --emit=schedule", file, sizes));
  EXPECT_EQ(schedule.exit_code, 1);
  EXPECT_NE(schedule.err.find(fmt::format("--emit=schedule prints the tree of one fused kernel, but def '{}' is a "
                                          "plan of ",
                                          def_of(r.example))),
            std::string::npos)
      << schedule.err;
  const Result cpu_plan = run(fmt::format("compile {} {} --target=cpu --emit=plan", file, sizes));
  EXPECT_EQ(cpu_plan.exit_code, 1);
  EXPECT_NE(cpu_plan.err.find("--emit=plan is a stage of the GPU path"), std::string::npos) << cpu_plan.err;
  const Result cpu = run(fmt::format("run {} {} --target=cpu --repeat 1", file, sizes));
  EXPECT_EQ(cpu.exit_code, 0) << cpu.err;
  EXPECT_NE(cpu.out.find("check: ok"), std::string::npos) << cpu.out;
  // The reduction is a loop-nest stage of the blocked schedule (beside the matmul, or between
  // the pointwise statements of a def without one), saying why; here one of a row chain
  // (schedule/cpu_row_chains.h) over the block's rows.
  const Result schedule_cpu = run(fmt::format("compile {} {} --target=cpu --emit=schedule", file, sizes));
  EXPECT_EQ(schedule_cpu.exit_code, 0) << schedule_cpu.err;
  EXPECT_NE(schedule_cpu.out.find(fmt::format("loop nest over the block's rows (not a matmul: {})", r.reason)),
            std::string::npos)
      << schedule_cpu.out;
  EXPECT_NE(schedule_cpu.out.find("  row chain stage"), std::string::npos) << schedule_cpu.out;
}

// `compile --emit=cuda -o` of a plan: the .cu holds every kernel, the sidecar every kernel's
// launch and then the plan's launcher, kernels and workspace.
TEST(CliPlans, SidecarHasTheWorkspace) {
  const std::string out = (polyfuse::testing::cli_temp_dir() / "gemm_softmax_plan.cu").string();
  const Result result = run(fmt::format("compile examples/gemm_softmax.tc -D M=64 -D N=300 -D K=32 --emit=cuda -o '{}'", out));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  std::ifstream in(std::filesystem::path(out).replace_extension(".json"));
  const nlohmann::json sidecar = nlohmann::json::parse(in);
  ASSERT_EQ(sidecar.size(), 3u) << sidecar.dump(2);
  EXPECT_EQ(sidecar[0]["kernel"], "gemm_softmax_k0");
  EXPECT_EQ(sidecar[1]["kernel"], "gemm_softmax_k1");
  const nlohmann::json& plan = sidecar[2];
  EXPECT_EQ(plan["plan"], "gemm_softmax");
  EXPECT_EQ(plan["launcher"], "polyfuse_launch_gemm_softmax");
  // C: 64 x 300 f32 (the row chain keeps mx, e and s in registers).
  EXPECT_EQ(plan["workspace_bytes"], 64 * 300 * 4);
  EXPECT_EQ(plan["temporaries"].size(), 1u);
}

INSTANTIATE_TEST_SUITE_P(Examples, RowReductionExamples, ::testing::ValuesIn(kRefusals),
                         [](const ::testing::TestParamInfo<Refusal>& info) { return info.param.example; });

// Every new function (and gelu, the alias of gelu_erf), with float literals, in one GEMM
// epilogue: on the emulator and on the CPU target, checked against the exact reference.
const char* const kFunctionsProgram =
    "def gemm_functions(f16(M, K) A, f16(K, N) B, f16(N) bias) -> (f16(M, N) D) {\n"
    "  C(m, n) +=! A(m, k) * B(k, n)\n"
    "  D(m, n) = gelu_tanh(C(m, n)) + silu(C(m, n)) - 0.5 * abs(C(m, n)) + sqrt(abs(C(m, n)) + bias(n) * bias(n)) +\n"
    "            rsqrt(abs(C(m, n)) + 1e-5) * 1.0e-2 + log(abs(C(m, n)) + 1.5) + gelu_erf(C(m, n)) - gelu(C(m, n))\n"
    "}\n";

TEST(CliFunctions, NewFunctionsRunInEpiloguesOnBothTargets) {
  const std::string file = polyfuse::testing::write_temp_file("functions.tc", kFunctionsProgram).string();
  const std::string sizes = "-D M=24 -D N=40 -D K=32";
  const Result emu = run(fmt::format("run '{}' {} --backend=emu", file, sizes));
  EXPECT_EQ(emu.exit_code, 0) << emu.err;
  EXPECT_NE(emu.out.find("check: ok"), std::string::npos) << emu.out << emu.err;
  const Result cpu = run(fmt::format("run '{}' {} --target=cpu --repeat 1", file, sizes));
  EXPECT_EQ(cpu.exit_code, 0) << cpu.err;
  EXPECT_NE(cpu.out.find("check: ok"), std::string::npos) << cpu.out << cpu.err;
  // The generated code calls the helpers by the functions' names.
  const Result cuda = run(fmt::format("compile '{}' {} --emit=cuda", file, sizes));
  for (const char* helper : {"pf::op::gelu_tanh(", "pf::op::silu(", "pf::op::rsqrt(", "pf::op::gelu_erf("})
    EXPECT_NE(cuda.out.find(helper), std::string::npos) << helper;
}

// A new function in a matmul prologue (applied to the operand on its way to shared memory
// on the GPU path, in a prologue stage on the CPU target).
TEST(CliFunctions, NewFunctionsRunInPrologues) {
  const std::string file = polyfuse::testing::write_temp_file(
                               "prologue.tc",
                               "def pro(f16(M, K) A, f16(K, N) B) -> (f16(M, N) C) {\n"
                               "  C(m, n) +=! gelu_tanh(abs(A(m, k)) * 0.5) * B(k, n)\n"
                               "}\n")
                               .string();
  for (const char* target : {"--backend=emu", "--target=cpu --repeat 1"}) {
    const Result result = run(fmt::format("run '{}' -D M=24 -D N=40 -D K=32 {}", file, target));
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_NE(result.out.find("check: ok"), std::string::npos) << target << ": " << result.out;
  }
}

// A pointwise `min=!` (no reduction index) after a matmul: a plan on the GPU path, a loop-nest
// stage on the CPU target, both checked against the reference.
TEST(CliFunctions, OtherReductionsRunAsPlansOnTheGpuPath) {
  const std::string file = polyfuse::testing::write_temp_file(
                               "after.tc",
                               "def after(f16(M, K) A, f16(K, N) B) -> (f16(M, N) D, f32(M, N) E) {\n"
                               "  C(m, n) +=! A(m, k) * B(k, n)\n"
                               "  D(m, n) = C(m, n)\n"
                               "  E(m, n) min=! C(m, n) * 2\n"
                               "}\n")
                               .string();
  const Result emu = run(fmt::format("run '{}' -D M=8 -D N=8 -D K=8 --backend=emu", file));
  EXPECT_EQ(emu.exit_code, 0) << emu.err;
  EXPECT_NE(emu.out.find("check: ok"), std::string::npos) << emu.out << emu.err;
  const Result cpu = run(fmt::format("run '{}' -D M=8 -D N=8 -D K=8 --target=cpu", file));
  EXPECT_EQ(cpu.exit_code, 0) << cpu.err;
  EXPECT_NE(cpu.out.find("check: ok"), std::string::npos) << cpu.out << cpu.err;
}

}  // namespace
