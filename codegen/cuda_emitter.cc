#include "codegen/cuda_emitter.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "codegen/added_matmuls.h"
#include "codegen/c_ast_printer.h"
#include "codegen/cuda_epilogue.h"
#include "codegen/cuda_epilogue_vectors.h"
#include "codegen/cuda_kernel_layout.h"
#include "codegen/cuda_statements.h"
#include "codegen/fragment_pipeline.h"
#include "codegen/fragment_row_chain.h"
#include "codegen/hopper_row_chain.h"
#include "codegen/kernel_ast.h"
#include "codegen/kernel_fit.h"
#include "codegen/hopper_cluster_check.h"
#include "codegen/hopper_epilogue.h"
#include "codegen/hopper_gemm_emit.h"
#include "codegen/hopper_gemm_kernel.h"
#include "codegen/kernel_grid.h"
#include "codegen/main_loop_choice.h"
#include "codegen/tensor_identifiers.h"
#include "frontend/diagnostics.h"
#include "frontend/idioms.h"
#include "polyfuse/cuda_helpers_embedded.h"
#include "schedule/fused_row_chain.h"
#include "schedule/fp8_gpu_rule.h"
#include "schedule/padded_matmuls.h"
#include "schedule/plan_from_program.h"
#include "schedule/output_tile.h"
#include "schedule/prologue_tile.h"
#include "schedule/schedule_printer.h"

