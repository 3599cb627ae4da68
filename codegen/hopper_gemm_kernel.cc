#include "codegen/hopper_gemm_kernel.h"

#include <algorithm>
#include <fmt/format.h>

#include "codegen/cuda_kernel_layout.h"
#include "frontend/diagnostics.h"
#include "schedule/plan_from_program.h"

namespace polyfuse {

std::string hopper_gemm_kernel(const Program& program, const KernelPlan& plan, const HopperGemmTiles& t) {
  PF_INTERNAL_CHECK(plan.matmuls.size() == 1 && plan.epilogue.empty(), "the Hopper main loop takes one plain matmul");
  const MatmulStage& mm = plan.matmuls[0];
  const std::int64_t m = bound_size(program, mm.dims.m_extent).value, n = bound_size(program, mm.dims.n_extent).value,
                     k = bound_size(program, *mm.dims.k_extent).value;
  const std::string in = cuda_type(program.find_tensor(mm.a)->type), out = cuda_type(program.find_tensor(mm.c)->type);
  const std::int64_t k_blocks = (k + t.bk - 1) / t.bk;
  const std::int64_t preloaded = std::min<std::int64_t>(t.stages - 1, k_blocks);
  const int s = t.stages;

  std::string text = fmt::format(
      "extern \"C\" __global__ void __launch_bounds__(128, 1) {}(const __grid_constant__ pf::sm90::TensorMap {}_map,\n"
      "    const __grid_constant__ pf::sm90::TensorMap {}_map, {}* __restrict__ {}) {{\n",
      program.name, mm.a, mm.b, out, mm.c);
  text += "  using namespace pf::sm90;\n  PF_DYNAMIC_SHARED_SM90(smem);\n";
  text += fmt::format(
      "  // shared memory: {} stages of {} bytes (A: {} x {} K-major at +0, B: {} x {} N-major at +{}; 128-byte\n"
      "  // swizzle), then the stages' \"full\" and \"empty\" mbarriers at byte {}\n",
      s, t.stage_bytes(), t.bm, t.bk, t.bk, t.bn, t.a_bytes(), t.barrier_offset());
  text += fmt::format("  unsigned long long* full = reinterpret_cast<unsigned long long*>(smem + {});\n", t.barrier_offset());
  text += fmt::format("  unsigned long long* empty = full + {};\n", s);
  text += fmt::format("  const int m0 = blockIdx.y * {}, n0 = blockIdx.x * {};\n", t.bm, t.bn);
  text += "  const bool producer = threadIdx.x == 0;  // issues the TMA loads\n";
  text += "  if (producer) {\n";
  text += fmt::format("    for (int s = 0; s < {}; ++s) {{\n", s);
  text += "      mbarrier_init(full + s, 1);     // the producer's arrive_expect_tx, then the bytes\n";
  text += "      mbarrier_init(empty + s, 128);  // every consumer thread, once its wgmma retired\n";
  text += "    }\n    fence_mbarrier_init();\n  }\n  __syncthreads();\n";
  text += fmt::format("  // TMA (PTX ISA 9.7.9.25): k-block kb of {} and {} into stage kb % {}, completing on full[kb % {}]\n",
                      mm.a, mm.b, s, s);
  text += "  const auto load_k_block = [&](int kb) {\n";
  text += fmt::format("    const int s = kb % {};\n", s);
  text += fmt::format("    unsigned char* a_tile = smem + s * {};\n", t.stage_bytes());
  text += fmt::format("    mbarrier_arrive_expect_tx(full + s, {});\n", t.stage_bytes());
  text += fmt::format("    tma_load_tile(a_tile, {}_map, kb * {}, m0, {}, {}, Swizzle::b128, full + s);\n", mm.a, t.bk, t.bm,
                      t.bk / 64);
  text += fmt::format("    tma_load_tile(a_tile + {}, {}_map, n0, kb * {}, {}, {}, Swizzle::b128, full + s);\n",
                      t.a_bytes(), mm.b, t.bk, t.bk, t.bn / 64);
  text += "  };\n";
  text += fmt::format("  if (producer)\n    for (int kb = 0; kb < {}; ++kb) load_k_block(kb);\n", preloaded);
  text += fmt::format("  WgAcc<{}> acc;  // f32 accumulators of {}: the warpgroup's {} x {} tile\n", t.bn, mm.c, t.bm, t.bn);
  text += "  // k-blocks: wait for a stage, wgmma (PTX ISA 9.7.15) from it, release the previous one\n";
  text += "#pragma unroll 1\n";
  text += fmt::format("  for (int kb = 0; kb < {}; ++kb) {{\n", k_blocks);
  text += fmt::format("    const int s = kb % {};\n", s);
  text += fmt::format("    mbarrier_wait(full + s, static_cast<unsigned>(kb / {}) & 1u);\n", s);
  text += fmt::format("    const unsigned a_tile = shared_window_address(smem + s * {});\n", t.stage_bytes());
  text += fmt::format(
      "    wgmma_k_block<{}, {}, Major::k, Major::mn, Swizzle::b128, Swizzle::b128>(acc, OperandTile{{a_tile, {}, {}, 0}},\n"
      "        OperandTile{{a_tile + {}, {}, {}, 0}}, {}, kb > 0);\n",
      in, t.bn, t.bm, t.bk, t.a_bytes(), t.bn, t.bk, t.bk / 16);
  text += "    wgmma_wait<1>();  // k-block kb - 1's wgmma retired: its stage may be refilled\n";
  text += fmt::format("    if (kb > 0) mbarrier_arrive(empty + (kb - 1) % {});\n", s);
  text += fmt::format("    const int next = kb + {};\n", s - 1);
  text += fmt::format("    if (producer && next < {}) {{\n", k_blocks);
  text += fmt::format("      if (next >= {}) mbarrier_wait(empty + next % {}, static_cast<unsigned>(next / {} - 1) & 1u);\n", s,
                      s, s);
  text += "      load_k_block(next);\n    }\n  }\n";
  text += "  wgmma_wait<0>();\n  wgmma_fence_operand(acc);\n";
  text += fmt::format("  // the accumulators to {} (rows and columns outside {} x {} not written), through the stages'\n"
                      "  // shared memory: every TMA load landed and every wgmma retired\n", mm.c, m, n);
  text += fmt::format("  store_wg_acc_staged(acc, reinterpret_cast<float*>(smem), {} + static_cast<long long>(m0) * {} + n0, {},\n"
                      "                      {} - m0, {} - n0);\n", mm.c, n, n, m, n);
  text += "}\n";
  return text;
}

}  // namespace polyfuse
