#include "codegen/cuda_kernel_layout.h"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "codegen/cuda_expressions.h"
#include "frontend/diagnostics.h"

namespace polyfuse {

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

CudaKernelLayout cuda_kernel_layout(const KernelPlan& plan, const GpuOptions& o,
                                    const std::vector<std::vector<std::string>>& epilogue_reads) {
  CudaKernelLayout layout;
  layout.warps_y = o.block.m / o.warp.m;
  layout.warps_x = o.block.n / o.warp.n;
  layout.split_k = o.split_k;
  layout.threads = 32 * layout.warps_y * layout.warps_x * layout.split_k;
  TileShape fragment = accumulator_fragment(o.mma);
  layout.mma = o.mma;
  layout.f32_operands = !plan.matmuls.empty() && plan.matmuls.front().operand_type == ElementType::f32;
  const int element_bytes = layout.f32_operands ? 4 : 2;
  layout.fragments_m = o.warp.m / fragment.m;
  layout.fragments_n = o.warp.n / fragment.n;
  layout.values_per_fragment = fragment.m * fragment.n / 32;
  int tiles = 0;
  int group_bytes = 0;  // one stage of the current k-loop's tiles
  for (const MatmulStage& mm : plan.matmuls) {
    // A row-major is A(m, k): rows m, columns k; column-major A(k, m). B row-major is
    // B(k, n): rows k; column-major B(n, k).
    MatmulTiles t;
    t.a = operand_tile(mm.a, mm.a_prologue, mm.a_layout, o.block.m, o.block.k, mm.a_layout == OperandLayout::col_major,
                       element_bytes);
    t.b = operand_tile(mm.b, mm.b_prologue, mm.b_layout, o.block.n, o.block.k, mm.b_layout == OperandLayout::row_major,
                       element_bytes);
    for (const SharedTile* tile : {&t.a, &t.b})
      if (!tile->operands.empty() && !(tile == &t.a && mm.shares_a_with_previous)) {
        // the operand's staging tile and one per prologue operand (4 registers per 16-byte
        // chunk a thread holds), and an address and strides per operand
        const int chunks = (tile->rows * tile->cols / 8 + layout.threads - 1) / layout.threads;
        const int tiles = 1 + static_cast<int>(tile->operands.size());
        layout.operand_staging_registers += tiles * chunks * 4 + 8 * static_cast<int>(tile->operands.size());
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

int estimated_registers(const CudaKernelLayout& layout) {
  int per_tile = layout.fragments_m * layout.fragments_n * layout.values_per_fragment;
  // Fragments, addresses and indices of the main loop; an epilogue's operand loads and
  // addresses in its unrolled loops, or the m8n8k4 macro-MMAs' operand shuffling, need
  // about 100 more (measured with ptxas -v on sm_80 and sm_90: 64x64 warp tiles spill).
  int overhead = layout.has_epilogue || layout.mma != MmaShape::m16n8k16 ? 132 : 32;
  // f32 fragments hold one element per register: twice the 16-bit ones' 4 + 2 per fragment.
  if (layout.f32_operands) overhead += 4 * layout.fragments_m + 2 * layout.fragments_n;
  return static_cast<int>(layout.registers.declared.size()) * per_tile + overhead + layout.operand_staging_registers;
}

}  // namespace polyfuse
