#include "codegen/cuda_statements.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "codegen/cuda_addressing.h"
#include "codegen/cuda_epilogue.h"
#include "codegen/cuda_kernel_layout.h"
#include "codegen/mma_sync_loop.h"
#include "codegen/tile_bounds.h"
#include "frontend/diagnostics.h"
#include "schedule/copies.h"
#include "schedule/plan_from_program.h"

namespace polyfuse {
namespace {

std::string swizzle() { return "pf::Swizzle::xor16"; }
std::string layout_name(OperandLayout layout) { return layout == OperandLayout::row_major ? "pf::Layout::row" : "pf::Layout::col"; }

std::string buffer_address(const SharedTile& tile, const std::string& buffer) {
  std::string base = tile.offset ? fmt::format("smem + {}", tile.offset) : "smem";
  if (buffer == "0") return base;
  return fmt::format("{} + {} * {}", base, grouped(buffer), tile.bytes);
}

// The register tile that stages an operand with a prologue on its way to shared memory.
std::string staging_name(const SharedTile& tile) { return tile.tensor + "_staging"; }

// The elements of prologue operand `operand` beside the tile of `tile.source` at `origin`:
// its own indices taken from the source's, strides 0 along the tile dimensions it lacks.
std::string load_prologue_operand(const CudaStatementContext& c, const SharedTile& tile, const PrologueOperand& operand,
                                  const std::vector<std::string>& origin, const std::string& check,
                                  const std::string& rows_valid, const std::string& cols_valid) {
  std::vector<std::string> ext = tensor_extents(c.program, operand.tensor), at;
  const int row_dim = static_cast<int>(origin.size()) - 2, col_dim = row_dim + 1;
  std::vector<std::string> row_strides, col_strides;
  for (size_t j = 0; j < operand.source_dims.size(); ++j) {
    at.push_back(origin[static_cast<size_t>(operand.source_dims[j])]);
    std::vector<std::string> inner;
    for (size_t i = j + 1; i < ext.size(); ++i) inner.push_back(grouped(ext[i]));
    std::string stride = inner.empty() ? "1" : fmt::format("{}", fmt::join(inner, " * "));
    if (operand.source_dims[j] == row_dim) row_strides.push_back(stride);
    if (operand.source_dims[j] == col_dim) col_strides.push_back(stride);
  }
  auto sum = [](const std::vector<std::string>& terms) {
    return terms.empty() ? std::string("0") : fmt::format("{}", fmt::join(terms, " + "));
  };
  // With column stride 1 a chunk starts 8 elements into a row: the row stride, when it is a
  // number, says how wide its loads may be (a 16-byte aligned tensor, as every operand).
  std::string width = "pf::Width::by_address";
  if (sum(col_strides) == "1") {
    const std::string rows = sum(row_strides);
    if (rows.find_first_not_of("0123456789") == std::string::npos) width = width_of_stride(2 * std::stoll(rows));
  }
  return fmt::format("pf::load_tile_broadcast<{}, {}>({}, {}, {}, {}, {}, {}, threadIdx.x);\n", check, width,
                     operand_staging_name(tile, operand), address(operand.tensor, element_offset(at, ext)),
                     sum(row_strides), sum(col_strides), rows_valid, cols_valid);
}

// A or B block tile: global -> shared; args = (buffer, origin...). cp.async without a
// prologue; with one, global -> registers -> prologue -> swizzled shared store (§VII-C).
std::string copy_to_shared(const CudaStatementContext& c, const SharedTile& tile, const std::vector<std::string>& args) {
  std::vector<std::string> origin(args.begin() + 1, args.end() - 1);
  std::string check = check_argument(args.back());
  std::string width = row_width(c.program, tile.source);
  std::vector<std::string> ext = tensor_extents(c.program, tile.source);
  size_t r = origin.size();
  std::string src = address(tile.source, element_offset(origin, ext));
  std::string rows_valid = remaining(ext[r - 2], origin[r - 2]), cols_valid = remaining(ext[r - 1], origin[r - 1]);
  std::string text;
  if (tile.prologue.empty() || tile.landed) {  // a landed tile's prologue follows the ring's wait
    const char* f32 = tile.element_bytes == 4 ? "_f32" : "";
    text = fmt::format("pf::cp_async_tile{}<{}, {}, {}, {}, {}, {}>({}, {}, {}, {}, {}, threadIdx.x);", f32, swizzle(), tile.rows,
                       tile.cols, c.layout.threads, check, width, buffer_address(tile, args[0]), src, ext[r - 1],
                       rows_valid, cols_valid);
  } else {
    const Tensor* source = c.program.find_tensor(tile.source);
    text = fmt::format("pf::load_tile_global<{}, {}>({}, {}, {}, {}, {}, threadIdx.x);\n", check, width, staging_name(tile),
                       src, ext[r - 1], rows_valid, cols_valid);
    std::vector<std::string> types = {cuda_type(source->type), check}, operands;
    for (const PrologueOperand& operand : tile.operands) {
      text += load_prologue_operand(c, tile, operand, origin, check, rows_valid, cols_valid);
      types.push_back(cuda_type(c.program.find_tensor(operand.tensor)->type));
      operands.push_back(", " + operand_staging_name(tile, operand));
    }
    text += fmt::format("pf::map_tile_regs<{}>({}, {}, {}, {}, threadIdx.x{});\n", fmt::join(types, ", "),
                        staging_name(tile), tile.prologue, rows_valid, cols_valid, fmt::join(operands, ""));
    text += fmt::format("pf::store_tile_shared<{}>({}, {}, threadIdx.x);", swizzle(), buffer_address(tile, args[0]),
                        staging_name(tile));
  }
  return text;
}

// The A or B fragment array, or its set `set` of two ("" for none).
std::string fragments(const std::string& name, const std::string& set) { return set.empty() ? name : fmt::format("{}[{}]", name, set); }

// Fragments of one k-slice from a shared tile, into fragment set `set`; args = (buffer,
// batch..., row, column) relative to the tile in the tensor's index order (batch offsets are 0).
std::string load_fragments(const CudaStatementContext& c, const MatmulStage& mm, const SharedTile& tile, bool is_a,
                           const std::vector<std::string>& args, const std::string& set) {
  const std::string& row = args[args.size() - 2];
  const std::string& col = args[args.size() - 1];
  std::string tile_address = buffer_address(tile, args[0]);
  // TF32 fragments of a 16-bit tile (a matmul of mixed types) load widened: the element type first
  const bool widened = c.layout.f32_operands && tile.element_bytes == 2;
  const char* suffix = widened ? "_f32_widened" : c.layout.f32_operands ? "_f32" : c.layout.mma == MmaShape::m16n8k16 ? "" : "884";
  const std::string element = widened ? cuda_type(is_a ? mm.a_type : mm.b_type) + ", " : "";
  bool row_major = tile.layout == OperandLayout::row_major;
  if (is_a)  // load_frag_a(a, tile, m0, k0)
    return fmt::format("pf::load_frag_a{}<{}{}, {}, {}, {}>({}, {}, {}, {});", suffix, element, layout_name(tile.layout),
                       swizzle(), tile.cols, c.layout.fragments_m, fragments("a_frag", set), tile_address, row_major ? row : col,
                       row_major ? col : row);
  // load_frag_b(b, tile, k0, n0)
  return fmt::format("pf::load_frag_b{}<{}{}, {}, {}, {}>({}, {}, {}, {});", suffix, element, layout_name(tile.layout),
                     swizzle(), tile.cols, c.layout.fragments_n, fragments(c.layout.b_fragments(c.plan, mm), set),
                     tile_address, row_major ? row : col, row_major ? col : row);
}

// The tile of the k-loop of `mm` whose prologue runs once it landed, or nullptr.
const SharedTile* landed_tile(const CudaStatementContext& c, const MatmulStage& mm) {
  const MatmulTiles& tiles = c.layout.tiles_of(c.plan, mm.dims.statement);
  return tiles.a.landed ? &tiles.a : tiles.b.landed ? &tiles.b : nullptr;
}

// The prologue of `tile` applied in place to this thread's chunks of its landed stage;
// args = (buffer, pending, origin..., check) (copies.h: the wait of a landed prologue).
std::string map_landed_tile(const CudaStatementContext& c, const SharedTile& tile, const std::vector<std::string>& args) {
  std::vector<std::string> origin(args.begin() + 2, args.end() - 1);
  const std::string check = check_argument(args.back());
  std::vector<std::string> ext = tensor_extents(c.program, tile.source);
  const size_t r = origin.size();
  const std::string rows_valid = remaining(ext[r - 2], origin[r - 2]), cols_valid = remaining(ext[r - 1], origin[r - 1]);
  const std::string type = cuda_type(c.program.find_tensor(tile.source)->type);
  const bool packed = !tile.packed_prologue.empty();
  std::string loads;
  std::vector<std::string> types = {type}, operands;
  for (const PrologueOperand& operand : tile.operands) {
    loads += fmt::format("pf::TileRegs<{}, {}, {}> {};  // {}({}) beside this thread's chunks\n", tile.rows, tile.cols,
                         c.layout.threads, operand_staging_name(tile, operand), operand.tensor, fmt::join(operand.indices, ", "));
    loads += load_prologue_operand(c, tile, operand, origin, check, rows_valid, cols_valid);
    types.push_back(cuda_type(c.program.find_tensor(operand.tensor)->type));
    operands.push_back(", " + operand_staging_name(tile, operand));
  }
  std::vector<std::string> parameters = {swizzle(), std::to_string(tile.rows), std::to_string(tile.cols),
                                         std::to_string(c.layout.threads), check, packed ? "true" : "false"};
  parameters.insert(parameters.begin(), type);
  for (size_t i = 1; i < types.size(); ++i) parameters.push_back(types[i]);
  const std::string map =
      fmt::format("pf::map_tile_shared<{}>({}, {}, {}, {}, threadIdx.x{});", fmt::join(parameters, ", "),
                  buffer_address(tile, args[0]), packed ? tile.packed_prologue : tile.prologue, rows_valid, cols_valid,
                  fmt::join(operands, ""));
  if (loads.empty()) return map;
  return "{\n" + indented(loads + map, 2) + "}";
}

// args = (buffer, pending[, origin..., check]): wait until at most `pending` (a constant) copy
// groups are in flight; with a landed prologue (args carry its tile's origin) each thread maps
// its own chunks of the stage, under `guard` ("" for none: the stage's k-step exists), after a
// barrier when `after_loop` (warps may still read the stage: print_ring_wait); then a block
// barrier.
std::string wait_for_copies(const CudaStatementContext& c, const MatmulStage& mm, const std::vector<std::string>& args,
                            const std::string& guard, bool after_loop) {
  const std::string& pending = args[1];
  PF_INTERNAL_CHECK(!pending.empty() && pending.find_first_not_of("0123456789") == std::string::npos,
                    "wait_shared with a pending count that is not a constant: " + pending);
  std::string text = fmt::format("pf::cp_async_wait<{}>();\n", pending);
  if (const SharedTile* tile = landed_tile(c, mm)) {
    PF_INTERNAL_CHECK(args.size() > 3, "the wait of a landed prologue without its tile's origin");
    if (after_loop)
      text += "// the loop above loaded fragments of this stage past its last k-step (unused): every warp is done "
              "before it is mapped\n__syncthreads();\n";
    text += fmt::format("// this thread's chunks of the landed {} tile: the prologue in place, published by the barrier\n",
                        tile->tensor);
    const std::string map = map_landed_tile(c, *tile, args);
    text += guard.empty() ? map + "\n" : fmt::format("if ({}) {}\n", guard, map);
  }
  return text + "__syncthreads();";
}

std::string store_accumulators(const CudaStatementContext& c, const MatmulStage& mm, const std::vector<std::string>& args) {
  return print_tile_store(c, c.layout.registers.of(mm.c), mm.c, args);
}

// args = (block origin..., check)
std::string load_accumulators(const CudaStatementContext& c, const MatmulStage& mm, const std::vector<std::string>& args) {
  std::vector<std::string> ext = tensor_extents(c.program, mm.c);
  std::vector<std::string> origin = warp_tile_origin(c, std::vector<std::string>(args.begin(), args.end() - 1));
  size_t r = origin.size();
  std::string load = fmt::format("pf::load_matrix<{}, {}>({}, {}, {}, {}, {});", check_argument(args.back()),
                                 row_width(c.program, mm.c), c.layout.registers.of(mm.c), address(mm.c, element_offset(origin, ext)),
                                 ext[r - 1], remaining(ext[r - 2], origin[r - 2]), remaining(ext[r - 1], origin[r - 1]));
  // Under split-K only the first k-split starts from C; the others start from zero (their
  // tiles are not zero-filled at the kernel's start for a matmul that adds to C: without the
  // fill they summed whatever the registers held, found by scripts/random-programs) and are
  // added to it.
  return c.layout.split_k > 1
             ? fmt::format("if (warp_k == 0) {} else pf::tile::fill({}, 0.f);", load, c.layout.registers.of(mm.c))
             : load;
}

// The k-splits' accumulators added into split 0's, before the epilogue (all warps call).
std::string reduce_split_k(const CudaStatementContext& c, const MatmulStage& mm) {
  return fmt::format("pf::reduce_split_k({}, {}, {}, warp_k, warp_y * {} + warp_x, {});", c.layout.registers.of(mm.c),
                     scratch_address(c), c.layout.split_k, c.layout.warps_x, c.layout.warps_y * c.layout.warps_x);
}

// One instance of the contracted matmul on accumulator fragment (args[0], args[1]).
std::string print_macro_mma(const CudaStatementContext& c, const MatmulStage& mm, const std::string& type,
                            const std::vector<std::string>& args, const std::string& set) {
  const std::string& acc = c.layout.registers.of(mm.c);
  const std::string& i = args[0];
  const std::string& j = args[1];
  const std::string a_frag = fragments("a_frag", set), b_frag = fragments(c.layout.b_fragments(c.plan, mm), set);
  std::string layouts = layout_name(mm.a_layout) + ", " + layout_name(mm.b_layout);
  if (c.layout.f32_operands) {
    const char* mode = c.options.f32_matmul == F32Matmul::x3tf32 ? "pf::F32Mma::x3tf32" : "pf::F32Mma::tf32";
    return fmt::format("pf::mma_fragment_f32<{}>({}, {}, {}, {}[{}], {}[{}]);", mode, acc, i, j, a_frag, i, b_frag, j);
  }
  switch (c.options.mma) {
    case MmaShape::m16n8k16:
      return fmt::format("pf::mma_fragment<{}>({}, {}, {}, {}[{}], {}[{}]);", type, acc, i, j, a_frag, i, b_frag, j);
    case MmaShape::m16n16k8:
      return fmt::format("pf::mma_fragment_884<{}>({}, {}, {}, {}[{}], {}[{}]);", layouts, acc, i, j, a_frag, i, b_frag, j);
    case MmaShape::m32n32k8:
      return fmt::format("pf::mma_macro_32x32x8<{}>({}, {}, {}, {}, {});", layouts, acc, i, j, a_frag, b_frag);
  }
  PF_INTERNAL_CHECK(false, "unknown macro-MMA shape");
}

}  // namespace

std::string print_ring_wait(const CudaStatementContext& c, const std::string& name, const std::vector<std::string>& args,
                            const std::string& guard, bool after_loop) {
  for (const MatmulStage& mm : c.plan.matmuls)
    if (name == copy_statement_name(mm.dims.statement, "wait_shared")) return wait_for_copies(c, mm, args, guard, after_loop);
  PF_INTERNAL_CHECK(false, "no ring wait " + name);
}

StatementRewrites cuda_statement_rewrites(const KernelPlan& plan, const GpuOptions& o) {
  StatementRewrites rewrites;
  TileShape mma = mma_tile(o.mma);
  for (const MatmulStage& mm : plan.matmuls) {
    std::string text = fmt::format("{{ {} -> [(floor((({}) mod {})/{})), (floor((({}) mod {})/{}))] }}",
                                   mm.dims.tuple_text(), mm.dims.m, o.warp.m, mma.m, mm.dims.n, o.warp.n, mma.n);
    rewrites.arguments.emplace(mm.dims.statement, isl::multi_aff(plan.domain.ctx(), text));
  }
  // Epilogue instances: the fragment, then the global index of its first element.
  TileShape fragment = accumulator_fragment(o.mma);
  for (const PointwiseStage& pw : plan.epilogue) {
    std::vector<std::string> origin = pw.dims.batch;
    origin.push_back(pw.dims.m);
    origin.push_back(pw.dims.n);
    std::string text = fmt::format("{{ {} -> [(floor((({}) mod {})/{})), (floor((({}) mod {})/{})), {}] }}",
                                   pw.dims.tuple_text(), pw.dims.m, o.warp.m, fragment.m, pw.dims.n, o.warp.n, fragment.n,
                                   fmt::join(origin, ", "));
    rewrites.arguments.emplace(pw.dims.statement, isl::multi_aff(plan.domain.ctx(), text));
  }
  return rewrites;
}

void add_tile_bounds(StatementRewrites& rewrites, const Program& program, const KernelPlan& plan,
                     const CudaKernelLayout& layout, const GpuOptions& o) {
  std::string warp_rows = fmt::format("{}*warp_y", o.warp.m), warp_cols = fmt::format("{}*warp_x", o.warp.n);
  auto add = [&](const std::string& name, int leading, const std::string& tensor, int rows, int cols,
                 const std::string& row_offset, const std::string& col_offset) {
    rewrites.tile_bounds.emplace(name, tile_bounds(program, name, leading, tensor, rows, cols, row_offset, col_offset));
  };
  for (const MatmulStage& mm : plan.matmuls) {
    const std::string& s = mm.dims.statement;
    const MatmulTiles& tiles = layout.tiles_of(plan, s);
    add(copy_statement_name(s, "A_to_shared"), 1, tiles.a.source, tiles.a.rows, tiles.a.cols, "", "");
    add(copy_statement_name(s, "B_to_shared"), 1, tiles.b.source, tiles.b.rows, tiles.b.cols, "", "");
    for (const SharedTile* landed : {&tiles.a, &tiles.b})  // the wait maps it (buffer, pending, origin...)
      if (landed->landed) add(copy_statement_name(s, "wait_shared"), 2, landed->source, landed->rows, landed->cols, "", "");
    add(copy_statement_name(s, "accumulators_to_C"), 0, mm.c, o.warp.m, o.warp.n, warp_rows, warp_cols);
    add(copy_statement_name(s, "C_to_accumulators"), 0, mm.c, o.warp.m, o.warp.n, warp_rows, warp_cols);
  }
  TileShape fragment = accumulator_fragment(o.mma);
  for (const PointwiseStage& pw : plan.epilogue) {
    add(pw.dims.statement, 0, pw.output, fragment.m, fragment.n, "", "");
    add(copy_statement_name(pw.dims.statement, "fragments_to_" + pw.output), 0, pw.output, o.warp.m, o.warp.n, warp_rows,
        warp_cols);
  }
}

std::string print_cuda_statement(const CudaStatementContext& c, const std::string& name, const std::vector<std::string>& args,
                                 const std::string& fragment_set) {
  for (const MatmulStage& mm : c.plan.matmuls) {
    const std::string& s = mm.dims.statement;
    const Tensor* a = c.program.find_tensor(mm.a);
    const MatmulTiles& tiles = c.layout.tiles_of(c.plan, s);
    if (name == s) return print_macro_mma(c, mm, cuda_type(a->type), args, fragment_set);
    if (name == copy_statement_name(s, "A_to_shared")) return copy_to_shared(c, tiles.a, args);
    if (name == copy_statement_name(s, "B_to_shared")) return copy_to_shared(c, tiles.b, args);
    if (name == copy_statement_name(s, "commit_shared")) return "pf::cp_async_commit();";
    if (name == copy_statement_name(s, "wait_shared")) return wait_for_copies(c, mm, args, "", false);
    if (name == copy_statement_name(s, "release_shared") || name == copy_statement_name(s, "drain_shared"))
      return "__syncthreads();";
    if (name == copy_statement_name(s, "A_to_fragments")) return load_fragments(c, mm, tiles.a, true, args, fragment_set);
    if (name == copy_statement_name(s, "B_to_fragments")) return load_fragments(c, mm, tiles.b, false, args, fragment_set);
    if (name == copy_statement_name(s, "accumulators_to_C")) return store_accumulators(c, mm, args);
    if (name == copy_statement_name(s, "C_to_accumulators")) return load_accumulators(c, mm, args);
    if (name == copy_statement_name(s, "reduce_split_k")) return reduce_split_k(c, mm);
  }
  for (const PointwiseStage& pw : c.plan.epilogue) {
    if (name == pw.dims.statement) return print_epilogue_instance(c, pw, args);
    if (name == copy_statement_name(pw.dims.statement, "fragments_to_" + pw.output)) return print_epilogue_store(c, pw, args);
  }
  PF_INTERNAL_CHECK(false, "no CUDA text for statement " + name);
}

}  // namespace polyfuse