namespace polyfuse {
namespace {

// The main loop of the kernel: where a fused row chain runs (codegen/hopper_row_chain.h).
MainLoopChoice main_loop_of(const Program& program, const KernelPlan& plan, const GpuOptions& options) {
  return with_fused_row_chain(program, plan, options, choose_main_loop(program, plan, options));
}

// The plan of `program`, checked against what the CUDA emitter handles so far, its
// reductions padded to whole k-steps (schedule/padded_matmuls.h).
KernelPlan checked_plan(const Program& program, const GpuOptions& options) {
  const Program matmuls = matmul_part(program);
  KernelPlan plan = plan_gpu_kernel(matmuls, recognize_idioms(matmuls), options.f32_matmul);
  check_fp8_gemm(program, plan, options.arch);
  for (const MatmulStage& m : plan.matmuls)
    if (options.mma != MmaShape::m16n8k16 && m.operand_type != ElementType::f16)  // mixed types: TF32
      throw UserError(fmt::format("`mma` {}: the m8n8k4 macro-MMAs take f16 operands only; use `mma=m16n8k16` for bf16 and f32",
                                  to_string(options.mma)));
  const bool f32_operands = !plan.matmuls.empty() && plan.matmuls.front().operand_type == ElementType::f32;
  validate_gpu_options(options, f32_operands ? 4 : 2);
  plan = pad_matmuls_to_block_tiles(plan, options);
  if (!(options.cluster == ClusterShape{})) check_hopper_cluster(program, plan, options, main_loop_of(program, plan, options));
  if (options.consumer_schedule) {
    const MainLoopChoice choice = main_loop_of(program, plan, options);
    if (choice.loop != MainLoop::tma_wgmma)
      throw UserError(fmt::format("`consumer_schedule` {}: only the sm_90a warp-specialised kernel has consumer warpgroups; "
                                  "def '{}' on {} runs the {} main loop{}",
                                  to_string(*options.consumer_schedule), program.name, to_string(options.arch),
                                  to_string(choice.loop), choice.fallback_reason.empty() ? "" : " (" + choice.fallback_reason + ")"));
  }
  return plan;
}

// The options of `program`'s kernel: with a fused row chain, a block tile that spans the row;
// a mma.sync kernel with a landed prologue takes the prologue rule's block tile
// (schedule/prologue_tile.h), one whose output is narrower than the default block the output
// rule's (schedule/output_tile.h); the rule's reason `why` gets (when not null).
GpuOptions kernel_options(const Program& program, const GpuOptions& options, std::string* why = nullptr) {
  const std::optional<FusedRowChain> fused = fused_row_chain(program);
  if (fused && !has_wgmma(options.arch)) return options_spanning_row(options, *fused);
  const KernelPlan plan = checked_plan(program, options);
  if (main_loop_of(program, plan, options).loop == MainLoop::tma_wgmma) return options;  // the Hopper kernel's own tiles
  if (fused) return options_spanning_row(options, *fused);
  PrologueTile rule = prologue_block_tile(plan, options);
  if (rule.why.empty()) rule = output_block_tile(plan, options);
  if (why) *why = rule.why;
  return rule.options;
}

// The program the mma.sync kernel's statements print from, its matmul part, and `plan` with
// two matmuls whose results the epilogue adds folded into one accumulator
// (codegen/added_matmuls.h; not beside a fused row chain, which reads the program as written).
Program mma_sync_program(const Program& program, KernelPlan& plan, const GpuOptions& o) {
  Program matmuls = matmul_part(program);
  if (!fused_row_chain(program)) fold_added_matmuls(matmuls, plan, o);
  return matmuls;
}

// fitted_layout of `matmuls` (mma_sync_program of `program`); when it shrank the block, the plan
// again for the new block (its matmuls' domains are padded to the block tile) and its layout.
CudaKernelLayout fitted_plan_layout(const Program& program, KernelPlan& plan, Program& matmuls, GpuOptions& o,
                                    bool stage_vectors) {
  const TileShape block = o.block;
  CudaKernelLayout layout = fitted_layout(matmuls, plan, o, stage_vectors, fused_chain_reads(program));
  if (o.block == block) return layout;
  plan = checked_plan(program, o);
  matmuls = mma_sync_program(program, plan, o);
  return fitted_layout(matmuls, plan, o, stage_vectors, fused_chain_reads(program));
}

// The printer's hooks; with `grouped` the block's tile is the preamble's `tile`
// (kernel_grid.h: the block order), not blockIdx itself. With a fragment pipeline
// (codegen/fragment_pipeline.h) the k-step loops take it when `pipeline_loops`; the edge
// blocks' body does not (their bounds and predicates leave no registers for a second set:
// ptxas 255 for gemm 4000x4000x4100 with both bodies pipelined), their k-loops use set 0.
AstPrintHooks cuda_hooks(const CudaStatementContext& context, bool grouped, bool pipeline_loops) {
  AstPrintHooks hooks;
  hooks.statement = [&context](const std::string& name, const std::vector<std::string>& args) {
    return print_cuda_statement(context, name, args);
  };
  hooks.identifier = [grouped](const std::string& id) {
    if (id == "blockIdx_x") return std::string(grouped ? "tile.col" : "blockIdx.x");
    if (id == "blockIdx_y") return std::string(grouped ? "tile.row" : "blockIdx.y");
    if (id == "blockIdx_z") return std::string("blockIdx.z");
    return id;
  };
  const int stages = context.options.stages;
  const bool pipelined = context.layout.fragment_pipeline && pipeline_loops;
  if (context.layout.fragment_pipeline) {
    hooks.fragment_pipeline = fragment_pipeline_hooks(context);
    hooks.fragment_pipeline->loops = pipeline_loops;
  }
  hooks.mark_comment = [stages, pipelined](const std::string& mark) -> std::string {
    if (mark == "kstep") return "k-steps: copy the block's A and B tiles to shared memory, then the warps' MMAs";
    if (mark == "pipeline_prologue")
      return stages == 2 ? "pipeline prologue: the copies of k-step 0 into stage 0, one commit group"
                         : fmt::format("pipeline prologue: the copies of k-steps 0..{} into stages 0..{}, one commit "
                                       "group each (empty past K)", stages - 2, stages - 2);
    if (mark == "prefetch" && pipelined)
      return fmt::format("{} shared stages: the copies of k-step i+{} into the stage k-step i-1 read, overlapping the MMAs "
                         "of k-step i; before its last k-slice, wait for k-step i+1's copies and one barrier",
                         stages, stages - 1);
    if (mark == "prefetch")
      return fmt::format("{} shared stages: wait for k-step i's copies, one barrier, then the copies of k-step i+{} "
                         "into the stage k-step i-1 read, overlapping the MMAs of k-step i",
                         stages, stages - 1);
    if (mark == "warp" && pipelined)
      return "this warp's tile: k-slices of one macro-MMA each, fragments from shared memory into one of two sets (in "
             "the k-step loop the next k-slice's load under this one's MMAs)";
    if (mark == "warp") return "this warp's tile: k-slices of one macro-MMA each, fragments from shared memory";
    if (mark == "mma") return "macro-MMAs of the warp tile, one accumulator fragment each";
    if (mark == "fragment") return "epilogue on the accumulator fragments";
    return "";
  };
  hooks.loop_pragma = [](const std::string& mark) -> std::string {
    // Loops that index register fragments are unrolled, or the fragments go to local memory.
    if (mark == "warp" || mark == "mma" || mark == "fragment" || mark == "pipeline_prologue") return "#pragma unroll";
    // A k-step is the whole main-loop body: nvcc unrolling a short K-tail loop scheduled
    // its two copies together and spilled the default kernel (sm_80, M=N=4000 K=4100).
    if (mark == "kstep" || mark == "prefetch") return "#pragma unroll 1";
    return "";
  };
  return hooks;
}


// ceil(extent / tile) blocks: the last one covers a partial tile. The expression for an
// unbound extent, (extent - 1) / tile + 1, cannot overflow an int (extent >= 1). A bound
// extent that needs more blocks than CUDA allows along `axis` is refused.
// The refusal of a grid with `blocks` along `axis` (`why`: how they are counted), located at
// the kernel's first matmul.
[[noreturn]] void refuse_grid(const Program& program, const KernelPlan& plan, std::int64_t blocks, int axis,
                              const std::string& why) {
  const Statement& at = *program.find_statement(plan.matmuls.front().dims.statement);
  throw UserError({Diagnostic{program.file, at.location.line, at.location.col,
                              fmt::format("statement {} of def '{}': the grid needs {} blocks along {} ({}), but CUDA "
                                          "allows at most {}{}",
                                          at.id, program.name, blocks, "xyz"[axis], why, max_grid_dimension[axis],
                                          axis == 2 ? " batches per launch: split the batch" : ": use a larger block tile")}});
}

GridDimension grid_dimension(const Program& program, const KernelPlan& plan, const Size& extent, int tile, int axis) {
  GridDimension g;
  if (!extent.is_symbolic()) {
    g.value = (extent.value + tile - 1) / tile;
    g.expression = std::to_string(g.value);
    if (g.value > max_grid_dimension[axis])
      refuse_grid(program, plan, g.value, axis, fmt::format("{} / {}", extent.value, tile));
  } else {
    g.expression = tile == 1 ? extent.symbol : fmt::format("({} - 1) / {} + 1", extent.symbol, tile);
  }
  return g;
}

// One block per batch element: several batch dimensions are linearised onto blockIdx.z,
// the product of their extents.
GridDimension batch_blocks(const Program& program, const KernelPlan& plan, const KernelGrid& grid) {
  if (grid.batch_extents.empty()) return GridDimension{1, "1"};
  std::int64_t product = 1;
  std::vector<std::string> factors;
  bool bound = true;
  for (const Size& e : grid.batch_extents) {
    bound = bound && !e.is_symbolic();
    product *= e.is_symbolic() ? 1 : e.value;
    factors.push_back(e.to_string());
  }
  if (bound && product > max_grid_dimension[2])
    refuse_grid(program, plan, product, 2, fmt::format("{} batch elements", fmt::join(factors, " x ")));
  if (bound) return grid_dimension(program, plan, Size{"", product}, 1, 2);
  return GridDimension{0, fmt::format("{}", fmt::join(factors, " * "))};
}

LaunchMetadata launch_metadata(const Program& program, const KernelPlan& plan, const GpuOptions& o,
                               const CudaKernelLayout& layout) {
  LaunchMetadata m;
  m.kernel = program.name;
  m.launcher = "polyfuse_launch_" + program.name;
  m.arch = to_string(o.arch);
  m.parameters = kernel_parameters(program);
  const KernelGrid grid = kernel_grid(plan, o);
  m.grid[0] = grid_dimension(program, plan, grid.cols, grid.block_n, 0);
  m.grid[1] = grid_dimension(program, plan, grid.rows, grid.block_m, 1);
  m.grid[2] = batch_blocks(program, plan, grid);
  m.block[0] = layout.threads;
  m.dynamic_shared_bytes = layout.shared_bytes;
  // f32 operands take the TF32 instruction (pf_mma_tf32.cuh), whatever `mma` says.
  const std::string mma = !layout.f32_operands                ? to_string(o.mma)
                          : o.f32_matmul == F32Matmul::x3tf32 ? std::string("m16n8k8 tf32 (3xTF32)")
                                                              : std::string("m16n8k8 tf32");
  m.options = fmt::format("block {} warp {} mma {} split-K {} stages {} group {}", to_string(o.block), to_string(o.warp),
                          mma, o.split_k, o.stages, grid.group);
  return m;
}

std::string signature(const std::vector<KernelParameter>& parameters, bool restrict_pointers) {
  std::vector<std::string> parts;
  for (const KernelParameter& p : parameters)
    parts.push_back(p.c_type + (restrict_pointers && p.kind != KernelParameter::Kind::size ? " __restrict__ " : " ") + p.name);
  return fmt::format("{}", fmt::join(parts, ", "));
}

std::string kernel_preamble(const Program& program, const KernelPlan& plan, const GpuOptions& o, const CudaKernelLayout& l,
                            const KernelGrid& grid) {
  const int group = grid.group;
  std::string text = batch_index_declarations(grid);
  if (group > 1)
    text += fmt::format("  // the output tile of this block: consecutive blocks walk groups of {} tile rows column by column\n"
                        "  const pf::Tile tile = pf::grouped_tile(blockIdx.x, blockIdx.y, gridDim.x, gridDim.y, {});\n",
                        group, group);
  text += "  PF_DYNAMIC_SHARED(smem);\n";
  const std::string row = group > 1 ? "tile.row" : "blockIdx.y", col = group > 1 ? "tile.col" : "blockIdx.x";
  text += print_vector_staging(program, l, fmt::format("{} * {}", grid.block_m, row), fmt::format("{} * {}", grid.block_n, col),
                               "  ");
  for (size_t i = 0; i < plan.matmuls.size(); ++i) {
    const MatmulTiles& t = l.matmuls[i];
    if (plan.matmuls[i].shares_a_with_previous)
      text += fmt::format("  // shared memory of {} (in {}'s k-loop): {}'s {} tiles, {} x [{}][{}] {} tiles at byte {}\n",
                          plan.matmuls[i].dims.statement, plan.group_of(plan.matmuls[i].dims.statement).leader().dims.statement,
                          plan.group_of(plan.matmuls[i].dims.statement).leader().dims.statement, t.a.tensor, o.stages,
                          t.b.rows, t.b.cols, t.b.tensor, t.b.offset);
    else
      text += fmt::format("  // shared memory of {}: {} x [{}][{}] {} tiles at byte {}, {} x [{}][{}] {} tiles at byte {}\n",
                          plan.matmuls[i].dims.statement, o.stages, t.a.rows, t.a.cols, t.a.tensor, t.a.offset, o.stages,
                          t.b.rows, t.b.cols, t.b.tensor, t.b.offset);
  }
  text += fmt::format("  // after the k-steps: the accumulator reorder scratch (1 KiB per warp) at byte {}\n", l.scratch_offset);
  text += "  const int warp = threadIdx.x / 32;\n";
  text += fmt::format("  const int warp_x = warp % {};\n", l.warps_x);
  text += fmt::format("  const int warp_y = warp / {} % {};\n", l.warps_x, l.warps_y);
  if (l.split_k > 1) text += fmt::format("  const int warp_k = warp / {};\n", l.warps_x * l.warps_y);
  for (const std::string& tile : l.registers.declared) {
    const MatmulStage* owner = nullptr;
    std::string sums;  // the matmuls whose sums the tile holds: one, or two added (codegen/added_matmuls.h)
    for (const MatmulStage& mm : plan.matmuls)
      if (l.registers.of(mm.c) == tile) {
        owner = owner ? owner : &mm;
        sums += (sums.empty() ? "" : " + ") + mm.c;
      }
    std::string what = owner ? "f32 accumulators of " + sums : "epilogue results";
    text += fmt::format("  {} {};  // {}: this warp's {}x{} tile\n", l.accumulator_type(), tile, what, o.warp.m, o.warp.n);
    if (owner && owner->zero_init) text += fmt::format("  pf::tile::fill({}, 0.f);\n", tile);
  }
  for (size_t i = 0; i < l.matmuls.size(); ++i)
    for (const SharedTile* tile : {&l.matmuls[i].a, &l.matmuls[i].b})
      if (!tile->prologue.empty() && !tile->landed && !(tile == &l.matmuls[i].a && plan.matmuls[i].shares_a_with_previous)) {
        text += fmt::format("  pf::TileRegs<{}, {}, {}> {}_staging;  // {} tiles on their way to shared memory (prologue)\n",
                            tile->rows, tile->cols, l.threads, tile->tensor, tile->source);
        for (const PrologueOperand& operand : tile->operands)
          text += fmt::format("  pf::TileRegs<{}, {}, {}> {};  // {}({}) beside each {} tile (prologue operand)\n", tile->rows,
                              tile->cols, l.threads, operand_staging_name(*tile, operand), operand.tensor,
                              fmt::join(operand.indices, ", "), tile->source);
      }
  if (l.fragment_pipeline) {
    text += fmt::format("  {} a_frag[2][{}];  // A fragments of two k-slices: the set the MMAs read, the set loading\n",
                        l.a_fragment_type(), l.fragments_m);
    std::vector<std::string> b_arrays;  // one per matmul of a k-loop that shares A, else one for all
    for (const MatmulStage& mm : plan.matmuls)
      if (std::find(b_arrays.begin(), b_arrays.end(), l.b_fragments(plan, mm)) == b_arrays.end())
        b_arrays.push_back(l.b_fragments(plan, mm));
    for (const std::string& b : b_arrays)
      text += fmt::format("  {} {}[2][{}];  // B fragments of two k-slices{}\n", l.b_fragment_type(), b, l.fragments_n,
                          b == "b_frag" ? "" : " (" + b.substr(7) + "'s matmul)");
    return text;
  }
  text += fmt::format("  {} a_frag[{}];  // A fragments of one k-slice\n", l.a_fragment_type(), l.fragments_m);
  text += fmt::format("  {} b_frag[{}];  // B fragments of one k-slice\n", l.b_fragment_type(), l.fragments_n);
  return text;
}

}  // namespace

EpilogueReads epilogue_reads(const Program& program, const KernelPlan& plan, const std::vector<std::string>& chain_reads) {
  EpilogueReads reads{{}, chain_reads};
  for (const PointwiseStage& pw : plan.epilogue) {
    reads.by_statement.emplace_back();
    for (const Access& access : program.find_statement(pw.dims.statement)->reads)
      reads.by_statement.back().push_back(access.tensor);
  }
  return reads;
}

std::vector<std::string> fused_chain_reads(const Program& whole) {
  std::vector<std::string> reads;
  if (const std::optional<FusedRowChain> fused = fused_row_chain(whole))
    for (const std::string& id : fused->chain)
      for (const Access& access : whole.find_statement(id)->reads) reads.push_back(access.tensor);
  return reads;
}

std::string host_launcher(const LaunchMetadata& m) {
  std::vector<std::string> names;
  for (const KernelParameter& p : m.parameters) names.push_back(p.name);
  std::string text = "#if defined(__CUDACC__) && !defined(__CUDACC_RTC__)\n";
  text += fmt::format("// Host launcher: grid ({}, {}, {}), {} threads, {} bytes of dynamic shared memory.\n",
                      m.grid[0].expression, m.grid[1].expression, m.grid[2].expression, m.block[0], m.dynamic_shared_bytes);
  text += fmt::format("extern \"C\" cudaError_t {}({}, cudaStream_t stream) {{\n", m.launcher, signature(m.parameters, false));
  if (m.dynamic_shared_bytes > 48 * 1024) {
    text += fmt::format("  cudaError_t status = cudaFuncSetAttribute({}, cudaFuncAttributeMaxDynamicSharedMemorySize, {});\n",
                        m.kernel, m.dynamic_shared_bytes);
    text += "  if (status != cudaSuccess) return status;\n";
  }
  text += fmt::format("  {}<<<dim3({}, {}, {}), dim3({}), {}, stream>>>({});\n", m.kernel, m.grid[0].expression,
                      m.grid[1].expression, m.grid[2].expression, m.block[0], m.dynamic_shared_bytes,
                      fmt::join(names, ", "));
  text += "  return cudaGetLastError();\n}\n#endif\n";
  return text;
}

namespace {

StatementRewrites kernel_rewrites(const Program& program, const KernelPlan& plan, const CudaKernelLayout& layout,
                                  const GpuOptions& o) {
  StatementRewrites rewrites = cuda_statement_rewrites(plan, o);
  add_tile_bounds(rewrites, program, plan, layout, o);
  return rewrites;
}

// The kernel's statements: one body, or the full blocks' and the edge blocks' under an if.
// `edge_hooks` print the edge blocks' body.
std::string kernel_body(const KernelAst& ast, const AstPrintHooks& hooks, const AstPrintHooks& edge_hooks) {
  if (!ast.is_full) return ast.full ? print_c_ast(*ast.full, hooks, 1) : print_c_ast(*ast.edge, edge_hooks, 1);
  std::string text = fmt::format("  if ({}) {{\n", print_c_expr(*ast.is_full, hooks.identifier));
  text += "    // a full block: every tile inside the tensors, no bounds checked\n";
  text += print_c_ast(*ast.full, hooks, 2);
  text += "  } else {\n";
  text += "    // a block at the edge: partial tiles, zero-filled loads, masked stores\n";
  text += print_c_ast(*ast.edge, edge_hooks, 2);
  text += "  }\n";
  return text;
}

std::string helpers_text(CudaEmitRequest::Helpers helpers) {
  if (helpers == CudaEmitRequest::Helpers::embed)
    return "// ---- kernels/cuda helpers (embedded) ----\n" + std::string(cuda_helpers::amalgamation()) +
           "// ---- end of helpers ----\n\n";
  if (helpers == CudaEmitRequest::Helpers::include) return "#include \"polyfuse_cuda.cuh\"\n\n";
  return "";
}

}  // namespace

std::vector<KernelParameter> kernel_parameters(const Program& program) {
  std::vector<KernelParameter> parameters;
  for (const Tensor& tensor : program.tensors) {
    if (tensor.role == TensorRole::temporary) continue;
    KernelParameter p;
    p.name = tensor.name;
    p.kind = tensor.role == TensorRole::input ? KernelParameter::Kind::input : KernelParameter::Kind::output;
    p.element = tensor.type;
    for (const Size& size : tensor.dims) p.shape.push_back(bound_size(program, size).to_string());
    p.c_type = (tensor.role == TensorRole::input ? "const " : "") + cuda_type(tensor.type) + "*";
    parameters.push_back(p);
  }
  for (const std::string& size : program.parameters) {
    KernelParameter p;
    p.name = size;
    p.kind = KernelParameter::Kind::size;
    p.c_type = "int";
    parameters.push_back(p);
  }
  return parameters;
}

// For a kernel that takes the TMA + wgmma main loop, a first line saying that the tree and AST
// below are the mma.sync path's (the Hopper kernel is written without them so far).
static std::string hopper_note(const Program& program, const KernelPlan& plan, const GpuOptions& o) {
  if (main_loop_of(program, plan, o).loop != MainLoop::tma_wgmma) return "";
  return "# sm_90a: the kernel's main loop is TMA + wgmma (codegen/hopper_gemm_kernel.h), not generated from this "
         "tree; it shows the mma.sync path\n";
}

namespace {

// The kernel of `program`, its tensors named as they are.
EmittedKernel emit_cuda_kernel(const Program& program, const CudaEmitRequest& request) {
  GpuOptions o = kernel_options(program, request.options);
  KernelPlan plan = checked_plan(program, o);
  // the choice (and a fallback's reason) of the user's options: a tile rule's block is no user's
  const MainLoopChoice choice = main_loop_of(program, checked_plan(program, request.options), request.options);
  if (choice.loop != MainLoop::tma_wgmma) refuse_fp8_fallback(program, choice.fallback_reason);
  if (choice.loop == MainLoop::tma_wgmma) {
    if (request.dumps.out != nullptr && !request.dumps.after.empty()) {  // --dump-after: the trees, with the note
      *request.dumps.out << hopper_note(program, plan, o);
      fitted_layout(program, plan, o, !fused_row_chain(program), fused_chain_reads(program));
      build_gpu_schedule(plan, o, request.dumps);
    }
    if (choice.chained) {  // the two added matmuls into one accumulator (codegen/added_matmuls.h)
      Program folded = program;
      PF_INTERNAL_CHECK(fold_added_matmuls(folded, plan, o), "a chained pair of matmuls that does not fold");
      return emit_hopper_gemm(folded, plan, request.options, choice, request.helpers);
    }
    return emit_hopper_gemm(program, plan, request.options, choice, request.helpers);
  }
  Program matmuls = mma_sync_program(program, plan, o);
  CudaKernelLayout layout = fitted_plan_layout(program, plan, matmuls, o, !fused_row_chain(program));
  isl::schedule schedule = build_gpu_schedule(plan, o, request.dumps);
  KernelAst ast = build_kernel_ast(schedule, plan, o, kernel_rewrites(matmuls, plan, layout, o));
  const KernelGrid grid = kernel_grid(plan, o);
  check_grid_covers_statements(plan, grid, ast.context);
  CudaStatementContext context{matmuls, plan, o, layout};
  std::string row_chain;  // a row chain fused into the epilogue, after the matmul kernel's statements
  if (const std::optional<FusedRowChain> fused = fused_row_chain(program)) {
    const FragmentRowChainText chain = fragment_row_chain(CudaStatementContext{program, plan, o, layout}, *fused,
                                                          grid.group > 1 ? "tile.row" : "blockIdx.y");
    row_chain = chain.text;
    layout.shared_bytes = chain.shared_bytes;
  }

  EmittedKernel kernel;
  kernel.metadata = launch_metadata(program, plan, o, layout);
  const LaunchMetadata& m = kernel.metadata;
  std::string& s = kernel.source;
  s += fmt::format("// Generated by polyfuse from def '{}' ({}). Do not edit.\n", program.name, program.file);
  s += fmt::format("// Target {}: {}.\n", m.arch, m.options);
  s += main_loop_comment(choice, o.arch);
  s += fmt::format("// Launch: grid ({}, {}, {}), {} threads, {} bytes of dynamic shared memory.\n\n", m.grid[0].expression,
                   m.grid[1].expression, m.grid[2].expression, m.block[0], m.dynamic_shared_bytes);
  s += helpers_text(request.helpers);
  s += fmt::format("extern \"C\" __global__ void __launch_bounds__({}) {}({}) {{\n", layout.threads, m.kernel,
                   signature(m.parameters, true));
  s += kernel_preamble(matmuls, plan, o, layout, grid);
  s += kernel_body(ast, cuda_hooks(context, grid.group > 1, true), cuda_hooks(context, grid.group > 1, false));
  s += row_chain;
  s += "}\n\n";
  s += host_launcher(m);
  return kernel;
}

}  // namespace

EmittedKernel emit_cuda(const Program& program, const CudaEmitRequest& request) {
  CudaEmitRequest quiet = request;  // the passes' dumps once, for the program as written
  quiet.dumps = {};
  bool first = true;
  return emit_with_distinct_tensor_names(program, helpers_text(request.helpers), [&](const Program& p) {
    const bool dump = first;
    first = false;
    return emit_cuda_kernel(p, dump ? request : quiet);
  });
}

std::string emit_schedule_text(const Program& program, const GpuOptions& options, const PassDumps& dumps) {
  GpuOptions o = kernel_options(program, options);
  KernelPlan plan = checked_plan(program, o);
  Program matmuls = mma_sync_program(program, plan, o);
  fitted_plan_layout(program, plan, matmuls, o, !fused_row_chain(program));
  return hopper_note(program, plan, o) + schedule_to_text(build_gpu_schedule(plan, o, dumps));
}

std::string emit_ast_text(const Program& program, const GpuOptions& options, const PassDumps& dumps) {
  GpuOptions o = kernel_options(program, options);
  KernelPlan plan = checked_plan(program, o);
  Program matmuls = mma_sync_program(program, plan, o);
  CudaKernelLayout layout = fitted_plan_layout(program, plan, matmuls, o, !fused_row_chain(program));
  isl::schedule schedule = build_gpu_schedule(plan, o, dumps);
  return hopper_note(program, plan, o) +
         kernel_ast_text(build_kernel_ast(schedule, plan, o, kernel_rewrites(matmuls, plan, layout, o)));
}

std::string emit_config_text(const Program& program, const GpuOptions& options, const PassDumps& dumps) {
  std::string tile_rule;
  GpuOptions o = kernel_options(program, options, &tile_rule);
  const KernelPlan plan = checked_plan(program, o);
  const MainLoopChoice choice = main_loop_of(program, checked_plan(program, options), options);
  CudaEmitRequest request;
  request.options = options;
  request.dumps = dumps;
  request.helpers = CudaEmitRequest::Helpers::omit;
  const LaunchMetadata m = emit_cuda(program, request).metadata;
  std::string text = fmt::format("kernel: {}\narch: {}\n", m.kernel, m.arch);
  if (choice.loop == MainLoop::tma_wgmma)
    text += fmt::format("main loop: {}{}\n", to_string(choice.loop),
                        choice.any_thread_copy()
                            ? fmt::format(", {} copied by threads ({})", choice.a_copy == OperandCopy::threads ? "A" : "B",
                                          choice.thread_copy_reason)
                        : choice.any_prologue_in_place()
                            ? fmt::format(", {}'s prologue applied by the producer's threads where TMA loaded it",
                                          choice.a_copy == OperandCopy::tma_prologue ? "A" : "B")
                            : "");
  else if (has_wgmma(o.arch))
    text += fmt::format("main loop: {}, the sm_80 path ({})\n", to_string(choice.loop), choice.fallback_reason);
  else
    text += fmt::format("main loop: {}\n", to_string(choice.loop));
  text += fmt::format("tiles: {}\n", m.options);
  if (!tile_rule.empty()) text += fmt::format("tile rule: {}\n", tile_rule);
  if (choice.loop != MainLoop::tma_wgmma) {
    GpuOptions fitted = o;
    KernelPlan folded = plan;
    Program matmuls = mma_sync_program(program, folded, o);
    const CudaKernelLayout layout = fitted_plan_layout(program, folded, matmuls, fitted, !fused_row_chain(program));
    text += fmt::format("registers: {} per thread by the register model ({}{}); {} allows {} to each of {} threads{}\n",
                        layout.register_model.total(), layout.register_model.to_string(),
                        fused_row_chain(program) ? "; the fused row chain's not modelled" : "", to_string(o.arch), register_limit(o.arch, layout.threads),
                        layout.threads,
                        fitted.block != o.block
                            ? fmt::format(" (block tile {} shrunk to {}, warp tile {}, to fit)", to_string(o.block),
                                          to_string(fitted.block), to_string(fitted.warp))
                        : fitted.warp == o.warp ? std::string()
                                                : fmt::format(" (warp tile {} shrunk to {} to fit)", to_string(o.warp),
                                                              to_string(fitted.warp)));
    text += fmt::format("fragments: {}\n", layout.fragment_pipeline_why);
    if (folded.matmuls.size() == 2 && !folded.matmuls[1].accumulates_into.empty())
      text += fmt::format("accumulators: one for {} + {}, the k-steps of {} then {}'s into one f32 tile\n",
                          folded.matmuls[0].c, folded.matmuls[1].c, folded.matmuls[0].c, folded.matmuls[1].c);
  } else if (choice.chained) {
    text += fmt::format("accumulators: one for {} + {}, the k-blocks of {} then {}'s into one f32 tile of each consumer\n",
                        plan.matmuls[0].c, plan.matmuls[1].c, plan.matmuls[0].c, plan.matmuls[1].c);
  }
  if (!plan.matmuls.empty() && plan.matmuls.front().operand_type == ElementType::f32)
    text += o.f32_matmul == F32Matmul::x3tf32
                ? "f32 matmul: 3xtf32 (--f32-matmul): each operand split into two TF32 parts, three "
                  "mma.m16n8k8.tf32 per 8 k: close to f32 accuracy\n"
                : choice.loop == MainLoop::tma_wgmma
                ? "f32 matmul: tf32 (--f32-matmul): wgmma m64nNk8.tf32 reads the f32 tiles TMA loaded as TF32 (the low 13 "
                  "mantissa bits not rounded in)\n"
                : "f32 matmul: tf32 (--f32-matmul): operands rounded to TF32 (cvt.rna), mma.m16n8k8.tf32\n";
  if (m.persistent && m.cluster_x > 1)
    text += fmt::format("tile scheduler: persistent, clusters of {} output tiles (--cluster) sharing {} by TMA multicast, {} "
                        "cluster tiles in groups of {} cluster-tile rows (--group), grid min(SMs, {}) rounded down to a "
                        "multiple of {}: the runtime reads the device's SM count at launch (the emulator: --sms, default "
                        "132) and launches clusters of {} blocks\n",
                        to_string(o.cluster), o.cluster.m > 1 ? "each B tile" : "each A tile", m.grid[0].value / m.cluster_x,
                        o.group.value_or(HopperTileSchedule{}.group), m.grid[0].value, m.cluster_x, m.cluster_x);
  else if (m.persistent)
    text += fmt::format("tile scheduler: persistent, {} tiles in groups of {} tile rows (--group), grid min(SMs, {}): the "
                        "runtime reads the device's SM count at launch (the emulator: --sms, default 132); no cluster "
                        "(--cluster 1x1, the default until GPU timings show a 2x1 or 1x2 cluster faster)\n",
                        m.grid[0].value, o.group.value_or(HopperTileSchedule{}.group), m.grid[0].value);
  if (choice.loop == MainLoop::tma_wgmma) text += fmt::format("epilogue: {}\n", describe_sm90a_epilogue(program, plan));
  const std::string grid_x = m.persistent ? "min(SMs, " + m.grid[0].expression + ")" : m.grid[0].expression;
  text += fmt::format("launch: grid ({}{}, {}, {}), block ({}, {}, {}), {} bytes of dynamic shared memory{}\n", grid_x,
                      m.cluster_x > 1 ? fmt::format(" rounded down to a multiple of {}", m.cluster_x) : "",
                      m.grid[1].expression, m.grid[2].expression, m.block[0], m.block[1], m.block[2], m.dynamic_shared_bytes,
                      m.cluster_x > 1 ? fmt::format(", clusters of ({}, 1, 1) blocks", m.cluster_x) : "");
  std::vector<std::string> parameters;
  for (const KernelParameter& p : m.parameters)
    parameters.push_back(p.tma_box.empty() ? fmt::format("{} ({})", p.name, p.c_type)
                                           : fmt::format("{} (tensor map, boxes of {})", p.name, fmt::join(p.tma_box, " x ")));
  text += fmt::format("parameters: {}\n", fmt::join(parameters, ", "));
  return text;
}

std::string cuda_helpers_text(CudaEmitRequest::Helpers helpers) { return helpers_text(helpers); }

}  // namespace polyfuse
