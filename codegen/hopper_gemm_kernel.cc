#include "codegen/hopper_gemm_kernel.h"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "codegen/cuda_kernel_layout.h"
#include "codegen/cuda_expressions.h"
#include "codegen/main_loop_choice.h"
#include "frontend/diagnostics.h"
#include "frontend/element_type.h"
#include "frontend/ir_printer.h"
#include "schedule/plan_from_program.h"

namespace polyfuse {

namespace {

// What the generator writes about one operand's part of a stage.
struct StageOperand {
  std::string name;               // the tensor
  OperandCopy copy;
  int offset;                     // bytes from the stage's start
  std::string inner0, outer0;     // its tile's origin: contiguous dimension, rows
  int rows, atoms;                // the tile: `atoms` boxes of 64 x rows (128-byte swizzle)
  std::int64_t extent_inner, extent_outer;  // the tensor as stored: rows of extent_inner elements
  const char* major;              // the wgmma operand tile: "Major::k" (k contiguous) or "Major::mn"
  std::string prologue;           // "" or the functor the copying threads apply to each element
  int bytes() const { return rows * atoms * 128; }
};

// The operand `operand` ('A' or 'B') of `mm` as its tiles are read: from the prologue's
// source, transformed by the prologue's expression.
std::string prologue_functor(const MatmulStage& mm, char operand) {
  const std::optional<OperandPrologue>& p = operand == 'A' ? mm.a_prologue : mm.b_prologue;
  if (!p) return "";
  return "[](float x) { return " + c_expression(p->expr, [](int) { return std::string("x"); }) + "; }";
}

// An operand of mn_extent x k_extent per block (the tile at mn0, k-block kb): with k contiguous
// in memory (A(m, k), B(n, k)) a K-major tile of `atoms` = k_extent / 64 boxes of mn_extent
// rows, else an MN-major one of mn_extent / 64 boxes of k_extent rows (A(k, m), B(k, n)).
StageOperand stage_operand(const std::string& name, OperandCopy copy, int offset, bool k_contiguous, const char* mn0,
                           int mn_extent, int k_extent, std::int64_t mn_size, std::int64_t k_size) {
  const std::string k0 = fmt::format("kb * {}", k_extent);
  if (k_contiguous) return {name, copy, offset, k0, mn0, mn_extent, k_extent / 64, k_size, mn_size, "Major::k", ""};
  return {name, copy, offset, mn0, k0, k_extent, mn_extent / 64, mn_size, k_size, "Major::mn", ""};
}

// The widest group of 16-bit elements (8, 4, 2 or 1) a row of `extent_inner` elements allows:
// rows start at multiples of its bytes (buffers are 256-byte aligned), groups never straddle a row.
int vector_elements(std::int64_t extent_inner) {
  int v = 8;
  while (extent_inner % v != 0) v /= 2;
  return v;
}

std::string tma_load(const StageOperand& o, const std::string& stage) {
  return fmt::format("tma_load_tile({}{}, {}_map, {}, {}, {}, {}, Swizzle::b128, full + s);\n", stage,
                     o.offset ? fmt::format(" + {}", o.offset) : "", o.name, o.inner0, o.outer0, o.rows, o.atoms);
}

std::string thread_load(const StageOperand& o, const std::string& stage, int threads) {
  return fmt::format("thread_load_tile<{}>({}{}, {}, {}, {}, {}, {}, {}, {}, Swizzle::b128, threadIdx.x, {}{});\n",
                     vector_elements(o.extent_inner), stage, o.offset ? fmt::format(" + {}", o.offset) : "", o.name,
                     o.extent_inner, o.extent_outer, o.inner0, o.outer0, o.rows, o.atoms, threads,
                     o.prologue.empty() ? "" : ",\n                        " + o.prologue);
}

// The kernel's parameters, in launch_metadata's order (the program's inputs and outputs; the
// sizes are bound): A and B as tensor maps where TMA loads them.
std::string parameters(const Program& program, const StageOperand& a, const StageOperand& b) {
  std::vector<std::string> list;
  for (const Tensor& tensor : program.tensors) {
    if (tensor.role == TensorRole::temporary) continue;
    const bool map = (tensor.name == a.name && a.copy == OperandCopy::tma) || (tensor.name == b.name && b.copy == OperandCopy::tma);
    if (map) list.push_back(fmt::format("const __grid_constant__ pf::sm90::TensorMap {}_map", tensor.name));
    else list.push_back(fmt::format("{}{}* __restrict__ {}", tensor.role == TensorRole::input ? "const " : "",
                                    cuda_type(tensor.type), tensor.name));
  }
  return fmt::format("{}", fmt::join(list, ",\n    "));
}

// Element (pf_m, pf_n) of a row-major tensor read or written with `indices` by a statement whose
// row and column indices are `m` and `n` (bound extents).
std::string element_address(const Program& program, const Access& access, const StatementDims& dims) {
  const Tensor* tensor = program.find_tensor(access.tensor);
  std::string offset;
  for (std::size_t d = 0; d < access.indices.size(); ++d) {
    const std::string& index = access.indices[d];
    PF_INTERNAL_CHECK(index == dims.m || index == dims.n, "an epilogue access indexed by the row and column only");
    std::int64_t stride = 1;
    for (std::size_t e = d + 1; e < tensor->dims.size(); ++e) stride *= bound_size(program, tensor->dims[e]).value;
    const std::string term = index == dims.m ? "pf_m" : "pf_n";
    const std::string scaled = stride == 1 ? term : fmt::format("static_cast<long long>({}) * {}", term, stride);
    offset += (offset.empty() ? "" : " + ") + scaled;
  }
  return fmt::format("{} + (in ? {} : 0)", access.tensor, offset.empty() ? "0" : offset);
}

// The epilogue of `plan` on warpgroup tile elements (pf_m, pf_n) (`in`: inside C), after
// `c_value` holds the matmul's result there: each statement's value in `<tensor>_v`, every
// live-out stored.
std::string epilogue_element(const Program& program, const KernelPlan& plan) {
  const MatmulStage& mm = plan.matmuls[0];
  std::vector<std::string> computed = {mm.c};
  std::string text;
  if (mm.live_out)
    text += fmt::format("    pf::stg_pred({} + (in ? static_cast<long long>(pf_m) * {} + pf_n : 0), pf::from_float<{}>({}_v), in);\n",
                        mm.c, bound_size(program, mm.dims.n_extent).value, cuda_type(program.find_tensor(mm.c)->type), mm.c);
  for (const PointwiseStage& stage : plan.epilogue) {
    const Statement* statement = program.find_statement(stage.dims.statement);
    PF_INTERNAL_CHECK(statement != nullptr, "no statement " + stage.dims.statement);
    const std::string value = c_expression(statement->expr, [&](int read) {
      const Access& access = statement->reads[static_cast<std::size_t>(read)];
      if (std::find(computed.begin(), computed.end(), access.tensor) != computed.end()) return access.tensor + "_v";
      return fmt::format("pf::to_float(pf::ldg_pred({}, in))", element_address(program, access, stage.dims));
    });
    text += fmt::format("    const float {}_v = {};  // {}\n", stage.output, value, print_statement_source(*statement));
    computed.push_back(stage.output);
    if (stage.live_out)
      text += fmt::format("    pf::stg_pred({}, pf::from_float<{}>({}_v), in);\n",
                          element_address(program, statement->write, stage.dims),
                          cuda_type(program.find_tensor(stage.output)->type), stage.output);
  }
  return text;
}

}  // namespace

HopperGemmTiles hopper_gemm_tiles(std::int64_t m) {
  HopperGemmTiles t;
  t.bm = m > 64 ? 128 : 64;
  constexpr int kSharedBudget = 227 * 1024, kMaxStages = 6;
  t.stages = std::clamp((kSharedBudget - 16 * kMaxStages) / t.stage_bytes(), 2, kMaxStages);
  PF_INTERNAL_CHECK(t.staging_bytes() <= t.barrier_offset(), "the epilogue's staging fits in the stages");
  return t;
}

std::string hopper_gemm_kernel(const Program& program, const KernelPlan& plan, const MainLoopChoice& choice,
                               const HopperGemmTiles& t) {
  PF_INTERNAL_CHECK(plan.matmuls.size() == 1, "the Hopper main loop takes one matmul");
  PF_INTERNAL_CHECK(choice.loop == MainLoop::tma_wgmma && (choice.a_copy == OperandCopy::tma || choice.b_copy == OperandCopy::tma),
                    "the Hopper main loop loads A or B by TMA");
  const MatmulStage& mm = plan.matmuls[0];
  const std::int64_t m = bound_size(program, mm.dims.m_extent).value, n = bound_size(program, mm.dims.n_extent).value,
                     k = bound_size(program, *mm.dims.k_extent).value;
  const std::string in = cuda_type(program.find_tensor(mm.a)->type), out = cuda_type(program.find_tensor(mm.c)->type);
  const std::int64_t k_blocks = (k + t.bk - 1) / t.bk;
  const std::int64_t preloaded = std::min<std::int64_t>(t.stages - 1, k_blocks);
  const int s = t.stages;
  StageOperand a = stage_operand(operand_source(mm, 'A'), choice.a_copy, 0, mm.a_layout == OperandLayout::row_major, "m0",
                                 t.bm, t.bk, m, k);
  StageOperand b = stage_operand(operand_source(mm, 'B'), choice.b_copy, t.a_bytes(), mm.b_layout == OperandLayout::col_major,
                                 "n0", t.bn, t.bk, n, k);
  a.prologue = prologue_functor(mm, 'A');
  b.prologue = prologue_functor(mm, 'B');
  PF_INTERNAL_CHECK((a.prologue.empty() || a.copy == OperandCopy::threads) && (b.prologue.empty() || b.copy == OperandCopy::threads),
                    "an operand with a prologue is copied by the threads");
  const StageOperand& by_tma = a.copy == OperandCopy::tma ? a : b;
  const StageOperand* by_threads = a.copy == OperandCopy::threads ? &a : b.copy == OperandCopy::threads ? &b : nullptr;
  const bool both_tma = by_threads == nullptr;

  std::string text = fmt::format(
      "extern \"C\" __global__ void __launch_bounds__({}, 1) {}({}) {{\n", t.threads(), program.name,
      parameters(program, a, b));
  text += "  using namespace pf::sm90;\n  PF_DYNAMIC_SHARED_SM90(smem);\n";
  text += fmt::format(
      "  // shared memory: {} stages of {} bytes (A: {} x {} {}-major at +0, B: {} x {} {}-major at +{}; 128-byte\n"
      "  // swizzle), then the stages' \"full\" and \"empty\" mbarriers at byte {}\n",
      s, t.stage_bytes(), t.bm, t.bk, a.major == std::string("Major::k") ? "K" : "M", t.bk, t.bn,
      b.major == std::string("Major::k") ? "K" : "N", t.a_bytes(), t.barrier_offset());
  text += fmt::format("  unsigned long long* full = reinterpret_cast<unsigned long long*>(smem + {});\n", t.barrier_offset());
  text += fmt::format("  unsigned long long* empty = full + {};\n", s);
  text += fmt::format("  const int m0 = blockIdx.y * {}, n0 = blockIdx.x * {};\n", t.bm, t.bn);
  text += "  const bool producer = threadIdx.x == 0;  // issues the TMA loads\n";
  if (t.consumers() > 1)
    text += fmt::format("  const int wg = threadIdx.x / 128;  // consumer warpgroup: rows 64 wg .. 64 wg + 63 of the {} x {} tile\n",
                        t.bm, t.bn);
  text += "  if (producer) {\n";
  text += fmt::format("    for (int s = 0; s < {}; ++s) {{\n", s);
  if (both_tma)
    text += "      mbarrier_init(full + s, 1);     // the producer's arrive_expect_tx, then the bytes\n";
  else
    text += fmt::format("      mbarrier_init(full + s, {});   // the producer's arrive_expect_tx, the bytes of {}, and every\n"
                        "                                      // thread once its part of {} is written\n",
                        t.threads() + 1, by_tma.name, by_threads->name);
  text += fmt::format("      mbarrier_init(empty + s, {});  // every consumer thread, once its wgmma retired\n", t.threads());
  text += "    }\n    fence_mbarrier_init();\n  }\n  __syncthreads();\n";
  if (both_tma) {
    text += fmt::format("  // TMA (PTX ISA 9.7.9.25): k-block kb of {} and {} into stage kb % {}, completing on full[kb % {}]\n",
                        mm.a, mm.b, s, s);
    text += "  const auto load_k_block = [&](int kb) {\n";
    text += fmt::format("    const int s = kb % {};\n", s);
    text += fmt::format("    unsigned char* stage = smem + s * {};\n", t.stage_bytes());
    text += fmt::format("    mbarrier_arrive_expect_tx(full + s, {});\n", t.stage_bytes());
    text += "    " + tma_load(a, "stage") + "    " + tma_load(b, "stage");
    text += "  };\n";
    text += fmt::format("  if (producer)\n    for (int kb = 0; kb < {}; ++kb) load_k_block(kb);\n", preloaded);
  } else {
    text += fmt::format("  // k-block kb of {} by TMA (PTX ISA 9.7.9.25) into stage kb % {}, completing on full[kb % {}] (the producer)\n",
                        by_tma.name, s, s);
    text += "  const auto tma_k_block = [&](int kb) {\n";
    text += fmt::format("    const int s = kb % {};\n", s);
    text += fmt::format("    mbarrier_arrive_expect_tx(full + s, {});\n", by_tma.bytes());
    text += "    " + tma_load(by_tma, fmt::format("smem + s * {}", t.stage_bytes()));
    text += "  };\n";
    if (by_threads->prologue.empty())
      text += fmt::format("  // k-block kb of {} by every thread, the tile TMA would write (TMA cannot load {}: its rows are\n"
                          "  // {} bytes apart), made visible to wgmma (PTX ISA 9.7.13.4 fence.proxy.async), then full[kb % {}]\n",
                          by_threads->name, by_threads->name, by_threads->extent_inner * 2, s);
    else
      text += fmt::format("  // k-block kb of {} by every thread through the prologue, in the layout TMA would write, made\n"
                          "  // visible to wgmma (PTX ISA 9.7.13.4 fence.proxy.async), then full[kb % {}]\n",
                          by_threads->name, s);
    text += "  const auto copy_k_block = [&](int kb) {\n";
    text += fmt::format("    const int s = kb % {};\n", s);
    text += "    " + thread_load(*by_threads, fmt::format("smem + s * {}", t.stage_bytes()), t.threads());
    text += "    fence_proxy_async();\n";
    text += "    mbarrier_arrive(full + s);\n";
    text += "  };\n";
    text += fmt::format("  for (int kb = 0; kb < {}; ++kb) {{\n    if (producer) tma_k_block(kb);\n    copy_k_block(kb);\n  }}\n",
                        preloaded);
  }
  text += fmt::format("  WgAcc<{}> acc;  // f32 accumulators of {}: the warpgroup's 64 x {} tile\n", t.bn, mm.c, t.bn);
  text += "  // k-blocks: wait for a stage, wgmma (PTX ISA 9.7.15) from it, release the previous one\n";
  text += "#pragma unroll 1\n";
  text += fmt::format("  for (int kb = 0; kb < {}; ++kb) {{\n", k_blocks);
  text += fmt::format("    const int s = kb % {};\n", s);
  text += fmt::format("    mbarrier_wait(full + s, static_cast<unsigned>(kb / {}) & 1u);\n", s);
  text += fmt::format("    const unsigned stage = shared_window_address(smem + s * {});\n", t.stage_bytes());
  text += fmt::format(
      "    wgmma_k_block<{}, {}, {}, {}, Swizzle::b128, Swizzle::b128>(acc, OperandTile{{stage, {}, {}, {}}},\n"
      "        OperandTile{{stage + {}, {}, {}, 0}}, {}, kb > 0);\n",
      in, t.bn, a.major, b.major, t.bm, t.bk, t.consumers() > 1 ? "64 * wg" : "0", t.a_bytes(), t.bn, t.bk, t.bk / 16);
  text += "    wgmma_wait<1>();  // k-block kb - 1's wgmma retired: its stage may be refilled\n";
  text += fmt::format("    if (kb > 0) mbarrier_arrive(empty + (kb - 1) % {});\n", s);
  text += fmt::format("    const int next = kb + {};\n", s - 1);
  const std::string wait_empty =
      fmt::format("      if (next >= {}) mbarrier_wait(empty + next % {}, static_cast<unsigned>(next / {} - 1) & 1u);\n", s, s, s);
  if (both_tma) {
    text += fmt::format("    if (producer && next < {}) {{\n", k_blocks);
    text += wait_empty + "      load_k_block(next);\n    }\n  }\n";
  } else {
    text += fmt::format("    if (next < {}) {{  // every thread refills the stage of k-block kb - 1\n", k_blocks);
    text += wait_empty + "      if (producer) tma_k_block(next);\n      copy_k_block(next);\n    }\n  }\n";
  }
  text += "  wgmma_wait<0>();\n  wgmma_fence_operand(acc);\n";
  if (!plan.epilogue.empty()) {
    text += fmt::format("  // the accumulators staged in the stages' shared memory (every stage landed, every wgmma retired),\n"
                        "  // then the epilogue on each element of the warpgroup's 64 x {} tile; rows and columns outside\n"
                        "  // {} x {} are not read or written\n", t.bn, m, n);
    const std::string row0 = t.consumers() > 1 ? "m0 + 64 * wg" : "m0";
    text += fmt::format("  float* staging = reinterpret_cast<float*>(smem){};\n",
                        t.consumers() > 1 ? fmt::format(" + wg * {}", 64 * (t.bn + 4)) : "");
    text += "  stage_wg_acc(acc, staging);\n";
    text += fmt::format("  for (int e = threadIdx.x % 128; e < {}; e += 128) {{\n", 64 * t.bn);
    text += fmt::format("    const int pf_m = {} + e / {}, pf_n = n0 + e % {};\n", row0, t.bn, t.bn);
    text += fmt::format("    const bool in = pf_m < {} && pf_n < {};\n", m, n);
    text += fmt::format("    const float {}_v = pf::lds(staging + e / {} * {} + e % {});\n", mm.c, t.bn, t.bn + 4, t.bn);
    text += epilogue_element(program, plan);
    text += "  }\n}\n";
    return text;
  }
  text += fmt::format("  // the accumulators to {} (rows and columns outside {} x {} not written), through the stages'\n"
                      "  // shared memory: every {} landed and every wgmma retired\n",
                      mm.c, m, n, both_tma ? "TMA load" : "stage");
  // 16-byte stores when every row of C starts 16-byte aligned (N a multiple of 16 / element size)
  const int out_bytes = size_in_bytes(program.find_tensor(mm.c)->type);
  const std::string store = n % (16 / out_bytes) == 0 ? "store_wg_acc_staged<true>" : "store_wg_acc_staged";
  if (t.consumers() == 1)
    text += fmt::format("  {}(acc, reinterpret_cast<float*>(smem), {} + static_cast<long long>(m0) * {} + n0, {},\n"
                        "                      {} - m0, {} - n0);\n", store, mm.c, n, n, m, n);
  else
    text += fmt::format("  const int row0 = m0 + 64 * wg;  // the warpgroup's rows, staged at its own {} bytes\n"
                        "  {}(acc, reinterpret_cast<float*>(smem) + wg * {}, {} + static_cast<long long>(row0) * {} + n0,\n"
                        "                      {}, {} - row0, {} - n0);\n",
                        t.staging_bytes() / t.consumers(), store, 64 * (t.bn + 4), mm.c, n, n, m, n);
  text += "}\n";
  return text;
}

}  // namespace polyfuse
