#include "codegen/cuda_kernel_layout.h"

#include <algorithm>

namespace polyfuse {

std::string cuda_type(ElementType type) {
  switch (type) {
    case ElementType::f16: return "__half";
    case ElementType::bf16: return "__nv_bfloat16";
    case ElementType::f32: return "float";
  }
  return "float";
}

static SharedTile operand_tile(const std::string& tensor, OperandLayout layout, int outer, int inner_k, bool k_is_row_dim) {
  SharedTile tile;
  tile.tensor = tensor;
  tile.layout = layout;
  tile.rows = k_is_row_dim ? inner_k : outer;
  tile.cols = k_is_row_dim ? outer : inner_k;
  tile.bytes = tile.rows * tile.cols * 2;
  return tile;
}

CudaKernelLayout cuda_kernel_layout(const KernelPlan& plan, const GpuOptions& o) {
  const MatmulStage& mm = plan.matmuls.front();
  CudaKernelLayout layout;
  layout.warps_y = o.block.m / o.warp.m;
  layout.warps_x = o.block.n / o.warp.n;
  layout.split_k = o.split_k;
  layout.threads = 32 * layout.warps_y * layout.warps_x * layout.split_k;
  TileShape mma = mma_tile(o.mma);
  layout.fragments_m = o.warp.m / mma.m;
  layout.fragments_n = o.warp.n / mma.n;
  // A row-major is A(m, k): rows m, columns k; column-major A(k, m). B row-major is
  // B(k, n): rows k; column-major B(n, k).
  layout.a = operand_tile(mm.a, mm.a_layout, o.block.m, o.block.k, mm.a_layout == OperandLayout::col_major);
  layout.b = operand_tile(mm.b, mm.b_layout, o.block.n, o.block.k, mm.b_layout == OperandLayout::row_major);
  layout.a.offset = 0;
  layout.b.offset = o.stages * layout.a.bytes;
  int tiles = o.stages * (layout.a.bytes + layout.b.bytes);
  int scratch = (layout.threads / 32) * 1024;  // 1 KiB per warp (pf::store_accumulators)
  layout.scratch_offset = 0;  // after the last k-step's release barrier the tiles are free
  layout.shared_bytes = std::max(tiles, scratch);
  return layout;
}

}  // namespace polyfuse
