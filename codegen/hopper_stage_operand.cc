#include "codegen/hopper_stage_operand.h"

#include <fmt/format.h>

#include "frontend/diagnostics.h"

namespace polyfuse {
namespace {

// The widest group of 16-bit elements (8, 4, 2 or 1) a row of `extent_inner` elements allows:
// rows start at multiples of its bytes (buffers are 256-byte aligned), groups never straddle a row.
int vector_elements(std::int64_t extent_inner) {
  int v = 8;
  while (extent_inner % v != 0) v /= 2;
  return v;
}

}  // namespace

// An operand of mn_extent x k_extent per block (the tile at mn0, k-block kb): with k contiguous
// in memory (A(m, k), B(n, k)) a K-major tile of `atoms` = k_extent / box_inner boxes of
// mn_extent rows, else an MN-major one of mn_extent / box_inner boxes of k_extent rows (A(k, m),
// B(k, n)); a box's row is 128 bytes, box_inner elements.
StageOperand stage_operand(const std::string& name, OperandCopy copy, int offset, bool k_contiguous, const char* mn0,
                           int mn_extent, int k_extent, int box_inner, std::int64_t mn_size, std::int64_t k_size) {
  const std::string k0 = fmt::format("kb * {}", k_extent);
  StageOperand o{name, copy, offset, mn0, k0, k_extent, mn_extent / box_inner, mn_size, k_size, "Major::mn",
                 /*prologue=*/"", /*batched=*/false, /*multicast=*/false, box_inner, /*gather=*/""};
  if (k_contiguous) {
    o.inner0 = k0;
    o.outer0 = mn0;
    o.rows = mn_extent;
    o.atoms = k_extent / box_inner;
    o.extent_inner = k_size;
    o.extent_outer = mn_size;
    o.major = "Major::k";
  }
  return o;
}

std::string stage_tma_load(const StageOperand& o, const std::string& stage, const std::string& barrier) {
  if (o.multicast) {
    // this block's half of the tile, multicast into both blocks of the cluster: half of its
    // boxes, or (a tile one box wide) half of its rows
    PF_INTERNAL_CHECK(!o.batched && (o.atoms == 1 || o.atoms % 2 == 0), "a multicast tile of one box or an even number");
    const bool by_rows = o.atoms == 1;
    const int atoms = by_rows ? 1 : o.atoms / 2, rows = by_rows ? o.rows / 2 : o.rows;
    return fmt::format("tma_load_tile_multicast({} + {} + rank * {}, {}_map, {}{}, {}{}, {}, {}, Swizzle::b128, {}, 0x3);\n",
                       stage, o.offset, atoms * rows * 128, o.name, o.inner0,
                       by_rows ? "" : fmt::format(" + rank * {}", atoms * o.box_inner), o.outer0,
                       by_rows ? fmt::format(" + rank * {}", rows) : "", rows, atoms, barrier);
  }
  return fmt::format("{}({}{}, {}_map, {}, {}, {}{}, {}, Swizzle::b128, {});\n",
                     o.batched ? "tma_load_batched_tile" : "tma_load_tile", stage, o.offset ? fmt::format(" + {}", o.offset) : "",
                     o.name, o.inner0, o.outer0, o.batched ? "batch, " : "", o.rows, o.atoms, barrier);
}

std::string stage_gather_async(const StageOperand& o, const std::string& stage) {
  PF_INTERNAL_CHECK(!o.gather.empty(), "a gathered operand");
  return fmt::format("cp_async_gather_tile<{}>({}{}, {}_rows, {}_tap, {}_at, {}, {}, threadIdx.x);\n", o.rows, stage,
                     o.offset ? fmt::format(" + {}", o.offset) : "", o.gather, o.gather, o.gather, o.inner0, o.gather);
}

std::string stage_transform(const StageOperand& o, const std::string& stage, const std::string& type,
                            const std::string& thread, int threads) {
  PF_INTERNAL_CHECK(!o.prologue.empty() && !o.multicast, "a prologue applied in place to its block's tile");
  return fmt::format("transform_tile<{}>({}{}, {}, {}, {}, {}, {}, {}, Swizzle::b128, {}, {}, prologue);\n", type, stage,
                     o.offset ? fmt::format(" + {}", o.offset) : "", o.extent_inner, o.extent_outer, o.inner0, o.outer0,
                     o.rows, o.atoms, thread, threads);
}

std::string stage_thread_load(const StageOperand& o, const std::string& stage) {
  PF_INTERNAL_CHECK(o.gather.empty(), "a gathered operand comes by cp.async (stage_gather_async)");
  const std::string source =
      o.batched ? fmt::format("{} + static_cast<long long>(batch) * {}", o.name, o.extent_inner * o.extent_outer) : o.name;
  return fmt::format("thread_load_tile<{}>({}{}, {}, {}, {}, {}, {}, {}, {}, Swizzle::b128, threadIdx.x, 128{});\n",
                     vector_elements(o.extent_inner), stage, o.offset ? fmt::format(" + {}", o.offset) : "", source,
                     o.extent_inner, o.extent_outer, o.inner0, o.outer0, o.rows, o.atoms,
                     o.prologue.empty() ? "" : ", prologue");
}

}  // namespace polyfuse
