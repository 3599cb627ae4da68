#include "codegen/implicit_gemm_kernel.h"

#include "codegen/hopper_cluster_check.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <set>

#include "codegen/cuda_epilogue_vectors.h"
#include "codegen/cuda_kernel_layout.h"
#include "codegen/hopper_implicit_gemm.h"
#include "codegen/im2col_gather.h"
#include "codegen/mma_sync_loop.h"
#include "codegen/tensor_identifiers.h"
#include "codegen/tile_bounds.h"
#include "frontend/diagnostics.h"
#include "frontend/ir_printer.h"
#include "schedule/cpu_conv.h"
#include "schedule/implicit_gemm.h"
#include "schedule/plan_from_program.h"

namespace polyfuse {
namespace {

constexpr int block_m = 64, block_n = 64, block_k = 32;
constexpr int threads = 128;                 // 4 warps: 2 along the rows, 2 along the columns
constexpr int scratch_bytes = 4 * 1024;      // the accumulator store's reorder scratch, 1 KiB a warp

// The kernel of `planned` with the tensors named as in `program`.
EmittedKernel emit_kernel(const Program& program, const PlannedKernel& planned, const GpuOptions& options) {
  const std::string& name = planned.name;
  refuse_split_k_and_other_mma(options, "the implicit GEMM kernel", name);
  const bool block_refused = options.block_chosen && options.block != TileShape{block_m, block_n, block_k};
  if (block_refused || (!options.choose_warp && options.warp != TileShape{32, 32, block_k}))
    throw UserError(fmt::format("`{}` {}x{}x{}: the implicit GEMM kernel {} has tiles of its own ({}x{}x{} blocks of "
                                "four 32x32x{} warps); leave the block and warp tiles unset",
                                block_refused ? "block" : "warp", block_refused ? options.block.m : options.warp.m,
                                block_refused ? options.block.n : options.warp.n,
                                block_refused ? options.block.k : options.warp.k, name, block_m, block_n, block_k,
                                block_k));
  PF_INTERNAL_CHECK(planned.view && !planned.statements.empty(), "an implicit GEMM kernel without its view");
  const MainLoopChoice choice = implicit_gemm_main_loop(program, planned, options);
  if (!(options.cluster == ClusterShape{})) {  // refused: A is gathered by threads, or the mma.sync loop runs
    Program named = *planned.view;             // (found by scripts/random-programs: an internal error before)
    named.name = name;
    check_hopper_cluster(named, plan_gpu_kernel(named, recognize_idioms(named), options.f32_matmul), options, choice);
  }
  if (choice.loop == MainLoop::tma_wgmma) return emit_hopper_implicit_gemm(program, planned, options, choice);
  const Program& view = *planned.view;
  const Statement& conv = *program.find_statement(planned.statements.front());
  const Im2colGather g = im2col_gather(program, conv, {"warp", "warp_x", "warp_y", "row0", "col0", "col_end", "smem"});

  GpuOptions o = options;
  o.block = {block_m, block_n, block_k};
  o.warp = {32, 32, block_k};
  const KernelPlan plan = plan_gpu_kernel(view, recognize_idioms(view), options.f32_matmul);
  const MatmulStage& mm = plan.matmuls[0];
  const std::int64_t m = product(g, g.grouping.m), n = product(g, g.grouping.n), k = product(g, g.grouping.k);
  // a grouped convolution: one GEMM of n_group columns per group, the groups on blockIdx.z
  const std::vector<std::string>& groups = g.grouping.conv_groups;
  const std::int64_t group_count = product(g, groups), n_group = n / group_count;
  const std::string n_end = groups.empty() ? std::to_string(n) : "col_end";
  // the widest access to a [..][N] tensor's rows: a group's columns start n_group elements apart
  const auto columns_width = [&](const std::string& tensor) {
    return groups.empty() ? row_width(view, tensor)
                          : width_of_stride(n_group * size_in_bytes(view.find_tensor(tensor)->type));
  };
  const Tensor& input = *program.find_tensor(g.input.tensor);
  const bool f32 = input.type == ElementType::f32;  // TF32 (or 3xTF32) tensor cores
  const int element_bytes = f32 ? 4 : 2;
  const int stages = o.stages, tile_bytes = block_m * block_k * element_bytes, stage_bytes = 2 * tile_bytes;
  const int scratch = stages * stage_bytes;
  CudaKernelLayout layout = half_layout(view, plan, o);
  layout.threads = threads;
  layout.shared_bytes = scratch + scratch_bytes;
  stage_epilogue_vectors(view, plan, o, layout);
  const MatmulHalf half{view, plan, layout, 32 / 8};
  const int shared = layout.shared_bytes;
  const int limit = arch_limits(o.arch).max_shared_bytes_per_block;
  if (shared > limit)
    throw UserError(fmt::format("the implicit GEMM kernel {} needs {} bytes of shared memory per block; {} allows {}: "
                                "use fewer stages",
                                name, shared, to_string(o.arch), limit));

  EmittedKernel kernel;
  LaunchMetadata& md = kernel.metadata;
  md.kernel = name;
  md.launcher = "polyfuse_launch_" + name;
  md.arch = to_string(o.arch);
  // The view's parameters, its unmaterialised A replaced by the input itself.
  for (const KernelParameter& p : kernel_parameters(view)) {
    if (p.name != mm.a) {
      md.parameters.push_back(p);
      continue;
    }
    if (view.find_tensor(input.name)) continue;  // read by an epilogue too: a parameter already
    KernelParameter in = p;
    in.name = input.name;
    in.shape.clear();
    for (const std::int64_t dim : g.input_dims) in.shape.push_back(std::to_string(dim));
    md.parameters.push_back(in);
  }
  const std::int64_t m_tiles = (m + block_m - 1) / block_m, n_tiles = (n_group + block_n - 1) / block_n;
  md.grid[0] = GridDimension{m_tiles, std::to_string(m_tiles)};
  md.grid[1] = GridDimension{n_tiles, std::to_string(n_tiles)};
  md.grid[2] = GridDimension{group_count, std::to_string(group_count)};
  md.block[0] = threads;
  md.dynamic_shared_bytes = shared;
  const std::string f32_mode = !f32 ? "" : o.f32_matmul == F32Matmul::x3tf32 ? "pf::F32Mma::x3tf32" : "pf::F32Mma::tf32";
  md.options = fmt::format("implicit GEMM M=({}) N=({}) K=({}){}, block {}x{}x{}, warps 2x2, mma m16n8k16{}, stages {}",
                           fmt::join(g.grouping.m, ", "), fmt::join(g.grouping.n, ", "), fmt::join(g.grouping.k, ", "),
                           groups.empty() ? "" : fmt::format(", one GEMM per group ({}) on grid z", fmt::join(groups, ", ")),
                           block_m, block_n, block_k,
                           !f32 ? "" : o.f32_matmul == F32Matmul::x3tf32 ? " (f32 operands: 3xTF32)" : " (f32 operands: TF32)",
                           stages);

  const std::string type = cuda_type(input.type);
  const bool b_col = g.grouping.b_column_major;
  const std::string filter = mm.b;
  const std::string b_check = check_argument(b_col ? check_code(n_group % block_n != 0, k % block_k != 0)
                                                   : check_code(k % block_k != 0, n_group % block_n != 0));
  const std::string code = check_code(m % block_m != 0, n_group % block_n != 0);

  std::string& s = kernel.source;
  s += fmt::format("// Generated by polyfuse from def '{}' ({}). Do not edit.\n", program.name, program.file);
  s += fmt::format("// Target {}: {}.\n", md.arch, md.options);
  s += main_loop_comment(choice, o.arch);
  s += fmt::format("// {}: {}\n// as an implicit GEMM: {}[{}][{}] += A[{}][{}] * B, A gathered from {} in the copy to "
                   "shared memory, B = {} ({}).\n",
                   conv.id, print_statement_source(conv), mm.c, m, n, m, k, input.name, filter,
                   b_col ? "[N][K], column-major" : "[K][N], row-major");
  if (!groups.empty())
    s += fmt::format("// A grouped convolution: one GEMM per group ({}) on blockIdx.z, each of its {} columns "
                     "({}[{}][{}] += A_g[{}][{}] * B_g,\n// B_g's columns g * {}..); A_g gathered from its group's "
                     "input channels, the zeros of B outside the group never multiplied.\n",
                     fmt::join(groups, ", "), n_group, mm.c, m, n_group, m, k, n_group);
  s += fmt::format("// Launch: grid ({}, {}, {}), {} threads, {} bytes of dynamic shared memory.\n\n", m_tiles, n_tiles,
                   group_count, threads, shared);
  s += fmt::format("extern \"C\" __global__ void __launch_bounds__({}) {}({}) {{\n", threads, name,
                   signature(md.parameters));
  std::string body;
  body += "PF_DYNAMIC_SHARED(smem);\n";
  body += fmt::format("// shared memory: a ring of {} stage(s) of {} bytes ([{}][{}] A tile, then the [{}][{}] {} "
                      "tile); the accumulator reorder scratch (1 KiB per warp) at byte {}\n",
                      stages, stage_bytes, block_m, block_k, b_col ? block_n : block_k, b_col ? block_k : block_n,
                      filter, scratch);
  body += "const int warp = threadIdx.x / 32;\nconst int warp_x = warp % 2;\nconst int warp_y = warp / 2;\n";
  body += fmt::format("const int row0 = {} * blockIdx.x;  // the block's first output pixel (GEMM row)\n", block_m);
  if (groups.empty()) {
    body += fmt::format("const int col0 = {} * blockIdx.y;  // its first output channel (GEMM column)\n", block_n);
  } else {
    body += fmt::format("const int col0 = {} * blockIdx.z + {} * blockIdx.y;  // its first output channel (GEMM "
                        "column), of group blockIdx.z\n",
                        n_group, block_n);
    body += fmt::format("const int col_end = {} * (blockIdx.z + 1);  // past its group's last column\n", n_group);
    body += decompose(g, groups, "blockIdx.z") + "  // the block's group\n";
  }
  body += print_vector_staging(view, layout, "row0", "col0", "");
  const bool by_element = implicit_gemm_by_element(program, conv);
  body += gather_functions(g, type, by_element ? 1 : 16 / element_bytes);
  body += fmt::format("const auto {0}_rows = pf::gather_rows{1}<{2}, {3}, {4}>({0}_row, row0, threadIdx.x);  // this "
                      "thread's A rows, decomposed once\n",
                      input.name, f32 ? "_f32" : "", block_m, block_k, threads);
  const std::string acc = layout.registers.of(mm.c);
  body += fmt::format("pf::AccTile16816<2, {}> {};  // f32 accumulators of {}: this warp's 32x32 tile\n",
                      half.fragments_n, acc, mm.c);
  body += fmt::format("pf::tile::fill({}, 0.f);\n", acc);
  body += other_tiles(half);
  const std::string suffix = f32 ? "_f32" : "";
  std::string loop = fmt::format("pf::FragA16x16{} a_frag[2];\npf::FragB16x8{} {}_frag[{}];\n", f32 ? "F32" : "",
                                 f32 ? "F32" : "", filter, half.fragments_n);
  const StepText copies = [&](const std::string& step, const std::string& stage) {
    const std::string k0 = scaled(block_k, step);
    std::string text =
        by_element ? fmt::format("pf::gather_tile_elements{0}<pf::Swizzle::xor16, {1}, {2}, {3}>({4}, {5}_rows, {5}_tap, "
                                 "{5}_at, {6}, threadIdx.x);\n",
                                 suffix, block_m, block_k, threads, stage_at(0, stage, stage_bytes), input.name, k0)
                   : fmt::format("pf::cp_async_gather_tile{0}<pf::Swizzle::xor16, {1}, {2}, {3}>({4}, {5}_rows, "
                                 "{5}_tap, {5}_at, {6}, {5}, threadIdx.x);\n",
                                 suffix, block_m, block_k, threads, stage_at(0, stage, stage_bytes), input.name, k0);
    const std::string k_left = k0 == "0" ? std::to_string(k) : fmt::format("{} - {}", k, k0);
    if (b_col)
      text += fmt::format("pf::cp_async_tile{}<pf::Swizzle::xor16, {}, {}, {}, {}, {}>({}, {} + (long long)col0 * {}{}, "
                          "{}, {} - col0, {}, threadIdx.x);\n",
                          suffix, block_n, block_k, threads, b_check, row_width(view, filter),
                          stage_at(tile_bytes, stage, stage_bytes), filter, k, k0 == "0" ? "" : " + " + k0, k, n_end,
                          k_left);
    else
      text += fmt::format("pf::cp_async_tile{}<pf::Swizzle::xor16, {}, {}, {}, {}, {}>({}, {}{} + col0, {}, {}, {} - "
                          "col0, threadIdx.x);\n",
                          suffix, block_k, block_n, threads, b_check, columns_width(filter),
                          stage_at(tile_bytes, stage, stage_bytes), filter,
                          k0 == "0" ? "" : fmt::format(" + (long long)({}) * {}", k0, n), n, k_left, n_end);
    return text;
  };
  const StageText compute = [&](const std::string& stage) {
    return mmas(type, acc, block_k, {block_k, "a_frag", stage_at(0, stage, stage_bytes), "16 * k_slice"},
                {b_col ? block_k : block_n, filter + "_frag", stage_at(tile_bytes, stage, stage_bytes), "32 * warp_x"},
                half.fragments_n, b_col, f32_mode);
  };
  loop += k_loop(static_cast<int>((k + block_k - 1) / block_k), stages, copies, compute);
  body += "{\n" + indented(loop, 2) + "}\n";
  if (!plan.epilogue.empty()) body += "// epilogue on the accumulator fragments\n";
  body += epilogue(half, o, "col0 + 32 * warp_x", code);
  const auto store = [&](const std::string& tensor) {
    return fmt::format("pf::store_accumulators<{}, {}, {}>({}, smem + {}, {} + (long long)(row0 + 32 * warp_y) * {} + "
                       "(col0 + 32 * warp_x), {}, {} - (row0 + 32 * warp_y), {} - (col0 + 32 * warp_x), 1, 0, warp, 4);\n",
                       cuda_type(view.find_tensor(tensor)->type), check_argument(code), columns_width(tensor),
                       layout.registers.of(tensor), scratch, tensor, n, n, m, n_end);
  };
  if (mm.live_out) body += store(mm.c);
  for (const PointwiseStage& stage : plan.epilogue)
    if (stage.live_out) body += store(stage.output);
  s += indented(body, 2);
  s += "}\n\n";
  s += host_launcher(md);
  return kernel;
}

}  // namespace

EmittedKernel emit_implicit_gemm_kernel(const Program& program, const PlannedKernel& planned, const GpuOptions& options) {
  // Tensors named like the kernel's own identifiers are renamed (codegen/tensor_identifiers.h):
  // in the program and, the same way, in the plan's view, whose names the kernel's parameters
  // and epilogues use.
  return emit_with_distinct_tensor_names(program, "", [&](const Program& renamed) {
    std::map<std::string, std::string> names;
    for (std::size_t t = 0; t < program.tensors.size(); ++t)
      if (program.tensors[t].name != renamed.tensors[t].name) names[program.tensors[t].name] = renamed.tensors[t].name;
    if (names.empty()) return emit_kernel(program, planned, options);
    PlannedKernel kernel = planned;
    kernel.view = std::make_shared<Program>(with_tensor_names(*planned.view, names));
    return emit_kernel(renamed, kernel, options);
  });
}

}  // namespace polyfuse
