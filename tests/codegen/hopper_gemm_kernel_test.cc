// The sm_90a TMA + wgmma kernel of a plain GEMM (codegen/hopper_gemm_kernel.h) as golden CUDA.
// The golden file is also what the static checks compile (tests/codegen/CMakeLists.txt: nvcc
// for sm_90a without spills or ptxas diagnostics; SASS with HGMMA and UTMALDG, no HMMA).
#include <gtest/gtest.h>

#include "codegen/cuda_emitter.h"
#include "codegen/hopper_gemm_kernel.h"
#include "codegen/launch_metadata.h"
#include "codegen/main_loop_choice.h"
#include "frontend/idioms.h"
#include "gemm_programs.h"
#include "schedule/plan_from_program.h"
#include "support/golden.h"

namespace polyfuse {
namespace {

using namespace polyfuse::testing;

std::string hopper_source(const std::string& type, const SizeBindings& sizes, bool a_row = true, bool b_row = true) {
  Program program = compile_program(gemm_source(type, a_row, b_row), sizes);
  KernelPlan plan = plan_gpu_kernel(program, recognize_idioms(program));
  const MainLoopChoice choice = choose_main_loop(program, plan, default_gpu_options(Arch::sm_90a));
  return "// The sm_90a main loop of def gemm (" + type + ", M = " + std::to_string(sizes.at("M")) + ", N = " +
         std::to_string(sizes.at("N")) + ", K = " + std::to_string(sizes.at("K")) +
         "): codegen/hopper_gemm_kernel.h\n#include \"polyfuse_cuda.cuh\"\n\n" +
         hopper_gemm_kernel(program, plan, choice, hopper_gemm_tiles(sizes.at("M")));
}

// Partial tiles in M, a K of two k-blocks.
TEST(HopperGemmKernel, GemmF16Golden) {
  EXPECT_TRUE(matches_golden(hopper_source("f16", {{"M", 300}, {"N", 256}, {"K", 128}}), "codegen/gemm_sm90a_tma.cu"));
}

// bf16, a K tail (136 = 2 k-blocks + 8, zero-filled by TMA), more k-blocks than stages.
TEST(HopperGemmKernel, GemmBf16Golden) {
  EXPECT_TRUE(matches_golden(hopper_source("bf16", {{"M", 129}, {"N", 136}, {"K", 328}}),
                             "codegen/gemm_sm90a_tma_bf16.cu"));
}

// Issue 17's done-when shape: TMA cannot load B (rows 514 bytes apart): the threads copy it.
TEST(HopperGemmKernel, GemmF16WithBCopiedByThreadsGolden) {
  EXPECT_TRUE(matches_golden(hopper_source("f16", {{"M", 300}, {"N", 257}, {"K", 128}}),
                             "codegen/gemm_sm90a_tma_b_by_threads.cu"));
}

// gemm_bias_relu: the epilogue on the staged accumulators in chunks of 8 columns (hopper_epilogue.h), only D stored.
TEST(HopperGemmKernel, GemmBiasReluGolden) {
  Program program = compile_program(example_source("gemm_bias_relu"), {{"M", 300}, {"N", 256}, {"K", 192}});
  KernelPlan plan = plan_gpu_kernel(program, recognize_idioms(program));
  const MainLoopChoice choice = choose_main_loop(program, plan, default_gpu_options(Arch::sm_90a));
  ASSERT_EQ(choice.loop, MainLoop::tma_wgmma) << choice.fallback_reason;
  EXPECT_TRUE(matches_golden("// The sm_90a main loop of def gemm_bias_relu (M = 300, N = 256, K = 192)\n#include \"polyfuse_cuda.cuh\"\n\n" +
                                 hopper_gemm_kernel(program, plan, choice, hopper_gemm_tiles(300)),
                             "codegen/gemm_bias_relu_sm90a_tma.cu"));
}

// The same with ping-pong consumers: alternate 64 x 128 tiles, each consumer's `it` skipping the
// other's k-blocks, one consumer per stage.
TEST(HopperGemmKernel, GemmBiasReluPingPongGolden) {
  Program program = compile_program(example_source("gemm_bias_relu"), {{"M", 300}, {"N", 256}, {"K", 192}});
  KernelPlan plan = plan_gpu_kernel(program, recognize_idioms(program));
  const MainLoopChoice choice = choose_main_loop(program, plan, default_gpu_options(Arch::sm_90a));
  ASSERT_EQ(choice.loop, MainLoop::tma_wgmma) << choice.fallback_reason;
  EXPECT_TRUE(matches_golden("// The sm_90a main loop of def gemm_bias_relu (M = 300, N = 256, K = 192), ping-pong\n"
                             "#include \"polyfuse_cuda.cuh\"\n\n" +
                                 hopper_gemm_kernel(program, plan, choice, hopper_gemm_tiles(300, ConsumerSchedule::pingpong)),
                             "codegen/gemm_bias_relu_sm90a_pingpong.cu"));
}

// The default: cooperative (faster than ping-pong on an H200); --consumer-schedule overrides it,
// and is refused where the kernel has no consumer warpgroups.
TEST(HopperGemmKernel, ConsumerScheduleRuleAndOption) {
  EXPECT_EQ(hopper_default_consumers(), ConsumerSchedule::cooperative);
  const auto options_of = [](const std::string& source, std::optional<ConsumerSchedule> schedule, Arch arch) {
    Program program = compile_program(source, {{"M", 300}, {"N", 256}, {"K", 192}});
    CudaEmitRequest request;
    request.options = default_gpu_options(arch);
    request.options.consumer_schedule = schedule;
    request.helpers = CudaEmitRequest::Helpers::omit;
    return emit_cuda(program, request).metadata.options;
  };
  const std::string fused = example_source("gemm_bias_relu"), plain = gemm_source("f16", true, true);
  EXPECT_NE(options_of(fused, std::nullopt, Arch::sm_90a).find("warp-specialised, cooperative: a producer warpgroup (TMA, "
                                                              "40 registers) and two consumer warpgroups (232 registers) "
                                                              "on each 128 x 128 tile"),
            std::string::npos);
  EXPECT_NE(options_of(fused, ConsumerSchedule::pingpong, Arch::sm_90a).find("warp-specialised, pingpong: a producer warpgroup "
                                                                             "(TMA, 40 registers) and two consumer warpgroups "
                                                                             "(232 registers) on alternate 64 x 128 tiles"),
            std::string::npos);
  EXPECT_NE(options_of(plain, std::nullopt, Arch::sm_90a).find("warp-specialised, cooperative"), std::string::npos);
  EXPECT_NE(options_of(fused, ConsumerSchedule::cooperative, Arch::sm_90a).find("block 128x128x64"), std::string::npos);
  EXPECT_NE(options_of(plain, ConsumerSchedule::pingpong, Arch::sm_90a).find("block 64x128x64"), std::string::npos);
  try {
    options_of(plain, ConsumerSchedule::pingpong, Arch::sm_80);
    ADD_FAILURE() << "consumer_schedule on sm_80 not refused";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("consumer_schedule pingpong: only the sm_90a warp-specialised kernel has consumer "
                                         "warpgroups; def 'gemm' on sm_80 runs the mma.sync main loop"),
              std::string::npos)
        << e.what();
  }
}

// The kernel of `example` with `sizes` through the emitter (the launch metadata and the
// kernel; helpers omitted), as its golden file starts.
EmittedKernel hopper_example(const std::string& example, const SizeBindings& sizes, std::string* golden_text,
                             std::optional<ConsumerSchedule> consumers = std::nullopt) {
  Program program = compile_program(example_source(example), sizes);
  CudaEmitRequest request;
  request.options = default_gpu_options(Arch::sm_90a);
  request.options.consumer_schedule = consumers;
  request.helpers = CudaEmitRequest::Helpers::omit;
  EmittedKernel kernel = emit_cuda(program, request);
  std::string shape;
  for (const auto& [name, value] : sizes) shape += (shape.empty() ? "" : ", ") + name + " = " + std::to_string(value);
  *golden_text = "// The sm_90a kernel of def " + example + " (" + shape + (consumers ? ", " + to_string(*consumers) : "") +
                 ")\n#include \"polyfuse_cuda.cuh\"\n\n" + kernel.source;
  return kernel;
}

// examples/batched_gemm.tc, batch 3: 3-d tensor maps (boxes of one matrix), the walk over batch x
// 2 x 2 tiles decomposed into the batch element and the grouped tile, C stored at its batch
// element; edge tiles in M and N and a K tail.
TEST(HopperGemmKernel, BatchedGemmGolden) {
  std::string text;
  const EmittedKernel kernel = hopper_example("batched_gemm", {{"B", 3}, {"M", 200}, {"N", 136}, {"K", 200}}, &text);
  EXPECT_EQ(kernel.metadata.parameters[0].tma_box, (std::vector<int>{64, 128}));
  EXPECT_EQ(kernel.metadata.grid[0].value, 3 * 2 * 2);  // batch x tiles, launched as min(SMs, 12) blocks
  EXPECT_NE(kernel.source.find("tma_load_batched_tile(stage, A_map, kb * 64, m0, batch, 128, 1"), std::string::npos);
  EXPECT_TRUE(matches_golden(text, "codegen/batched_gemm_sm90a_tma.cu"));
}

// examples/add_gemms.tc: C1 + C2 chained into one
// accumulator (codegen/added_matmuls.h) — the single GEMM's 128 x 128 tiles and stages, each
// stage A and B for the first 3 k-blocks, then E and F in the same slots for 3 more — the
// epilogue reading the sum; only D stored. Edge tiles in M and N, a K tail for each matmul.
TEST(HopperGemmKernel, AddGemmsGolden) {
  std::string text;
  const EmittedKernel kernel = hopper_example("add_gemms", {{"M", 300}, {"N", 200}, {"K", 136}}, &text);
  EXPECT_NE(kernel.metadata.options.find("block 128x128x64 (wgmma m64n128k16), 5 stages"), std::string::npos) << kernel.metadata.options;
  EXPECT_NE(kernel.source.find("if (kb < 3) {  // A's k-blocks"), std::string::npos);
  EXPECT_NE(kernel.source.find("tma_load_tile(stage, E_map, (kb - 3) * 64, m0, 128, 1"), std::string::npos);
  EXPECT_TRUE(matches_golden(text, "codegen/add_gemms_sm90a_tma.cu"));
}

// examples/layernorm.tc (GEMM + bias + LayerNorm, codegen/hopper_row_chain.h): one tile spans
// the row of 200 columns (128 x 256 x 64, wgmma m64n256k16, 2 stages beside 128 KB of staging),
// each consumer warpgroup stages its accumulators and runs X = C + bias and the chain on its 64
// rows, one warp a row; only Y stored. Compiled for sm_90a by codegen.nvcc_layernorm_sm90a_tma_sm90a
// (no spills, no ptxas diagnostic) and its SASS checked for HGMMA and UTMALDG.
TEST(HopperGemmKernel, LayerNormRowChainGolden) {
  std::string text;
  const EmittedKernel kernel = hopper_example("layernorm", {{"M", 300}, {"N", 200}, {"K", 136}}, &text);
  EXPECT_NE(kernel.metadata.options.find("block 128x256x64 (wgmma m64n256k16), 2 stages"), std::string::npos)
      << kernel.metadata.options;
  EXPECT_NE(kernel.source.find("pf::sm90::lds_staged<8>(staging, 256, pf_r, static_cast<int>(first) - n0"), std::string::npos);
  EXPECT_EQ(kernel.source.find("HMMA"), std::string::npos);
  EXPECT_TRUE(matches_golden(text, "codegen/layernorm_sm90a_tma.cu"));
}

// examples/swiglu.tc, cooperative: X's tile loaded once per stage for both matmuls (a stage of X,
// Wg and Wu), silu(G) * U in chunks of 8 columns; only H stored.
TEST(HopperGemmKernel, SwigluGolden) {
  std::string text;
  const EmittedKernel kernel =
      hopper_example("swiglu", {{"M", 300}, {"N", 200}, {"K", 136}}, &text, ConsumerSchedule::cooperative);
  EXPECT_NE(kernel.metadata.options.find("block 128x64x64 (wgmma m64n64k16), 5 stages"), std::string::npos) << kernel.metadata.options;
  EXPECT_EQ(kernel.source.find("X_map", kernel.source.find("Wg_map, n0")), std::string::npos) << "X loaded once a stage";
  EXPECT_TRUE(matches_golden(text, "codegen/swiglu_sm90a_tma.cu"));
}

// examples/dequant_gemm.tc: the producer's thread 0 loads A and B by TMA onto the stages'
// "loaded" mbarriers; warps 1 .. 3 apply the prologue to A's tile where it landed, loading
// scale(k) 8 columns at a time for each chunk column they transform (prologue_columns, declared
// before their loops), and arrive on "full".
TEST(HopperGemmKernel, DequantGemmGolden) {
  std::string text;
  const EmittedKernel kernel = hopper_example("dequant_gemm", {{"M", 300}, {"N", 256}, {"K", 200}}, &text);
  EXPECT_EQ(kernel.metadata.parameters[0].tma_box, (std::vector<int>{64, 128}));  // A: by TMA
  EXPECT_NE(kernel.source.find("transform_tile<__half>(stage, 200, 300, kb * 64, m0, 128, 1, Swizzle::b128, "
                               "threadIdx.x - 32, 96, prologue);"),
            std::string::npos);
  EXPECT_NE(kernel.source.find("pf::ldg_chunk(scale + (count > 0 ? pf_inner : 0), pf_columns[0], count)"), std::string::npos);
  EXPECT_TRUE(matches_golden(text, "codegen/dequant_gemm_sm90a_tma.cu"));
}

// examples/relu_gemm.tc with K = 130: TMA cannot load A (rows of 260 bytes), so the producer's
// 128 threads copy it through the prologue (thread_load_tile, 2-element loads) beside thread
// 0's TMA loads of B, all arriving on "full".
TEST(HopperGemmKernel, ReluGemmCopiedThroughThePrologueGolden) {
  std::string text;
  const EmittedKernel kernel = hopper_example("relu_gemm", {{"M", 300}, {"N", 256}, {"K", 130}}, &text);
  EXPECT_TRUE(kernel.metadata.parameters[0].tma_box.empty());  // A: copied by threads
  EXPECT_EQ(kernel.source.find("loaded + s"), std::string::npos);  // no "loaded" mbarriers
  EXPECT_TRUE(matches_golden(text, "codegen/relu_gemm_sm90a_threads.cu"));
}

// A(k, m) and B(n, k): an M-major A tile, a K-major B tile.
TEST(HopperGemmKernel, GemmBf16ColumnMajorOperandsGolden) {
  EXPECT_TRUE(matches_golden(hopper_source("bf16", {{"M", 192}, {"N", 200}, {"K", 264}}, false, false),
                             "codegen/gemm_sm90a_tma_at_bt_bf16.cu"));
}

// The sm_90a kernel of `program` (helpers omitted) against golden file `golden` under a header
// line naming it, with A's and B's TMA boxes {row elements, rows}.
void expect_k_major_golden(const Program& program, const std::string& header, int box_inner, const std::string& golden) {
  CudaEmitRequest request;
  request.options = default_gpu_options(Arch::sm_90a);
  request.helpers = CudaEmitRequest::Helpers::omit;
  const EmittedKernel kernel = emit_cuda(program, request);
  EXPECT_EQ(kernel.metadata.parameters[0].tma_box, (std::vector<int>{box_inner, 128}));  // A: cooperative tiles of 128 rows
  EXPECT_EQ(kernel.metadata.parameters[1].tma_box, (std::vector<int>{box_inner, 128}));
  EXPECT_TRUE(matches_golden("// The sm_90a main loop of " + header + "\n#include \"polyfuse_cuda.cuh\"\n\n" + kernel.source,
                             golden));
}

// examples/gemm_fp8.tc: e4m3 A(m, k) and B(n, k) by TMA in 1-byte boxes of 128 x rows, k-blocks
// of 128 (one 128-byte row), 4 FP8 wgmma k32 steps per k-block, the scales, bias and ReLU per
// element of the staged f32 accumulators; edge tiles in M and N, a K tail (K = 208).
TEST(HopperGemmKernel, GemmFp8Golden) {
  expect_k_major_golden(compile_program(example_source("gemm_fp8"), {{"M", 300}, {"N", 200}, {"K", 208}}),
                        "def gemm_fp8 (M = 300, N = 200, K = 208)", 128, "codegen/gemm_fp8_sm90a_tma.cu");
}

// f32 A(m, k) and B(n, k) (nn.Linear's layout) by TMA in 4-byte boxes of 32 x rows, k-blocks of 32
// (one 128-byte row), 4 TF32 wgmma k8 steps per k-block; edge tiles in M and N, a K tail (K = 100).
TEST(HopperGemmKernel, GemmTf32Golden) {
  expect_k_major_golden(compile_program(gemm_source("f32", true, false), {{"M", 300}, {"N", 200}, {"K", 100}}),
                        "def gemm (f32 operands read as TF32; M = 300, N = 200, K = 100)", 32,
                        "codegen/gemm_tf32_sm90a_tma.cu");
}

// The persistent launch: a 1-d grid of the tile count that the runtime caps at the SM count
// (persistent_grid), kept through the JSON sidecar; the tile group reaches the kernel.
TEST(HopperGemmKernel, PersistentLaunchMetadata) {
  Program program = compile_program(gemm_source("f16", true, true), {{"M", 1000}, {"N", 520}, {"K", 64}});
  CudaEmitRequest request;
  request.options = default_gpu_options(Arch::sm_90a);
  request.options.group = 3;
  request.helpers = CudaEmitRequest::Helpers::omit;
  const EmittedKernel kernel = emit_cuda(program, request);
  const LaunchMetadata& m = kernel.metadata;
  EXPECT_TRUE(m.persistent);
  EXPECT_EQ(m.grid[0].value, 8 * 5);  // ceil(1000 / 128) x ceil(520 / 128) tiles
  EXPECT_EQ(m.grid[1].value, 1);
  EXPECT_EQ(m.block[0], 384);
  EXPECT_NE(kernel.source.find("pf::grouped_tile_at(tile, 5, 8, 3)"), std::string::npos);  // 5 tile columns, 8 tile rows
  EXPECT_NE(m.options.find("persistent: 40 tiles in groups of 3 tile rows over min(SMs, 40) blocks"), std::string::npos)
      << m.options;
  const LaunchMetadata back = launch_metadata_from_json(to_json(m));
  EXPECT_TRUE(back.persistent);
  EXPECT_EQ(persistent_grid(back, 40, 132), 40u);
  EXPECT_EQ(persistent_grid(back, 40, 3), 3u);
  LaunchMetadata plain = back;
  plain.persistent = false;
  EXPECT_EQ(persistent_grid(plain, 40, 3), 40u);
  EXPECT_FALSE(to_json(plain).contains("persistent"));
}

}  // namespace
}  // namespace polyfuse
