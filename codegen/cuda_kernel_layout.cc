#include "codegen/cuda_kernel_layout.h"

#include "codegen/fragment_pipeline.h"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "codegen/cuda_expressions.h"
#include "codegen/packed_prologue.h"
#include "schedule/copies.h"
#include "frontend/diagnostics.h"

namespace polyfuse {

std::string as_read_back(const Program& program, const Statement& statement, const std::string& value) {
  const Tensor* tensor = program.find_tensor(statement.write.tensor);
  PF_INTERNAL_CHECK(tensor != nullptr, "unknown tensor " + statement.write.tensor);
  if (tensor->type == ElementType::f32) return value;
  bool after = false, read_after = false;
  for (const Statement& s : program.statements) {
    if (after)  // (an update `T += ..` reads T too)
      read_after |= s.write.tensor == tensor->name ||
                    std::any_of(s.reads.begin(), s.reads.end(), [&](const Access& a) { return a.tensor == tensor->name; });
    after |= &s == &statement || s.id == statement.id;
  }
  if (!read_after) return value;
  return fmt::format("pf::to_float(pf::from_float<{}>({}))", cuda_type(tensor->type), value);
}

std::string cuda_type(ElementType type) {
  switch (type) {
    case ElementType::f16: return "__half";
    case ElementType::bf16: return "__nv_bfloat16";
    case ElementType::f32: return "float";
    case ElementType::i32: return "int";
    case ElementType::i64: return "long long";
    case ElementType::u8: return "unsigned char";
    case ElementType::e4m3: return "__nv_fp8_e4m3";  // cuda_fp8.h (FP8 reaches kernels as TMA maps only)
    case ElementType::e5m2: return "__nv_fp8_e5m2";
  }
  return "float";
}

const MatmulTiles& CudaKernelLayout::tiles_of(const KernelPlan& plan, const std::string& statement) const {
  for (size_t i = 0; i < plan.matmuls.size(); ++i)
    if (plan.matmuls[i].dims.statement == statement) return matmuls[i];
  PF_INTERNAL_CHECK(false, "no matmul statement " + statement);
}

std::string CudaKernelLayout::b_fragments(const KernelPlan& plan, const MatmulStage& mm) const {
  if (!fragment_pipeline || plan.group_of(mm.dims.statement).members.size() < 2) return "b_frag";
  return "b_frag_" + mm.c;
}

const StagedVector* CudaKernelLayout::staged_vector(const std::string& tensor, bool along_n) const {
  for (const StagedVector& v : staged_vectors)
    if (v.tensor == tensor && v.along_n == along_n) return &v;
  return nullptr;
}

std::string CudaKernelLayout::accumulator_type() const {
  const char* tile = mma == MmaShape::m16n8k16 ? "AccTile16816" : "AccTile884";
  return fmt::format("pf::{}<{}, {}>", tile, fragments_m, fragments_n);
}

std::string CudaKernelLayout::fragment_tile_type() const {
  return mma == MmaShape::m16n8k16 ? "pf::AccTile16816<1, 1>" : "pf::AccTile884<1, 1>";
}

std::string CudaKernelLayout::a_fragment_type() const {
  if (f32_operands) return "pf::FragA16x16F32";
  return mma == MmaShape::m16n8k16 ? "pf::FragA16x16" : "pf::FragA884";
}
std::string CudaKernelLayout::b_fragment_type() const {
  if (f32_operands) return "pf::FragB16x8F32";
  return mma == MmaShape::m16n8k16 ? "pf::FragB16x8" : "pf::FragB884";
}

std::string prologue_operand_value(const PrologueOperand& operand) {
  return fmt::format("{}_{}", operand.tensor, fmt::join(operand.indices, "_"));
}

std::string operand_staging_name(const SharedTile& tile, const PrologueOperand& operand) {
  return tile.tensor + "_" + prologue_operand_value(operand) + "_staging";
}

static SharedTile operand_tile(const std::string& tensor, const std::optional<OperandPrologue>& prologue,
                               OperandLayout layout, int outer, int inner_k, bool k_is_row_dim, int element_bytes) {
  SharedTile tile;
  tile.tensor = tensor;
  tile.source = prologue ? prologue->source : tensor;
  if (prologue) {
    // x is the element, the operands' values are named after their reads (scale_k for scale(k))
    std::vector<std::string> names = {"x"};
    std::vector<std::string> parameters = {"float x"};
    for (const PrologueOperand& operand : prologue->operands) {
      names.push_back(prologue_operand_value(operand));
      parameters.push_back("float " + names.back());
    }
    tile.prologue = fmt::format("[]({}) {{ return {}; }}", fmt::join(parameters, ", "),
                                c_expression(prologue->expr, [&](int read) { return names.at(static_cast<std::size_t>(read)); }));
    tile.operands = prologue->operands;
  }
  tile.layout = layout;
  tile.rows = k_is_row_dim ? inner_k : outer;
  tile.cols = k_is_row_dim ? outer : inner_k;
  tile.element_bytes = element_bytes;
  tile.bytes = tile.rows * tile.cols * element_bytes;
  return tile;
}

// The chunks of 16 bytes of `tile` each of `threads` threads copies.
static int chunks_per_thread(const SharedTile& tile, int threads) {
  return (tile.bytes / 16 + threads - 1) / threads;
}

// The register model of `layout` (codegen/register_model.h): its tiles, fragments and copies.
static RegisterModel model_registers(const KernelPlan& plan, const GpuOptions& o, const CudaKernelLayout& layout,
                                     const EpilogueReads& epilogue_reads) {
  RegisterModel model;
  const int per_tile = layout.fragments_m * layout.fragments_n * layout.values_per_fragment;
  // fragments of one k-slice: A (16x16) and B (16x8) of m16n8k16, in 32-bit registers
  int a_fragment = 4, b_fragment = 2;
  if (layout.f32_operands) {
    a_fragment = 8;
    b_fragment = 4;
  } else if (layout.mma != MmaShape::m16n8k16) {
    b_fragment = 4;
  }
  const int slices = o.warp.k / mma_tile(o.mma).k;
  model.fragment_sets = std::min(layout.f32_operands ? 1 : layout.mma == MmaShape::m16n8k16 ? 2 : 3, slices);
  int every_loop_addresses = 0;  // of every k-loop's copies
  for (const MatmulGroup& group : plan.matmul_groups()) {
    const MatmulTiles& tiles = layout.tiles_of(plan, group.leader().dims.statement);
    const int members = static_cast<int>(group.members.size());
    // 3xTF32 keeps each B fragment's small part too: the MMAs walk the rows of the warp tile
    // with the B fragments reused (pf_mma_tf32.cuh)
    const int b_registers = b_fragment + (layout.f32_operands && o.f32_matmul == F32Matmul::x3tf32 ? b_fragment : 0);
    model.fragments = std::max(model.fragments, a_fragment * layout.fragments_m + members * b_registers * layout.fragments_n);
    // the group's copies: its A tile and each member's B tile
    int chunks = chunks_per_thread(tiles.a, layout.threads);
    int staging = 0;
    for (const MatmulStage* member : group.members) {
      const MatmulTiles& t = layout.tiles_of(plan, member->dims.statement);
      chunks += chunks_per_thread(t.b, layout.threads);
      for (const SharedTile* tile : {&t.a, &t.b}) {
        if (tile->prologue.empty() || (tile == &t.a && member != group.members.front())) continue;
        // the tile's staging registers (landed: the chunks the map reads back from shared
        // memory, its loop unrolled) and one per prologue operand (4 per chunk), an address and
        // strides per operand
        const int operands = static_cast<int>(tile->operands.size());
        staging += (1 + operands) * chunks_per_thread(*tile, layout.threads) * 4 + 8 * operands;
      }
    }
    model.copy_addresses = std::max(model.copy_addresses, 2 * chunks);
    every_loop_addresses += 2 * chunks;
    model.staging = std::max(model.staging, staging);
  }
  for (const MatmulStage& mm : plan.matmuls) {  // one tile for matmuls that add into another's
    if (mm.accumulates_into.empty()) model.accumulators += per_tile;
    // ptxas keeps the continuing k-loop's copy addresses live through the first one's
    else model.copy_addresses = every_loop_addresses;
  }
  const auto cut = [](const Size& extent, int tile) { return extent.is_symbolic() || extent.value % tile != 0; };
  for (const MatmulStage& mm : plan.matmuls)
    if (cut(mm.dims.m_extent, o.block.m) || cut(mm.dims.n_extent, o.block.n) ||
        (mm.dims.k_extent && cut(*mm.dims.k_extent, o.block.k)))
      model.edge = 16;
  model.tiles = static_cast<int>(layout.registers.declared.size()) * per_tile;
  // the epilogue's reads of tensors no register tile holds: a fragment's values and an address
  for (const std::vector<std::string>& reads : epilogue_reads.by_statement)
    for (const std::string& tensor : reads)
      if (!layout.registers.storage.count(tensor)) model.epilogue_operands += layout.values_per_fragment + 2;
  // software-pipelined fragments where the loop's shape allows them and they fit
  model.pipelined = model.fragment_sets == 2 && fragment_pipeline_refusal(plan, o, layout).empty();
  if (model.pipelined && model.total() > register_limit(o.arch, layout.threads)) model.pipelined = false;
  // under a tighter limit ptxas loads each k-slice's ldmatrix fragments just before its MMAs
  // (not the m8n8k4 macro-MMAs': their 64x64 warp tile with an epilogue spills)
  if (o.mma == MmaShape::m16n8k16 && model.total() > register_limit(o.arch, layout.threads)) model.fragment_sets = 1;
  return model;
}

CudaKernelLayout cuda_kernel_layout(const KernelPlan& plan, const GpuOptions& o, const EpilogueReads& epilogue_reads) {
  CudaKernelLayout layout;
  layout.warps_y = o.block.m / o.warp.m;
  layout.warps_x = o.block.n / o.warp.n;
  layout.split_k = o.split_k;
  layout.threads = 32 * layout.warps_y * layout.warps_x * layout.split_k;
  TileShape fragment = accumulator_fragment(o.mma);
  layout.mma = o.mma;
  layout.f32_operands = !plan.matmuls.empty() && plan.matmuls.front().operand_type == ElementType::f32;
  layout.fragments_m = o.warp.m / fragment.m;
  layout.fragments_n = o.warp.n / fragment.n;
  layout.values_per_fragment = fragment.m * fragment.n / 32;
  int tiles = 0;
  int group_bytes = 0;  // one stage of the current k-loop's tiles
  for (const MatmulStage& mm : plan.matmuls) {
    // A row-major is A(m, k): rows m, columns k; column-major A(k, m). B row-major is
    // B(k, n): rows k; column-major B(n, k).
    MatmulTiles t;
    // each tile in its operand's type: a 16-bit one beside f32 stays 16-bit (widened as it loads)
    t.a = operand_tile(mm.a, mm.a_prologue, mm.a_layout, o.block.m, o.block.k, mm.a_layout == OperandLayout::col_major,
                       size_in_bytes(mm.a_type));
    t.b = operand_tile(mm.b, mm.b_prologue, mm.b_layout, o.block.n, o.block.k, mm.b_layout == OperandLayout::row_major,
                       size_in_bytes(mm.b_type));
    const LandedPrologue landed = landed_prologue(plan.group_of(mm.dims.statement));
    for (SharedTile* tile : {&t.a, &t.b}) {
      const bool is_a = tile == &t.a;
      tile->landed = landed == (is_a ? LandedPrologue::a : LandedPrologue::b);
      if (tile->landed) tile->packed_prologue = packed_prologue(*(is_a ? mm.a_prologue : mm.b_prologue), mm.operand_type).value_or("");
    }
    // A k-loop's stages: its A tiles, then each member's B tiles.
    if (mm.shares_a_with_previous) {
      t.a = layout.matmuls.back().a;
    } else {
      t.a.offset = 0;
      group_bytes = t.a.bytes;
    }
    t.b.offset = o.stages * group_bytes;
    group_bytes += t.b.bytes;
    tiles = std::max(tiles, o.stages * group_bytes);
    layout.matmuls.push_back(t);
  }
  layout.registers = plan_register_tiles(plan, epilogue_reads);
  layout.has_epilogue = !plan.epilogue.empty();
  layout.register_model = model_registers(plan, o, layout, epilogue_reads);
  const FragmentPipelineChoice pipeline = choose_fragment_pipeline(plan, o, layout);
  layout.fragment_pipeline = pipeline.on;
  layout.fragment_pipeline_why = pipeline.why;
  int scratch = (layout.threads / 32) * 1024;  // 1 KiB per warp (pf::store_accumulators)
  if (plan.matmul_groups().size() == 1) {
    layout.scratch_offset = 0;  // after the last k-step's release barrier the tiles are free
    layout.shared_bytes = std::max(tiles, scratch);
  } else {
    // A later k-loop's copies may start while warps still store an earlier result.
    layout.scratch_offset = tiles;
    layout.shared_bytes = tiles + scratch;
  }
  return layout;
}

}  // namespace polyfuse
