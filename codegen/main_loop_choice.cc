#include "codegen/main_loop_choice.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <vector>

#include "codegen/added_matmuls.h"
#include "runtime/tma/tensor_map_rules.h"
#include "schedule/plan_from_program.h"

namespace polyfuse {
namespace {

// The Hopper main loop's tiles: k-blocks of one 128-byte swizzle atom (64 16-bit elements,
// 128 FP8 ones, 32 f32 ones), A boxes of 64 rows (one warpgroup's wgmma M), B boxes of 64 columns.
constexpr unsigned kAtomBytes = 128, kBoxOuter = 64;
// cudaMalloc returns 256-byte aligned pointers; the runtime's buffers are its.
constexpr std::uintptr_t kAllocationAlignment = 256;

// Why the tile options keep the mma.sync main loop, or "": they are that loop's (warp tiles,
// macro-MMAs, split-K over warps, cp.async stages, block order); the Hopper loop chooses its own tiles.
std::string tile_options_refusal(const GpuOptions& options) {
  const GpuOptions d = default_gpu_options(options.arch);
  std::vector<std::string> set;
  if (options.block != d.block) set.push_back("--block");
  if (!options.choose_warp && options.warp != d.warp) set.push_back("--warp");
  if (options.mma != d.mma) set.push_back("--mma");
  if (options.split_k != d.split_k) set.push_back("--split-k");
  if (options.stages != d.stages) set.push_back("--stages");
  if (set.empty()) return "";
  return fmt::format("{} chosen: tile options of the mma.sync main loop (the TMA + wgmma loop takes its own tiles)",
                     fmt::join(set, ", "));
}

// Why the batched matmul `mm` does not fit the Hopper kernel's batch walk, or "": each operand
// is indexed by all of C's batch indices first, in C's order (one linearised batch coordinate),
// or by none (a matrix shared by the whole batch).
std::string unsupported_batch(const Program& program, const MatmulStage& mm) {
  if (mm.dims.batch.empty()) return "";
  // the copying threads apply a prologue to the batch element's matrix; one that reads other
  // tensors gets the element's row and column in it, not its batch element
  for (const std::optional<OperandPrologue>& p : {mm.a_prologue, mm.b_prologue})
    if (p && !p->operands.empty()) return "a prologue reading other tensors on a batched matmul";
  const Statement* statement = program.find_statement(mm.dims.statement);
  bool any_batched = false;
  for (const Access& read : statement->reads) {
    if (read.tensor != mm.a && read.tensor != mm.b) continue;
    if (read.indices.size() == 2) continue;
    const std::vector<std::string> leading(read.indices.begin(), read.indices.end() - 2);
    if (leading != mm.dims.batch)
      return fmt::format("a batched operand {} not indexed by C's batch indices first, in C's order", read.tensor);
    any_batched = true;
  }
  return any_batched ? "" : "batch indices on neither operand";
}

// Why the Hopper kernel cannot run the matmuls of `plan` in one k-loop, or "": one matmul, or
// two over the same output tiles (M, N and batch extents) and the same K, `+=!` without
// prologues, each reading program inputs of one 16-bit type.
std::string unsupported_matmuls(const Program& program, const KernelPlan& plan, bool chained) {
  if (plan.matmuls.size() > 2) return "more than two matmuls";
  if (plan.matmuls.size() == 1) return "";
  const MatmulStage& first = plan.matmuls[0];
  const ElementType type = program.find_tensor(first.a)->type;
  const auto value = [&](const Size& size) { return bound_size(program, size); };
  for (const MatmulStage& mm : plan.matmuls) {
    if (mm.a_prologue || mm.b_prologue) return "a prologue on one of several matmuls";
    if (!mm.zero_init) return "a `+=` reduction";
    for (const MatmulStage& other : plan.matmuls)
      if (other.a == mm.b || other.b == mm.a) return "a tensor that is A of one matmul and B of another";
    for (const std::string& operand : {mm.a, mm.b}) {
      const Tensor* tensor = program.find_tensor(operand);
      if (tensor->role != TensorRole::input) return fmt::format("a matmul reading {}, which the kernel computes", operand);
      if (tensor->type != type || (type != ElementType::f16 && type != ElementType::bf16))
        return "several matmuls whose operands are not all f16 or all bf16";
    }
    if (!chained && !(value(*mm.dims.k_extent) == value(*first.dims.k_extent)))
      return fmt::format("matmuls of different K ({} and {}: two k-loops)", value(*first.dims.k_extent).to_string(),
                         value(*mm.dims.k_extent).to_string());
    bool same_tiles = value(mm.dims.m_extent) == value(first.dims.m_extent) && value(mm.dims.n_extent) == value(first.dims.n_extent) &&
                      mm.dims.batch_extents.size() == first.dims.batch_extents.size();
    for (std::size_t d = 0; same_tiles && d < mm.dims.batch_extents.size(); ++d)
      same_tiles = value(mm.dims.batch_extents[d]) == value(first.dims.batch_extents[d]);
    if (!same_tiles) return "matmuls over different output tiles";
  }
  return "";
}

// Why two matmuls whose results the epilogue adds do not run as one chained k-loop, or "".
std::string chain_refusal(const Program& program, const KernelPlan& plan, const GpuOptions& options) {
  if (plan.matmuls.size() != 2) return "not two matmuls";
  if (std::string why = added_matmuls_refusal(program, plan, options); !why.empty()) return why;
  const MatmulStage &first = plan.matmuls[0], &second = plan.matmuls[1];
  if (!first.dims.batch.empty() || !second.dims.batch.empty()) return "batched matmuls";
  if (first.a_layout != second.a_layout || first.b_layout != second.b_layout)
    return "the two A or the two B in different layouts";
  return "";
}

// Why the Hopper main loop does not handle `plan` yet, or "" (`f32`: how f32 matmuls run).
std::string unsupported_plan(const Program& program, const KernelPlan& plan, bool chained, F32Matmul f32) {
  if (std::string why = unsupported_matmuls(program, plan, chained); !why.empty()) return why;
  for (const MatmulStage& each : plan.matmuls)
    if (std::string why = unsupported_batch(program, each); !why.empty()) return why;
  const MatmulStage& mm = plan.matmuls[0];
  if (mm.a_prologue && mm.b_prologue) return "prologues on both operands";
  // A prologue's other tensors are read by the copying threads at the element's coordinates.
  for (const std::optional<OperandPrologue>& prologue : {mm.a_prologue, mm.b_prologue})
    for (const PrologueOperand& operand : prologue ? prologue->operands : std::vector<PrologueOperand>{})
      if (program.find_tensor(operand.tensor)->role != TensorRole::input)
        return fmt::format("a prologue reading {}, which the kernel computes", operand.tensor);
  // Epilogues run per element of C's tile: the same (b.., m, n) domain, computed tensors read at
  // (b.., m, n), inputs indexed by batch indices, m and n only.
  std::vector<std::string> computed;
  for (const MatmulStage& each : plan.matmuls) computed.push_back(each.c);
  for (const PointwiseStage& stage : plan.epilogue) {
    if (!(stage.dims.m_extent == mm.dims.m_extent) || !(stage.dims.n_extent == mm.dims.n_extent))
      return "an epilogue over another domain than the matmul's";
    std::vector<std::string> own = stage.dims.batch;
    own.push_back(stage.dims.m);
    own.push_back(stage.dims.n);
    const Statement* statement = program.find_statement(stage.dims.statement);
    for (const Access& read : statement->reads) {
      const bool is_computed = std::find(computed.begin(), computed.end(), read.tensor) != computed.end();
      if (is_computed && read.indices != own) return "an epilogue reading a result at other indices than its own";
      for (const std::string& index : read.indices)
        if (std::find(own.begin(), own.end(), index) == own.end()) return "an epilogue operand indexed by other indices";
    }
    if (statement->write.indices != own) return "an epilogue writing other than its (b.., m, n)";
    computed.push_back(stage.output);
  }
  if (!mm.zero_init) return "a `+=` reduction";
  ElementType a = program.find_tensor(operand_source(mm, 'A'))->type, b = program.find_tensor(operand_source(mm, 'B'))->type;
  if (a == ElementType::f32 && b == ElementType::f32) {  // TF32 wgmma: both K-major (PTX ISA 9.7.15.5.1)
    if (f32 == F32Matmul::x3tf32)
      return "3xTF32 f32 matmuls (they run mma.sync m16n8k8, which splits the operands in registers)";
    if (mm.a_layout != OperandLayout::row_major || mm.b_layout != OperandLayout::col_major)
      return "f32 operands that are not K-major (A(m, k), B(n, k): TF32 wgmma reads no other; they run TF32 mma.sync "
             "m16n8k8)";
    return "";
  }
  if (mm.operand_type == ElementType::f32)
    return fmt::format("operands of two types, {} and {} (they run TF32 mma.sync m16n8k8, the 16-bit one widened in "
                       "registers: TF32 wgmma reads both tiles as f32 from shared memory)",
                       to_string(a), to_string(b));
  if (is_fp8(a) && is_fp8(b)) {  // e4m3 and e5m2 in either operand: wgmma's FP8 forms
    if (mm.a_layout != OperandLayout::row_major || mm.b_layout != OperandLayout::col_major)
      return "FP8 operands that are not K-major (A(m, k), B(n, k))";
    return "";
  }
  if (a != b || (a != ElementType::f16 && a != ElementType::bf16)) return "operands other than f16 or bf16";
  return "";
}

}  // namespace

std::string tma_refusal(const std::string& name, ElementType type, std::int64_t rows, std::int64_t cols,
                        std::int64_t batches) {
  tma::TiledMapRequest r;
  r.type = tma_data_type(type);
  const unsigned bytes = tma::element_bits(r.type) / 8;
  r.rank = batches > 0 ? 3 : 2;
  r.global_address = kAllocationAlignment;
  r.global_dim[0] = static_cast<std::uint64_t>(cols);
  r.global_dim[1] = static_cast<std::uint64_t>(rows);
  r.global_dim[2] = static_cast<std::uint64_t>(batches);
  r.global_strides[0] = static_cast<std::uint64_t>(cols) * bytes;
  r.global_strides[1] = static_cast<std::uint64_t>(rows) * r.global_strides[0];
  r.box_dim[0] = kAtomBytes / bytes;
  r.box_dim[1] = kBoxOuter;
  r.box_dim[2] = 1;
  r.swizzle = tma::Swizzle::b128;
  std::optional<tma::RuleViolation> broken = tma::check_tiled_map(r);
  return broken ? fmt::format("TMA cannot load {}: {}", name, broken->message) : "";
}

tma::DataType tma_data_type(ElementType type) {
  if (is_fp8(type)) return tma::DataType::uint8;  // TMA moves FP8 codes as bytes
  if (type == ElementType::f32) return tma::DataType::float32;  // TF32 wgmma reads the f32 values
  return type == ElementType::bf16 ? tma::DataType::bfloat16 : tma::DataType::float16;
}

const std::string& operand_source(const MatmulStage& mm, char operand) {
  const std::optional<OperandPrologue>& prologue = operand == 'A' ? mm.a_prologue : mm.b_prologue;
  return prologue ? prologue->source : operand == 'A' ? mm.a : mm.b;
}

std::int64_t operand_batches(const Program& program, const std::string& tensor) {
  const Tensor* t = program.find_tensor(tensor);
  if (t->dims.size() <= 2) return 0;
  std::int64_t batches = 1;
  for (std::size_t d = 0; d + 2 < t->dims.size(); ++d) batches *= bound_size(program, t->dims[d]).value;
  return batches;
}

const char* to_string(MainLoop loop) { return loop == MainLoop::tma_wgmma ? "TMA + wgmma" : "mma.sync"; }

MainLoopChoice choose_main_loop(const Program& program, const KernelPlan& plan, const GpuOptions& options) {
  MainLoopChoice choice;
  if (!has_wgmma(options.arch)) return choice;
  const bool chained = chain_refusal(program, plan, options).empty();
  if (std::string why = unsupported_plan(program, plan, chained, options.f32_matmul); !why.empty()) {
    choice.fallback_reason = "the TMA + wgmma main loop does not handle " + why + " yet";
    return choice;
  }
  if (std::string why = tile_options_refusal(options); !why.empty()) {
    choice.fallback_reason = why;
    return choice;
  }
  const MatmulStage& mm = plan.matmuls[0];
  const Size m = bound_size(program, mm.dims.m_extent), n = bound_size(program, mm.dims.n_extent),
             k = bound_size(program, *mm.dims.k_extent);
  const bool batch_symbolic =
      std::any_of(mm.dims.batch_extents.begin(), mm.dims.batch_extents.end(), [&](const Size& e) { return bound_size(program, e).is_symbolic(); });
  if (m.is_symbolic() || n.is_symbolic() || k.is_symbolic() || batch_symbolic) {
    choice.fallback_reason = "unbound sizes (TMA's stride rules are checked at compile time)";
    return choice;
  }
  const ElementType type = program.find_tensor(operand_source(mm, 'A'))->type;
  // The tensors as stored: A(m, k) or A(k, m), B(k, n) or B(n, k); rows of the second extent.
  // An operand with a prologue: its source as stored (the prologue applies in shared memory).
  const auto tma_refusal_of = [&](const MatmulStage& each, char operand) -> std::string {
    const bool is_a = operand == 'A';
    const std::string& name = operand_source(each, operand);
    const std::int64_t mn = is_a ? m.value : n.value;
    // k contiguous: A(m, k) or B(n, k), rows along m or n; else rows along k
    const bool k_contiguous = is_a == ((is_a ? each.a_layout : each.b_layout) == OperandLayout::row_major);
    return tma_refusal(name, type, k_contiguous ? mn : k.value, k_contiguous ? k.value : mn, operand_batches(program, name));
  };
  // An operand with a prologue is transformed by the producer's threads: in shared memory where
  // TMA loads its source and the other operand (one kind of thread work per producer), else on
  // its way there as they copy it.
  const auto refusal_of = [&](const MatmulStage& each, char operand) -> std::string {
    if (!(operand == 'A' ? each.a_prologue : each.b_prologue)) return tma_refusal_of(each, operand);
    const std::string why = tma_refusal_of(each, operand);
    return std::string(1, operand) + " has a prologue" + (why.empty() ? "" : " and " + why);
  };
  std::string a_refusal = refusal_of(mm, 'A'), b_refusal = refusal_of(mm, 'B');
  // FP8 and f32 operands come by TMA only: the threads' copy and a prologue's transform move
  // 16-bit elements.
  const bool tma_only = is_fp8(type) || type == ElementType::f32;
  if (!tma_only && plan.matmuls.size() == 1 && mm.a_prologue && tma_refusal_of(mm, 'A').empty() && b_refusal.empty())
    a_refusal.clear();
  if (!tma_only && plan.matmuls.size() == 1 && mm.b_prologue && tma_refusal_of(mm, 'B').empty() && a_refusal.empty())
    b_refusal.clear();
  // Several matmuls in one k-loop: every operand by TMA (the producer's copying threads serve one).
  if (plan.matmuls.size() > 1)
    for (const MatmulStage& each : plan.matmuls)
      for (const std::string& why : {refusal_of(each, 'A'), refusal_of(each, 'B')})
        if (!why.empty()) {
          choice.fallback_reason = "several matmuls load every operand by TMA; " + why;
          return choice;
        }
  if ((!a_refusal.empty() || !b_refusal.empty()) && tma_only) {
    choice.fallback_reason = a_refusal.empty() ? b_refusal : b_refusal.empty() ? a_refusal : a_refusal + "; " + b_refusal;
    return choice;
  }
  if (!a_refusal.empty() && !b_refusal.empty()) {
    choice.fallback_reason = a_refusal + "; " + b_refusal;
    return choice;
  }
  choice.loop = MainLoop::tma_wgmma;
  choice.chained = chained;
  if (!a_refusal.empty()) choice.a_copy = OperandCopy::threads;
  else if (mm.a_prologue) choice.a_copy = OperandCopy::tma_prologue;
  if (!b_refusal.empty()) choice.b_copy = OperandCopy::threads;
  else if (mm.b_prologue) choice.b_copy = OperandCopy::tma_prologue;
  choice.thread_copy_reason = a_refusal + b_refusal;
  return choice;
}

std::string main_loop_comment(const MainLoopChoice& choice, Arch arch) {
  if (!has_wgmma(arch)) return "";
  if (choice.loop == MainLoop::tma_wgmma && choice.any_prologue_in_place())
    return fmt::format("// Main loop: TMA + wgmma (PTX ISA 9.7.15, 9.7.9.25); {}'s prologue applied where TMA loaded it.\n",
                       choice.a_copy == OperandCopy::tma_prologue ? "A" : "B");
  if (choice.loop == MainLoop::tma_wgmma && !choice.any_thread_copy())
    return "// Main loop: TMA + wgmma (PTX ISA 9.7.15, 9.7.9.25).\n";
  if (choice.loop == MainLoop::tma_wgmma)
    return fmt::format("// Main loop: TMA + wgmma (PTX ISA 9.7.15, 9.7.9.25); {} copied by threads ({}).\n",
                       choice.a_copy == OperandCopy::threads ? "A" : "B", choice.thread_copy_reason);
  return fmt::format("// Main loop: mma.sync, the sm_80 path ({}).\n", choice.fallback_reason);
}

}  // namespace polyfuse
