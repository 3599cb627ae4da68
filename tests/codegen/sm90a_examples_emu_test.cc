// Every GPU example (examples/*.tc) with --arch sm_90a on the emulator against the exact reference
// (issue 18's done-when): at tile-friendly sizes, at odd sizes whose operands TMA can load (edge
// tiles, K tails) and at odd sizes it cannot (the threads copy one operand, or the mma.sync
// fallback). A def of one fused kernel stores only its outputs (its temporaries and the matmul's
// result never reach global memory); a plan of several kernels stores its outputs and its
// workspace. The test prints which main loop each run took (the kernel's counters: wgmma or not).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <regex>

#include "emu_harness.h"
#include "gemm_programs.h"
#include "schedule/program_plan.h"

namespace polyfuse {
namespace {

using namespace polyfuse::testing;

struct ExampleShape {
  std::string example;
  SizeBindings sizes;
  std::string type;  // "" as written, else its f32 tensors made this type (the convolutions)
};

std::vector<ExampleShape> shapes() {
  std::vector<ExampleShape> all;
  const std::vector<SizeBindings> mnk = {{{"M", 128}, {"N", 256}, {"K", 128}},
                                         {{"M", 67}, {"N", 136}, {"K", 72}},
                                         {{"M", 37}, {"N", 45}, {"K", 29}}};
  for (const char* example : {"gemm", "gemm_bias_relu", "relu_gemm", "dequant_gemm", "add_gemms", "swiglu", "gemm_f32",
                              "gemm_fp8", "gemm_softmax", "layernorm", "rmsnorm"})
    for (const SizeBindings& s : mnk) {
      // FP8 operands come by TMA only: K-major rows of K bytes, a multiple of 16
      if (std::string(example) == "gemm_fp8" && s.at("K") % 16 != 0) continue;
      all.push_back({example, s, ""});
    }
  for (const SizeBindings& s : mnk) {
    SizeBindings batched = s;
    batched["B"] = 3;
    all.push_back({"batched_gemm", batched, ""});
    batched["H"] = 2;
    all.push_back({"multihead_batched_gemm", batched, ""});
    all.push_back({"mlp", {{"M", s.at("M")}, {"K", s.at("K")}, {"H", 64}, {"N", s.at("N")}}, ""});
  }
  for (const SizeBindings& s : {SizeBindings{{"M", 128}, {"N", 256}}, SizeBindings{{"M", 37}, {"N", 45}}})
    for (const char* example : {"softmax", "layernorm_rows", "cross_entropy"}) all.push_back({example, s, ""});
  all.push_back({"tensordot", {{"A", 4}, {"B", 8}, {"K", 8}, {"L", 16}, {"C", 64}}, ""});
  all.push_back({"tensordot", {{"A", 3}, {"B", 5}, {"K", 7}, {"L", 9}, {"C", 11}}, ""});
  // the convolutions in f16 (the TMA + wgmma implicit GEMM where it applies) and as written (f32)
  const SizeBindings image{{"N", 2}, {"H", 9}, {"W", 7}, {"R", 3}, {"S", 3}};
  const auto with = [](SizeBindings s, const SizeBindings& more) {
    for (const auto& [name, value] : more) s[name] = value;
    return s;
  };
  for (const char* type : {"f16", ""}) {
    all.push_back({"conv2d", with(image, {{"C", 16}, {"K", 24}}), type});
    all.push_back({"conv2d_bias_relu", with(image, {{"C", 8}, {"K", 72}}), type});
    all.push_back({"conv2d_residual", with(image, {{"C", 24}}), type});
    all.push_back({"conv2d_strided", with(image, {{"C", 8}, {"K", 40}, {"P", 5}, {"Q", 4}}), type});
    all.push_back({"conv2d_1x1", {{"N", 2}, {"H", 9}, {"W", 7}, {"C", 16}, {"K", 40}}, type});
    all.push_back({"conv2d_grouped", with(image, {{"G", 2}, {"C", 8}, {"K", 8}}), type});
    all.push_back({"conv2d_grouped_bias_relu", with(image, {{"G", 3}, {"C", 8}, {"K", 8}}), type});
    all.push_back({"conv2d", with(image, {{"C", 3}, {"K", 5}}), type});  // a first layer: C = 3
  }
  return all;
}

std::string label(const ExampleShape& e) {
  std::string text = e.example + (e.type.empty() ? "" : "_" + e.type);
  for (const auto& [name, value] : e.sizes) text += fmt::format(" {}={}", name, value);
  return text;
}

TEST(Sm90aExamplesEmu, EveryExampleRunsAndStoresOnlyItsOutputs) {
  const EmulatedSms sms(4);  // few SMs: the persistent kernels' blocks walk several tiles
  GpuOptions options = default_gpu_options(Arch::sm_90a);
  int runs = 0, on_wgmma = 0;
  for (const ExampleShape& e : shapes()) {
    SCOPED_TRACE(label(e));
    std::string source = example_source(e.example);
    if (!e.type.empty()) source = std::regex_replace(source, std::regex(R"(\bf32\()"), e.type + "(");
    const Program program = compile_program(source, e.sizes);
    const ProgramPlan plan = plan_program(program, recognize_idioms(program));
    const EmuRun run = run_on_emulator(program, options);
    EXPECT_TRUE(run.check.ok) << run.check.to_string();
    std::uint64_t outputs = 0;
    for (const Tensor& t : program.tensors)
      if (t.role == TensorRole::output) outputs += static_cast<std::uint64_t>(run.outputs.at(t.name).size()) * size_in_bytes(t.type);
    std::uint64_t workspace = 0;
    for (const PlanTemporary& t : plan.temporaries) workspace += static_cast<std::uint64_t>(t.bytes);
    const std::uint64_t stored = run.stats.counter("global_bytes_stored");
    if (plan.is_single_fused_kernel()) EXPECT_EQ(stored, outputs) << "only the outputs are stored";
    else EXPECT_LE(stored, outputs + workspace) << "the outputs and the plan's workspace";
    const bool wgmma = run.stats.counter("wgmma_instructions") > 0;
    on_wgmma += wgmma;
    ++runs;
    std::printf("  %-60s %-14s %s\n", label(e).c_str(), wgmma ? "TMA + wgmma" : "other kernels",
                plan.is_single_fused_kernel() ? "one fused kernel" : fmt::format("plan of {}", plan.kernels.size()).c_str());
  }
  std::printf("sm_90a examples: %d runs, %d on the TMA + wgmma kernel\n", runs, on_wgmma);
}

}  // namespace
}  // namespace polyfuse
