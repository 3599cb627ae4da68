// The launch grid (codegen/kernel_grid.h) and the check that it covers every statement:
// the grid spans the largest output along each axis, every example passes the check under
// several tile options (emit_cuda runs it on every kernel), and a context or grid that
// misses blocks is reported as a compiler bug.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <tuple>

#include "codegen/cuda_emitter.h"
#include "codegen/kernel_ast.h"
#include "codegen/kernel_grid.h"
#include "frontend/diagnostics.h"
#include "gemm_programs.h"
#include "plans.h"

namespace polyfuse {
namespace {

using namespace polyfuse::testing;

std::string read_example(const std::string& name) {
  std::ifstream in(std::string(POLYFUSE_SOURCE_ROOT) + "/examples/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The CLI's defaults: the warp tile shrinks until the register tiles fit.
GpuOptions defaults() {
  GpuOptions o;
  o.choose_warp = true;
  return o;
}

GpuOptions tiles(int bm, int bn, int bk, int wm, int wn, int split_k = 1) {
  GpuOptions o = defaults();
  o.block = {bm, bn, bk};
  o.warp = {wm, wn, bk / split_k};
  o.split_k = split_k;
  return o;
}

// Every example the GPU path compiles, with sizes unbound and bound to odd values, under
// default, small and split-K tiles: emit_cuda would throw InternalError if a statement had
// instances outside the grid or the AST's context.
TEST(KernelGrid, EveryExampleIsCoveredByItsGrid) {
  const std::vector<GpuOptions> options{defaults(), tiles(32, 32, 16, 16, 16), tiles(64, 128, 32, 32, 64, 2)};
  for (const char* example : {"gemm.tc", "gemm_bias_relu.tc", "relu_gemm.tc", "add_gemms.tc", "batched_gemm.tc"}) {
    const std::string source = read_example(example);
    for (bool bound : {false, true}) {
      SizeBindings sizes;
      if (bound)
        for (const std::string& size : compile_program(source).parameters) sizes[size] = 37 + 41 * static_cast<int>(sizes.size());
      Program program = compile_program(source, sizes);
      for (const GpuOptions& o : options) {
        CudaEmitRequest request;
        request.options = o;
        EXPECT_NO_THROW(emit_cuda(program, request)) << example << (bound ? " (bound sizes)" : "");
      }
    }
  }
}

// The grid spans the larger output along each axis: d_A is 300 x 64, d_B is 64 x 200.
TEST(KernelGrid, SpansTheLargestOutputAlongEachAxis) {
  Program program = compile_program(
      "def g(f16(M, K) A, f16(K, N) B, f16(M, N) d_C) -> (f16(M, K) d_A, f16(K, N) d_B) {\n"
      "  d_A(m, k) +=! d_C(m, n) * B(k, n)\n  d_B(k, n) +=! d_C(m, n) * A(m, k)\n}\n",
      {{"M", 300}, {"N", 200}, {"K", 64}});
  CudaEmitRequest request;
  request.options = defaults();
  EmittedKernel kernel = emit_cuda(program, request);
  EXPECT_EQ(kernel.metadata.grid[0].value, 2);  // ceil(200 / 128): d_B's columns
  EXPECT_EQ(kernel.metadata.grid[1].value, 3);  // ceil(300 / 128): d_A's rows
  EXPECT_EQ(kernel.metadata.grid[2].value, 1);
}

// A context that leaves out blocks the statement needs is caught, naming the statement
// and a block it misses (the shape of the original miscompile: blockIdx pinned to 0).
TEST(KernelGrid, AContextThatMissesBlocksIsACompilerBug) {
  auto context = make_isl_context();
  KernelPlan plan = gemm_plan(context.ctx());
  GpuOptions o;
  isl::set params(context.ctx(), "[M, N, K, blockIdx_y, blockIdx_x, warp_y, warp_x, warp_k] -> { : }");
  isl::set full = kernel_context(plan, o, params);
  EXPECT_NO_THROW(check_grid_covers_statements(plan, kernel_grid(plan, o), full));
  isl::set pinned = full.intersect(isl::set(context.ctx(), "[blockIdx_y] -> { : blockIdx_y = 0 }"));
  try {
    check_grid_covers_statements(plan, kernel_grid(plan, o), pinned);
    FAIL() << "a context pinning blockIdx_y to 0 was accepted";
  } catch (const InternalError& e) {
    EXPECT_NE(std::string(e.what()).find("kernel gemm: statement S0 has instances in blocks that the launch grid (M x N "
                                         "tiles of 128x128) or the kernel's context does not run"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("blockIdx_y = "), std::string::npos) << e.what();
  }
}

// A grid narrower than a statement (as when the grid followed the first matmul only).
TEST(KernelGrid, AGridNarrowerThanAStatementIsACompilerBug) {
  auto context = make_isl_context();
  KernelPlan plan = gemm_plan(context.ctx());
  GpuOptions o;
  isl::set params(context.ctx(), "[M, N, K, blockIdx_y, blockIdx_x, warp_y, warp_x, warp_k] -> { : }");
  KernelGrid narrow = kernel_grid(plan, o);
  narrow.rows = Size{"", 128};  // one row of blocks, whatever M is
  EXPECT_THROW(check_grid_covers_statements(plan, narrow, kernel_context(plan, o, params)), InternalError);
}

// The block order's group (kernel_grid.h): the default rule, and the option reaching the
// kernel as one pf::grouped_tile call whose tile replaces blockIdx.y/x (group 1: none).
TEST(KernelGrid, BlockOrderGroupByRuleAndOption) {
  EXPECT_EQ(default_tile_group(Size{"", 1024}, 128), 8);  // 8 tile rows
  EXPECT_EQ(default_tile_group(Size{"", 1000}, 128), 8);  // 7 and a partial one
  EXPECT_EQ(default_tile_group(Size{"", 896}, 128), 1);   // 7
  EXPECT_EQ(default_tile_group(Size{"M", 0}, 128), 8);    // unbound
  const std::string source = read_example("gemm.tc");
  const std::string call = "pf::grouped_tile(blockIdx.x, blockIdx.y, gridDim.x, gridDim.y, ";
  for (auto [m, group, expected] : {std::tuple{4096, std::optional<int>{}, 8}, {896, std::optional<int>{}, 1},
                                    {896, std::optional<int>{3}, 3}, {4096, std::optional<int>{1}, 1},
                                    {300, std::optional<int>{64}, 64}}) {
    CudaEmitRequest request;
    request.options = defaults();
    request.options.group = group;
    const std::string emitted = emit_cuda(compile_program(source, {{"M", m}, {"N", 256}, {"K", 64}}), request).source;
    const std::string cuda = emitted.substr(emitted.find("__global__ void"));  // the kernel, past the helpers
    const std::string what = fmt::format("M={} group {}", m, group ? std::to_string(*group) : "unset");
    EXPECT_NE(emitted.find(fmt::format("stages 2 group {}.", expected)), std::string::npos) << what;
    if (expected == 1) {
      EXPECT_EQ(cuda.find("grouped_tile"), std::string::npos) << what;
      EXPECT_NE(cuda.find("blockIdx.y"), std::string::npos) << what;
    } else {
      EXPECT_NE(cuda.find(call + std::to_string(expected) + ");"), std::string::npos) << what;
      EXPECT_NE(cuda.find("tile.row"), std::string::npos) << what;
      EXPECT_EQ(cuda.find("blockIdx.y", cuda.find(call) + call.size()), std::string::npos) << what << ": blockIdx.y past the tile";
    }
  }
}

}  // namespace
}  // namespace polyfuse
