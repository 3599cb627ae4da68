#include "codegen/back_to_back_kernel.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <functional>

#include "codegen/cuda_epilogue.h"
#include "codegen/cuda_epilogue_vectors.h"
#include "codegen/cuda_kernel_layout.h"
#include "codegen/tile_bounds.h"
#include "frontend/diagnostics.h"
#include "frontend/ir_printer.h"
#include "schedule/back_to_back.h"

namespace polyfuse {
namespace {

constexpr int threads = 256;      // 8 warps: 2 along the rows, 4 along the columns
constexpr int scratch_bytes = 8 * 1024;  // the accumulator store's reorder scratch, 1 KiB a warp

// One matmul of the kernel with its epilogue, as the statement printer sees it: the layout's
// accumulator tile renamed acc_<C>, so that the two halves' tiles have names of their own.
struct Half {
  const Program& program;
  const KernelPlan& plan;
  CudaKernelLayout layout;
  int fragments_n;  // accumulator fragments of a warp along the columns (two along the rows)
};

CudaKernelLayout half_layout(const Program& program, const KernelPlan& plan, const GpuOptions& o) {
  CudaKernelLayout layout = cuda_kernel_layout(plan, o, epilogue_reads(program, plan));
  const std::string acc = "acc_" + plan.matmuls[0].c;
  for (auto& entry : layout.registers.storage)
    if (entry.second == "acc") entry.second = acc;
  for (std::string& name : layout.registers.declared)
    if (name == "acc") name = acc;
  return layout;
}

// The pf::Check code ("0".."3") of tiles whose rows / columns may cross the tensor's end.
std::string check_code(bool rows, bool cols) { return std::to_string((rows ? 1 : 0) | (cols ? 2 : 0)); }

// "scale * step" for a k-step expression ("0" for step 0).
std::string scaled(int scale, const std::string& step) {
  if (step == "0") return "0";
  return step.find(' ') == std::string::npos ? fmt::format("{} * {}", scale, step) : fmt::format("{} * ({})", scale, step);
}

// `base + stage * bytes` of shared memory.
std::string stage_at(int base, const std::string& stage, int bytes) {
  if (stage == "0") return base ? fmt::format("smem + {}", base) : "smem";
  return base ? fmt::format("smem + {} + {} * {}", base, stage, bytes) : fmt::format("smem + {} * {}", stage, bytes);
}

// `text` with each line indented by `indent` spaces more.
std::string indented(const std::string& text, int indent) {
  std::string out, pad(indent, ' ');
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    out += (end > start ? pad : "") + text.substr(start, end - start) + "\n";
    start = end + 1;
  }
  return out;
}

using StepText = std::function<std::string(const std::string& step, const std::string& stage)>;
using StageText = std::function<std::string(const std::string& stage)>;

// A k-loop of `steps` k-steps through a ring of `stages` shared stages: `copies` are a k-step's
// cp.async copies into a stage, `compute` the warps' MMAs on a stage.
std::string k_loop(int steps, int stages, const StepText& copies, const StageText& compute) {
  std::string text;
  if (stages == 1) {
    text += "// one shared stage: copy, wait, one barrier, the MMAs, one barrier\n";
    text += fmt::format("#pragma unroll 1\nfor (int k_step = 0; k_step < {}; ++k_step) {{\n", steps);
    text += indented(copies("k_step", "0"), 2);
    text += "  pf::cp_async_commit();\n  pf::cp_async_wait<0>();\n  __syncthreads();\n";
    text += indented(compute("0"), 2);
    text += "  __syncthreads();\n}\n";
    return text;
  }
  if (stages == 2) {
    text += "// pipeline prologue: the copies of k-step 0 into stage 0, one commit group\n";
    text += copies("0", "0");
    text += "pf::cp_async_commit();\n";
  } else {
    text += fmt::format("// pipeline prologue: the copies of k-steps 0..{} into stages 0..{}, one commit group each "
                        "(empty past the end)\n",
                        stages - 2, stages - 2);
    text += fmt::format("#pragma unroll\nfor (int k_step = 0; k_step < {}; ++k_step) {{\n", stages - 1);
    text += fmt::format("  if (k_step < {}) {{\n", steps);
    text += indented(copies("k_step", "k_step"), 4);
    text += "  }\n  pf::cp_async_commit();\n}\n";
  }
  text += fmt::format("// {} shared stages: wait for k-step i's copies, one barrier, then the copies of k-step i+{} "
                      "into the stage k-step i-1 read, overlapping the MMAs of k-step i\n",
                      stages, stages - 1);
  text += fmt::format("#pragma unroll 1\nfor (int k_step = 0; k_step < {}; ++k_step) {{\n", steps);
  text += fmt::format("  pf::cp_async_wait<{}>();\n  __syncthreads();\n", stages - 2);
  text += fmt::format("  if (k_step + {} < {}) {{\n", stages - 1, steps);
  text += indented(copies(fmt::format("k_step + {}", stages - 1), fmt::format("((k_step + {}) % {})", stages - 1, stages)), 4);
  text += "  }\n  pf::cp_async_commit();\n";
  text += indented(compute(fmt::format("(k_step % {})", stages)), 2);
  text += "}\n";
  return text;
}

// The fragments of one operand a k-slice loads from a shared tile of `cols` columns: the A
// fragments of rows 32 * warp_y.. at k `k0`, or the B fragments of k 16 * k_slice at column `n0`.
struct FragmentLoad {
  int cols = 0;
  std::string fragments;  // the register array
  std::string tile;       // the shared tile's address
  std::string origin;     // k0 (A) or n0 (B)
};

// The MMAs of one k-step: k-slices of 16, the warp's two A fragments and its `fragments_n` B
// fragments loaded from shared memory, one mma per accumulator fragment.
std::string mmas(const std::string& type, const std::string& acc, int k_step, const FragmentLoad& a,
                 const FragmentLoad& b, int fragments_n) {
  std::string text = fmt::format("#pragma unroll\nfor (int k_slice = 0; k_slice < {}; ++k_slice) {{\n", k_step / 16);
  text += fmt::format("  pf::load_frag_a<pf::Layout::row, pf::Swizzle::xor16, {}, 2>({}, {}, 32 * warp_y, {});\n", a.cols,
                      a.fragments, a.tile, a.origin);
  text += fmt::format("  pf::load_frag_b<pf::Layout::row, pf::Swizzle::xor16, {}, {}>({}, {}, 16 * k_slice, {});\n", b.cols,
                      fragments_n, b.fragments, b.tile, b.origin);
  text += "  #pragma unroll\n  for (int i = 0; i < 2; ++i) {\n";
  text += fmt::format("    #pragma unroll\n    for (int j = 0; j < {}; ++j) pf::mma_fragment<{}>({}, i, j, {}[i], {}[j]);\n",
                      fragments_n, type, acc, a.fragments, b.fragments);
  text += "  }\n}\n";
  return text;
}

// The epilogue statements of `half` on the warp's fragments; `col` the global column of the
// warp's first one, `code` the operand loads' check code.
std::string epilogue(const Half& half, const GpuOptions& o, const std::string& col, const std::string& code) {
  if (half.plan.epilogue.empty()) return "";
  const CudaStatementContext context{half.program, half.plan, o, half.layout};
  std::string body;
  for (const PointwiseStage& stage : half.plan.epilogue)
    body += print_epilogue_instance(context, stage,
                                    {"frag_m", "frag_n", "row0 + 32 * warp_y + 16 * frag_m",
                                     fmt::format("{} + 8 * frag_n", col), code}) +
            "\n";
  std::string text = "#pragma unroll\nfor (int frag_m = 0; frag_m < 2; ++frag_m) {\n";
  text += fmt::format("  #pragma unroll\n  for (int frag_n = 0; frag_n < {}; ++frag_n) {{\n", half.fragments_n);
  text += indented(body, 4);
  text += "  }\n}\n";
  return text;
}

// The register tiles of `half` other than its accumulators (fresh epilogue results).
std::string other_tiles(const Half& half) {
  std::string text;
  for (const std::string& tile : half.layout.registers.declared)
    if (tile != half.layout.registers.of(half.plan.matmuls[0].c))
      text += fmt::format("pf::AccTile16816<2, {}> {};  // epilogue results\n", half.fragments_n, tile);
  return text;
}

std::string signature(const std::vector<KernelParameter>& parameters) {
  std::vector<std::string> parts;
  for (const KernelParameter& p : parameters) parts.push_back(p.c_type + " __restrict__ " + p.name);
  return fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace

EmittedKernel emit_back_to_back_kernel(const Program& program, const std::string& name,
                                       const std::vector<std::string>& statements, const GpuOptions& options) {
  if (options.split_k != 1 || options.mma != MmaShape::m16n8k16)
    throw UserError(fmt::format("`{}` {}: the back-to-back kernel {} is built from m16n8k16 MMAs without split-K",
                                options.split_k != 1 ? "split_k" : "mma",
                                options.split_k != 1 ? std::to_string(options.split_k) : to_string(options.mma), name));
  GpuOptions o = options;
  const BackToBack b = back_to_back_of(program, statements);
  const BackToBackTiles& t = b.tiles;
  const MatmulStage& mm1 = b.first_plan.matmuls[0];
  const MatmulStage& mm2 = b.second_plan.matmuls[0];
  const int bm = t.block_m, bk = t.block_k, hp = t.hidden_cols, bn = t.block_n, stages = o.stages;
  const int wn1 = hp / t.warps_n, wn2 = bn / t.warps_n;
  const int k_steps = static_cast<int>((t.k + bk - 1) / bk), h_steps = static_cast<int>((t.h + bk - 1) / bk);

  // Shared memory: A's tile, then the ring (X and W1 tiles, later W2 tiles), then the scratch,
  // then the epilogues' vectors (codegen/cuda_epilogue_vectors.h) of each half's block tile.
  const int hidden_bytes = bm * hp * 2, x_bytes = bm * bk * 2, w1_bytes = bk * hp * 2, w2_bytes = bk * bn * 2;
  const int ring = hidden_bytes, stage1 = x_bytes + w1_bytes, stage2 = w2_bytes;
  const int scratch = ring + stages * std::max(stage1, stage2);
  // each half's tiles as the epilogue sees them: warps of 32 rows and wn1 (wn2) columns
  GpuOptions o1 = o, o2 = o;
  o1.block = {bm, hp, bk};
  o1.warp = {32, wn1, bk};
  o2.block = {bm, bn, bk};
  o2.warp = {32, wn2, bk};
  CudaKernelLayout layout1 = half_layout(b.first, b.first_plan, o), layout2 = half_layout(b.second, b.second_plan, o);
  layout1.threads = layout2.threads = threads;
  layout1.shared_bytes = scratch + scratch_bytes;
  stage_epilogue_vectors(b.first, b.first_plan, o1, layout1);
  layout2.shared_bytes = layout1.shared_bytes;
  stage_epilogue_vectors(b.second, b.second_plan, o2, layout2);
  const int shared = layout2.shared_bytes;
  const Half first{b.first, b.first_plan, layout1, t.hidden_cols / 32};
  const Half second{b.second, b.second_plan, layout2, t.block_n / 32};
  const std::string type = cuda_type(b.first.find_tensor(b.hidden)->type);
  const int limit = arch_limits(o.arch).max_shared_bytes_per_block;
  if (shared > limit)
    throw UserError(fmt::format("the back-to-back kernel {} needs {} bytes of shared memory per block (A's "
                                "{} x {} tile, {} stage(s) of the ring, the store's scratch and the epilogues' "
                                "vectors); {} allows {}: use fewer stages",
                                name, shared, bm, hp, stages, to_string(o.arch), limit));

  EmittedKernel kernel;
  LaunchMetadata& m = kernel.metadata;
  m.kernel = name;
  m.launcher = "polyfuse_launch_" + name;
  m.arch = to_string(o.arch);
  m.parameters = kernel_parameters(program);
  m.grid[0] = GridDimension{t.blocks(), std::to_string(t.blocks())};
  m.grid[1] = GridDimension{1, "1"};
  m.grid[2] = GridDimension{1, "1"};
  m.block[0] = threads;
  m.dynamic_shared_bytes = shared;
  m.options = fmt::format("back-to-back, block {}x{}x{} then {}x{}x{} ({} N tile{}), warps 2x4, mma m16n8k16, "
                          "stages {}",
                          bm, hp, bk, bm, bn, bk, t.n_tiles(), t.n_tiles() == 1 ? "" : "s", stages);

  const std::string x = mm1.a, w1 = mm1.b, w2 = mm2.b, hidden = b.hidden;
  const std::string x_check = check_argument(check_code(t.m % bm != 0, t.k % bk != 0));
  const std::string w1_check = check_argument(check_code(t.k % bk != 0, t.h != hp));
  const std::string w2_check = check_argument(check_code(t.h % bk != 0, t.n % bn != 0));
  const std::string first_code = check_code(t.m % bm != 0, t.h != hp);
  const std::string second_code = check_code(t.m % bm != 0, t.n % bn != 0);

  std::string& s = kernel.source;
  s += fmt::format("// Generated by polyfuse from def '{}' ({}). Do not edit.\n", program.name, program.file);
  s += fmt::format("// Target {}: {}.\n", m.arch, m.options);
  s += fmt::format("// {} and {} in one kernel: {} stays in shared memory between them, never in global memory.\n",
                   mm1.dims.statement, mm2.dims.statement, hidden);
  s += fmt::format("// Launch: grid ({}, 1, 1), {} threads, {} bytes of dynamic shared memory.\n\n", m.grid[0].expression,
                   threads, shared);
  s += fmt::format("extern \"C\" __global__ void __launch_bounds__({}) {}({}) {{\n", threads, name, signature(m.parameters));
  std::string body;
  body += "PF_DYNAMIC_SHARED(smem);\n";
  body += fmt::format("// shared memory: {}'s [{}][{}] tile (the A operand of {}) at byte 0; a ring of {} stage(s) at byte "
                      "{}: [{}][{}] {} and [{}][{}] {} tiles while {} runs, then [{}][{}] {} tiles; the accumulator "
                      "reorder scratch (1 KiB per warp) at byte {}\n",
                      hidden, bm, hp, mm2.dims.statement, stages, ring, bm, bk, x, bk, hp, w1, mm1.dims.statement, bk, bn,
                      w2, scratch);
  body += fmt::format("unsigned char* const {}_shared = smem;\n", hidden);
  body += "const int warp = threadIdx.x / 32;\nconst int warp_x = warp % 4;\nconst int warp_y = warp / 4;\n";
  body += fmt::format("const int row0 = {} * blockIdx.x;  // the block's first row\n", bm);
  body += print_vector_staging(b.first, first.layout, "row0", "0", "");

  // The first matmul over all the hidden columns.
  const Statement& s0 = *program.find_statement(mm1.dims.statement);
  const std::string acc1 = first.layout.registers.of(mm1.c);
  body += fmt::format("\n// ---- {}: {} on rows row0.. and all {} (padded: {}) columns ----\n", s0.id,
                      print_statement_source(s0), t.h, hp);
  body += fmt::format("pf::AccTile16816<2, {}> {};  // f32 accumulators of {}: this warp's 32x{} tile\n",
                      first.fragments_n, acc1, mm1.c, wn1);
  body += fmt::format("pf::tile::fill({}, 0.f);\n", acc1);
  body += other_tiles(first);
  body += "{\n";
  std::string loop1 = fmt::format("pf::FragA16x16 {}_frag[2];\npf::FragB16x8 {}_frag[{}];\n", x, w1, first.fragments_n);
  const StepText copies1 = [&](const std::string& step, const std::string& stage) {
    return fmt::format("pf::cp_async_tile<pf::Swizzle::xor16, {}, {}, {}, {}, {}>({}, {} + (long long)row0 * {}{}, {}, "
                       "{} - row0, {}, threadIdx.x);\n",
                       bm, bk, threads, x_check, row_width(program, x), stage_at(ring, stage, stage1), x, t.k,
                       step == "0" ? "" : " + " + scaled(bk, step), t.k, t.m,
                       step == "0" ? std::to_string(t.k) : fmt::format("{} - {}", t.k, scaled(bk, step))) +
           fmt::format("pf::cp_async_tile<pf::Swizzle::xor16, {}, {}, {}, {}, {}>({}, {}{}, {}, {}, {}, threadIdx.x);\n",
                       bk, hp, threads, w1_check, row_width(program, w1), stage_at(ring + x_bytes, stage, stage1), w1,
                       step == "0" ? "" : fmt::format(" + (long long)({}) * {}", scaled(bk, step), t.h), t.h,
                       step == "0" ? std::to_string(t.k) : fmt::format("{} - {}", t.k, scaled(bk, step)), t.h);
  };
  const StageText compute1 = [&](const std::string& stage) {
    return mmas(type, acc1, bk, {bk, x + "_frag", stage_at(ring, stage, stage1), "16 * k_slice"},
                {hp, w1 + "_frag", stage_at(ring + x_bytes, stage, stage1), fmt::format("{} * warp_x", wn1)},
                first.fragments_n);
  };
  loop1 += k_loop(k_steps, stages, copies1, compute1);
  body += indented(loop1, 2);
  body += "}\n";
  body += fmt::format("// epilogue on the accumulator fragments, then {} ({}) into shared memory{}\n", hidden, type,
                      hp == t.h ? "" : fmt::format(" (zero past column {})", t.h));
  body += epilogue(first, o1, fmt::format("{} * warp_x", wn1), first_code);
  body += fmt::format("pf::store_frags_to_tile<{}, pf::Swizzle::xor16, {}>({}, {}_shared, 32 * warp_y, {} * warp_x, {});\n",
                      type, hp, first.layout.registers.of(hidden), hidden, wn1, t.h);
  body += fmt::format("// one barrier: {}'s tile complete for every warp, and the ring free for {}'s tiles\n", hidden, w2);
  body += "__syncthreads();\n";

  // The second matmul, N tile by N tile, A from shared memory.
  const Statement& s2 = *program.find_statement(mm2.dims.statement);
  const std::string acc2 = second.layout.registers.of(mm2.c);
  body += fmt::format("\n// ---- {}: {} with {} from shared memory, {} N tile(s) of {} columns ----\n", s2.id,
                      print_statement_source(s2), hidden, t.n_tiles(), bn);
  body += fmt::format("#pragma unroll 1\nfor (int n_tile = 0; n_tile < {}; ++n_tile) {{\n", t.n_tiles());
  std::string tile = fmt::format("const int col0 = {} * n_tile;  // the tile's first column\n", bn);
  // (the previous tile's epilogue read its vectors before that tile's last barrier)
  tile += print_vector_staging(b.second, second.layout, "row0", "col0", "");
  tile += fmt::format("pf::AccTile16816<2, {}> {};  // f32 accumulators of {}: this warp's 32x{} tile\n",
                      second.fragments_n, acc2, mm2.c, wn2);
  tile += fmt::format("pf::tile::fill({}, 0.f);\n", acc2);
  tile += other_tiles(second);
  tile += fmt::format("pf::FragA16x16 {}_frag[2];\npf::FragB16x8 {}_frag[{}];\n", hidden, w2, second.fragments_n);
  const StepText copies2 = [&](const std::string& step, const std::string& stage) {
    return fmt::format("pf::cp_async_tile<pf::Swizzle::xor16, {}, {}, {}, {}, {}>({}, {} + {}col0, {}, {}, {} - col0, "
                       "threadIdx.x);\n",
                       bk, bn, threads, w2_check, row_width(program, w2), stage_at(ring, stage, stage2), w2,
                       step == "0" ? "" : fmt::format("(long long)({}) * {} + ", scaled(bk, step), t.n), t.n,
                       step == "0" ? std::to_string(t.h) : fmt::format("{} - {}", t.h, scaled(bk, step)), t.n);
  };
  const StageText compute2 = [&](const std::string& stage) {
    return mmas(type, acc2, bk, {hp, hidden + "_frag", hidden + "_shared", fmt::format("{} * k_step + 16 * k_slice", bk)},
                {bn, w2 + "_frag", stage_at(ring, stage, stage2), fmt::format("{} * warp_x", wn2)}, second.fragments_n);
  };
  tile += k_loop(h_steps, stages, copies2, compute2);
  if (!second.plan.epilogue.empty()) tile += "// epilogue on the accumulator fragments\n";
  tile += epilogue(second, o2, fmt::format("col0 + {} * warp_x", wn2), second_code);
  const std::string store_check = check_argument(second_code);
  const auto store = [&](const std::string& tensor) {
    return fmt::format("pf::store_accumulators<{}, {}, {}>({}, smem + {}, {} + (long long)(row0 + 32 * warp_y) * {} + "
                       "(col0 + {} * warp_x), {}, {} - (row0 + 32 * warp_y), {} - (col0 + {} * warp_x), 1, 0, warp, 8);\n",
                       cuda_type(b.second.find_tensor(tensor)->type), store_check, row_width(b.second, tensor),
                       second.layout.registers.of(tensor), scratch, tensor, t.n, wn2, t.n, t.m, t.n, wn2);
  };
  if (mm2.live_out) tile += store(mm2.c);
  for (const PointwiseStage& stage : second.plan.epilogue)
    if (stage.live_out) tile += store(stage.output);
  tile += "// every warp done with the ring before the next tile's copies\n__syncthreads();\n";
  body += indented(tile, 2);
  body += "}\n";
  s += indented(body, 2);
  s += "}\n\n";
  s += host_launcher(m);
  return kernel;
}

}  // namespace polyfuse
