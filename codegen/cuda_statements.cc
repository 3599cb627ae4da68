#include "codegen/cuda_statements.h"

#include <fmt/format.h>

#include "codegen/cuda_kernel_layout.h"
#include "frontend/diagnostics.h"
#include "schedule/copies.h"
#include "schedule/plan_from_program.h"

namespace polyfuse {
namespace {

// `text` in parentheses unless it is a plain name or number.
std::string grouped(const std::string& text) {
  for (char c : text)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.')) return "(" + text + ")";
  return text;
}

// Extents of `tensor`'s dimensions as C expressions (bound values or size names).
std::vector<std::string> extents(const Program& program, const std::string& tensor) {
  const Tensor* t = program.find_tensor(tensor);
  PF_INTERNAL_CHECK(t != nullptr, "unknown tensor " + tensor);
  std::vector<std::string> result;
  for (const Size& size : t->dims) result.push_back(extent_text(program, size));
  return result;
}

// Row-major element offset of `origin` in a tensor with `extents`, in 64-bit arithmetic.
std::string element_offset(const std::vector<std::string>& origin, const std::vector<std::string>& extents) {
  std::string offset;  // Horner form, terms with a zero index left out
  for (size_t i = 0; i < origin.size(); ++i) {
    if (!offset.empty()) offset = (offset.find(" + ") != std::string::npos ? "(" + offset + ")" : offset) + " * " + extents[i];
    if (origin[i] == "0") continue;
    if (offset.empty()) offset = "(long long)" + grouped(origin[i]);
    else offset += " + " + grouped(origin[i]);
  }
  return offset.empty() ? "0" : offset;
}

// `extent - origin`: the valid rows or columns from `origin` on.
std::string remaining(const std::string& extent, const std::string& origin) {
  return origin == "0" ? extent : extent + " - " + grouped(origin);
}

// `pointer + offset`, or the pointer alone for a zero offset.
std::string address(const std::string& pointer, const std::string& offset) {
  return offset == "0" ? pointer : pointer + " + " + offset;
}

std::string swizzle() { return "pf::Swizzle::xor16"; }
std::string layout_name(OperandLayout layout) { return layout == OperandLayout::row_major ? "pf::Layout::row" : "pf::Layout::col"; }

std::string buffer_address(const SharedTile& tile, const std::string& buffer) {
  std::string base = tile.offset ? fmt::format("smem + {}", tile.offset) : "smem";
  if (buffer == "0") return base;
  return fmt::format("{} + {} * {}", base, grouped(buffer), tile.bytes);
}

// A or B block tile: global -> shared with cp.async; args = (buffer, origin...).
std::string copy_to_shared(const CudaStatementContext& c, const SharedTile& tile, const std::vector<std::string>& args,
                           bool commit) {
  std::vector<std::string> origin(args.begin() + 1, args.end());
  std::vector<std::string> ext = extents(c.program, tile.tensor);
  size_t r = origin.size();
  std::string text = fmt::format("pf::cp_async_tile<{}, {}, {}, {}>({}, {}, {}, {}, {}, threadIdx.x);", swizzle(),
                                 tile.rows, tile.cols, c.layout.threads, buffer_address(tile, args[0]),
                                 address(tile.tensor, element_offset(origin, ext)), ext[r - 1],
                                 remaining(ext[r - 2], origin[r - 2]), remaining(ext[r - 1], origin[r - 1]));
  if (commit) text += "\npf::cp_async_commit();";
  return text;
}

// Fragments of one k-slice from a shared tile; args = (buffer, row, column) relative to
// the tile in the tensor's index order.
std::string load_fragments(const CudaStatementContext& c, const SharedTile& tile, bool is_a, const std::vector<std::string>& args) {
  const std::string& row = args[1];
  const std::string& col = args[2];
  std::string tile_address = buffer_address(tile, args[0]);
  if (is_a) {  // load_frag_a(a, tile, m0, k0)
    bool row_major = tile.layout == OperandLayout::row_major;
    return fmt::format("pf::load_frag_a<{}, {}, {}, {}>(a_frag, {}, {}, {});", layout_name(tile.layout), swizzle(),
                       tile.cols, c.layout.fragments_m, tile_address, row_major ? row : col, row_major ? col : row);
  }
  bool row_major = tile.layout == OperandLayout::row_major;  // load_frag_b(b, tile, k0, n0)
  return fmt::format("pf::load_frag_b<{}, {}, {}, {}>(b_frag, {}, {}, {});", layout_name(tile.layout), swizzle(),
                     tile.cols, c.layout.fragments_n, tile_address, row_major ? row : col, row_major ? col : row);
}

std::string wait_for_copies(const std::vector<std::string>& args) {
  const std::string& pending = args[1];
  std::string wait = pending == "0"   ? "pf::cp_async_wait<0>();"
                     : pending == "1" ? "pf::cp_async_wait<1>();"
                                      : fmt::format("if ({}) pf::cp_async_wait<1>(); else pf::cp_async_wait<0>();", pending);
  return wait + "\n__syncthreads();";
}

// The warp's accumulator tile origin inside C, from the block tile origin args.
struct WarpOrigin {
  std::vector<std::string> origin;  // full index of the warp tile's first element
  std::string row, col;             // its row and column
};

WarpOrigin warp_origin(const CudaStatementContext& c, const std::vector<std::string>& block_origin) {
  WarpOrigin w;
  w.origin = block_origin;
  size_t r = w.origin.size();
  w.row = fmt::format("{} + {} * warp_y", block_origin[r - 2], c.options.warp.m);
  w.col = fmt::format("{} + {} * warp_x", block_origin[r - 1], c.options.warp.n);
  w.origin[r - 2] = w.row;
  w.origin[r - 1] = w.col;
  return w;
}

std::string store_accumulators(const CudaStatementContext& c, const MatmulStage& mm, const std::vector<std::string>& args) {
  std::vector<std::string> ext = extents(c.program, mm.c);
  WarpOrigin w = warp_origin(c, args);
  size_t r = args.size();
  const Tensor* tensor = c.program.find_tensor(mm.c);
  std::string split = c.layout.split_k > 1 ? "warp_k" : "0";
  std::string scratch = c.layout.scratch_offset ? fmt::format("smem + {}", c.layout.scratch_offset) : "smem";
  return fmt::format("pf::store_accumulators<{}>(acc, {}, {}, {}, {}, {}, {}, {}, warp_y * {} + warp_x, {});",
                     cuda_type(tensor->type), scratch, address(mm.c, element_offset(w.origin, ext)), ext[r - 1],
                     remaining(ext[r - 2], w.row), remaining(ext[r - 1], w.col), c.layout.split_k, split,
                     c.layout.warps_x, c.layout.warps_y * c.layout.warps_x);
}

std::string load_accumulators(const CudaStatementContext& c, const MatmulStage& mm, const std::vector<std::string>& args) {
  std::vector<std::string> ext = extents(c.program, mm.c);
  WarpOrigin w = warp_origin(c, args);
  size_t r = args.size();
  std::string load = fmt::format("pf::load_matrix(acc, {}, {}, {}, {});", address(mm.c, element_offset(w.origin, ext)),
                                 ext[r - 1], remaining(ext[r - 2], w.row), remaining(ext[r - 1], w.col));
  // Under split-K only the first k-split starts from C; the others add to it.
  return c.layout.split_k > 1 ? "if (warp_k == 0) " + load : load;
}

}  // namespace

StatementRewrites cuda_statement_rewrites(const KernelPlan& plan, const GpuOptions& o) {
  StatementRewrites rewrites;
  TileShape mma = mma_tile(o.mma);
  for (const MatmulStage& mm : plan.matmuls) {
    std::string text = fmt::format("{{ {} -> [(floor((({}) mod {})/{})), (floor((({}) mod {})/{}))] }}",
                                   mm.dims.tuple_text(), mm.dims.m, o.warp.m, mma.m, mm.dims.n, o.warp.n, mma.n);
    rewrites.emplace(mm.dims.statement, isl::multi_aff(plan.domain.ctx(), text));
  }
  return rewrites;
}

std::string print_cuda_statement(const CudaStatementContext& c, const std::string& name, const std::vector<std::string>& args) {
  for (const MatmulStage& mm : c.plan.matmuls) {
    const std::string& s = mm.dims.statement;
    const Tensor* a = c.program.find_tensor(mm.a);
    if (name == s)
      return fmt::format("pf::mma_fragment<{}>(acc, {}, {}, a_frag[{}], b_frag[{}]);", cuda_type(a->type), args[0],
                         args[1], args[0], args[1]);
    if (name == copy_statement_name(s, "A_to_shared")) return copy_to_shared(c, c.layout.a, args, false);
    if (name == copy_statement_name(s, "B_to_shared")) return copy_to_shared(c, c.layout.b, args, true);
    if (name == copy_statement_name(s, "wait_shared")) return wait_for_copies(args);
    if (name == copy_statement_name(s, "release_shared")) return "__syncthreads();";
    if (name == copy_statement_name(s, "A_to_fragments")) return load_fragments(c, c.layout.a, true, args);
    if (name == copy_statement_name(s, "B_to_fragments")) return load_fragments(c, c.layout.b, false, args);
    if (name == copy_statement_name(s, "accumulators_to_C")) return store_accumulators(c, mm, args);
    if (name == copy_statement_name(s, "C_to_accumulators")) return load_accumulators(c, mm, args);
  }
  PF_INTERNAL_CHECK(false, "no CUDA text for statement " + name);
}

}  // namespace polyfuse
