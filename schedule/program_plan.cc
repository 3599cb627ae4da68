#include "schedule/program_plan.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>
#include <set>
#include <variant>

#include "frontend/diagnostics.h"
#include "frontend/ir_printer.h"
#include "schedule/attention.h"
#include "schedule/back_to_back.h"
#include "schedule/contraction_kernels.h"
#include "schedule/fp8_gpu_rule.h"
#include "schedule/fused_row_chain.h"
#include "schedule/implicit_gemm.h"
#include "schedule/plan_from_program.h"
#include "schedule/row_chain.h"
#include "schedule/shared_operands.h"

namespace polyfuse {
namespace {

constexpr std::int64_t workspace_alignment = 256;

bool contains(const std::vector<std::string>& ids, const std::string& id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

// The first message of `error`, with its place (file:line:col) when it has one.
std::string message_of(const UserError& error) {
  if (error.diagnostics().empty()) return error.what();
  const Diagnostic& d = error.diagnostics().front();
  return d.line ? fmt::format("{}:{}:{}: {}", d.file, d.line, d.col, d.message) : d.message;
}

// Whether statement `id` reads / writes `tensor`.
bool reads(const Statement& s, const std::string& tensor) {
  return std::any_of(s.reads.begin(), s.reads.end(), [&](const Access& a) { return a.tensor == tensor; });
}

// The def reduced to `ids`, called `name` (see kernel_program).
Program reduced_program(const Program& program, const std::vector<std::string>& ids, const std::string& name) {
  Program reduced = program;
  reduced.name = name;
  reduced.statements.clear();
  for (const Statement& s : program.statements)
    if (contains(ids, s.id)) reduced.statements.push_back(s);
  std::vector<Tensor> inputs, outputs, temporaries;
  for (const Tensor& tensor : program.tensors) {
    bool written_here = false, read_here = false, read_elsewhere = false, written_elsewhere = false;
    for (const Statement& s : program.statements) {
      const bool here = contains(ids, s.id);
      const bool writes = s.write.tensor == tensor.name;
      (here ? written_here : written_elsewhere) |= writes;
      (here ? read_here : read_elsewhere) |= reads(s, tensor.name);
    }
    if (!written_here && !read_here) continue;
    Tensor t = tensor;
    // Written here and accessed by another kernel too: in memory (an output, or the workspace).
    if (written_here)
      t.role = tensor.role == TensorRole::output || read_elsewhere || written_elsewhere ? TensorRole::output
                                                                                      : TensorRole::temporary;
    else
      t.role = TensorRole::input;
    if (tensor.role == TensorRole::temporary && t.role != TensorRole::temporary &&
        !typed_by_conversion(program, tensor.name))
      t.type = ElementType::f32;
    (t.role == TensorRole::input ? inputs : t.role == TensorRole::output ? outputs : temporaries).push_back(t);
  }
  reduced.tensors = inputs;
  reduced.tensors.insert(reduced.tensors.end(), outputs.begin(), outputs.end());
  reduced.tensors.insert(reduced.tensors.end(), temporaries.begin(), temporaries.end());
  return reduced;
}

// Why plan_gpu_kernel refuses the statements `ids` as one kernel; none when it takes them.
std::optional<UserError> fused_kernel_refusal(const Program& program, const std::vector<std::string>& ids, F32Matmul f32) {
  try {
    const Program reduced = reduced_program(program, ids, program.name);
    plan_gpu_kernel(reduced, recognize_idioms(reduced), f32);
    return std::nullopt;
  } catch (const UserError& error) {
    return error;
  }
}

std::vector<Size> extents(const Program& program, const Statement& s) {
  std::vector<Size> sizes;
  for (const IterationIndex& index : s.indices) sizes.push_back(bound_size(program, index.extent));
  return sizes;
}

// Empty when statement `s` can join the pointwise kernel `kernel` (one thread, or one lane of a
// reduction's row, per element of one domain: `s`'s, written and reduced indices; every tensor
// the kernel writes accessed at that element), else why not.
std::string pointwise_refusal(const Program& program, const PlannedKernel& kernel, const Statement& s) {
  const Statement& first = *program.find_statement(kernel.statements.front());
  if (first.index_names() != s.index_names() || extents(program, first) != extents(program, s))
    return fmt::format("its domain ({}) differs from the pointwise kernel's ({})", fmt::join(s.index_names(), ", "),
                       fmt::join(first.index_names(), ", "));
  std::set<std::string> written;
  for (const std::string& id : kernel.statements) written.insert(program.find_statement(id)->write.tensor);
  for (const Access& read : s.reads)
    if (written.count(read.tensor) && read.indices != s.index_names())
      return fmt::format("it reads {} at other indices than the element the kernel's thread computed", read.tensor);
  for (const std::string& id : kernel.statements)
    for (const Access& read : program.find_statement(id)->reads)
      if (read.tensor == s.write.tensor && read.indices != s.index_names())
        return fmt::format("it writes {}, which the kernel reads at other indices", s.write.tensor);
  return "";
}

std::string describe(const Statement& s) { return fmt::format("{} ({})", s.id, print_statement_source(s)); }

// Adds `t` (its tensor, type and dims set) at the workspace's end.
void place(PlanTemporary t, ProgramPlan& plan) {
  t.bytes = size_in_bytes(t.type);
  for (const std::int64_t dim : t.dims) t.bytes *= dim;
  t.offset = plan.workspace_bytes;
  plan.workspace_bytes += (t.bytes + workspace_alignment - 1) / workspace_alignment * workspace_alignment;
  plan.temporaries.push_back(t);
}

// The temporaries between the kernels, laid out in one workspace: the def's (f32, or the type
// of the conversion that writes them), then the contractions' `steps`.
void place_temporaries(const Program& program, const std::vector<ContractionTemporary>& steps, ProgramPlan& plan) {
  for (const Tensor& tensor : program.tensors) {
    if (tensor.role != TensorRole::temporary) continue;
    int kernels = 0;  // that read or write it
    bool view_output = false;  // a view kernel's output parameter: in memory even when nobody reads it
    for (const PlannedKernel& kernel : plan.kernels) {
      const Tensor* in_view = kernel.view ? kernel.view->find_tensor(tensor.name) : nullptr;
      bool accessed = in_view != nullptr;
      view_output = view_output || (in_view && in_view->role == TensorRole::output);
      for (const std::string& id : kernel.statements) {
        const Statement& s = *program.find_statement(id);
        accessed = accessed || s.write.tensor == tensor.name || reads(s, tensor.name);
      }
      kernels += accessed ? 1 : 0;
    }
    if (kernels < 2 && !view_output) continue;
    PlanTemporary t;
    t.tensor = tensor.name;
    if (typed_by_conversion(program, tensor.name)) t.type = tensor.type;
    for (const Size& dim : tensor.dims) t.dims.push_back(bound_size(program, dim).value);
    place(t, plan);
  }
  for (const ContractionTemporary& step : steps) place(PlanTemporary{step.tensor, step.dims, 0, 0, step.type}, plan);
}

}  // namespace

const char* to_string(PlannedKernelKind kind) {
  switch (kind) {
    case PlannedKernelKind::fused_matmul: return "fused matmul";
    case PlannedKernelKind::pointwise: return "pointwise";
    case PlannedKernelKind::row_reduction: return "row reduction";
    case PlannedKernelKind::row_chain: return "row chain";
    case PlannedKernelKind::back_to_back: return "back-to-back matmuls";
    case PlannedKernelKind::attention: return "attention";
    case PlannedKernelKind::implicit_gemm: return "implicit GEMM";
  }
  return "?";
}

bool ProgramPlan::is_single_fused_kernel() const {
  return kernels.size() == 1 && kernels[0].kind == PlannedKernelKind::fused_matmul && !kernels[0].view;
}

const PlanTemporary* ProgramPlan::find_temporary(const std::string& tensor) const {
  for (const PlanTemporary& t : temporaries)
    if (t.tensor == tensor) return &t;
  return nullptr;
}

ProgramPlan plan_program(const Program& program, const Idioms& idioms, F32Matmul f32) {
  ProgramPlan plan;
  plan.def = program.name;
  plan.f32_matmul = f32;
  try {
    plan_gpu_kernel(program, idioms, f32);
    std::vector<std::string> all;
    for (const Statement& s : program.statements) all.push_back(s.id);
    plan.kernels.push_back(PlannedKernel{PlannedKernelKind::fused_matmul, program.name, all, "", "", "", {}, ""});
    return plan;
  } catch (const UserError& not_one_kernel) {
    // not one fused kernel: a plan of several, whose kernels do not read FP8
    refuse_fp8_on_gpu(program, fmt::format("the GPU path reads FP8 only as the operands of one plain GEMM kernel (sm_90a "
                                           "TMA + wgmma), and this def is not one fused kernel ({}); run it on the CPU "
                                           "target (--target=cpu)",
                                           not_one_kernel.what()));
  }

  // Closes the last kernel with `why`, naming the statement `s` that starts the next.
  const auto cut_before = [&](const Statement& s, const std::string& why) {
    if (!plan.kernels.empty()) plan.kernels.back().cut = fmt::format("{} starts a new kernel: {}", describe(s), why);
  };
  const auto start = [&](PlannedKernelKind kind, const Statement& s) {
    plan.kernels.push_back(PlannedKernel{kind, "", {s.id}, "", "", "", {}, ""});
  };
  // Appends `s` to the matmul kernel `kernel` when the fused kernel still takes it; else why not.
  // Appends `s` to the memory-bound kernel `kernel` when they form one row chain; else why not.
  const auto join_row_chain = [&](PlannedKernel& kernel, const Statement& s) -> std::string {
    std::vector<std::string> with = kernel.statements;
    with.push_back(s.id);
    for (const std::string& id : with) {
      const Statement& statement = *program.find_statement(id);
      if (touches_integers(program, statement))
        return "integer tensors and gathers run in pointwise and row-reduction kernels, not in row chains";
    }
    const std::variant<RowChain, std::string> chain = row_chain_of(program, with);
    if (const std::string* why = std::get_if<std::string>(&chain)) return *why;
    kernel.kind = PlannedKernelKind::row_chain;
    kernel.statements = std::move(with);
    kernel.partition = std::get<RowChain>(chain).describe();
    return "";
  };
  const auto join_matmul_kernel = [&](PlannedKernel& kernel, const Statement& s) -> std::optional<std::string> {
    std::vector<std::string> with = kernel.statements;
    with.push_back(s.id);
    if (const std::optional<UserError> why = fused_kernel_refusal(program, with, f32)) return message_of(*why);
    kernel.statements = std::move(with);
    return std::nullopt;
  };
  std::vector<ContractionTemporary> contraction_temporaries;
  std::set<std::string> in_a_contraction;  // the epilogues a contraction's GEMM kernel took
  // Attention (schedule/attention.h): its statements are one kernel, before any other grouping.
  const std::vector<AttentionRun> attention = attention_runs(program, f32);
  std::set<std::string> in_attention;
  for (const Statement& s : program.statements) {
    if (in_a_contraction.count(s.id) || in_attention.count(s.id)) continue;
    const auto run = std::find_if(attention.begin(), attention.end(), [&](const AttentionRun& r) {
      return r.why_not.empty() && r.statements.front() == s.id;
    });
    if (run != attention.end()) {
      cut_before(s, "attention runs in a kernel of its own");
      plan.kernels.push_back(PlannedKernel{PlannedKernelKind::attention, "", run->statements, "",
                                           describe(std::get<Attention>(*attention_of(program, run->statements, f32))),
                                           "", {}, ""});
      in_attention.insert(run->statements.begin(), run->statements.end());
      continue;
    }
    const StatementIdiom& idiom = *idioms.find(s.id);
    // A contraction's kernels take no other statement.
    if (!plan.kernels.empty() && plan.kernels.back().view)
      cut_before(s, fmt::format("{} takes as epilogues only the pointwise statements right after it over its "
                                "written indices whose every access is whole index groups{}, and no other statement",
                                plan.kernels.back().kind == PlannedKernelKind::implicit_gemm
                                    ? "an implicit GEMM"
                                    : "a contraction's GEMM over grouped indices",
                                plan.kernels.back().kind == PlannedKernelKind::implicit_gemm
                                    ? " (a grouped convolution's: the tensors they read hold each group's channels "
                                      "in whole 16-byte chunks)"
                                    : ""));
    if (!plan.kernels.empty() && plan.kernels.back().kind == PlannedKernelKind::attention)
      cut_before(s, "the attention kernel takes no other statement");
    PlannedKernel* last = plan.kernels.empty() || plan.kernels.back().view ||
                                  plan.kernels.back().kind == PlannedKernelKind::attention
                              ? nullptr
                              : &plan.kernels.back();
    // `max=!` and the like without a reduction index are pointwise (`op=!` is `=`, `op=` combines once).
    const IdiomKind kind =
        idiom.kind == IdiomKind::other && s.reduction_indices().empty() ? IdiomKind::pointwise : idiom.kind;
    // Contractions other than matmuls as written: a GEMM over grouped indices where tensor cores take it.
    std::string contraction_note;
    const bool convolution =
        std::any_of(s.reads.begin(), s.reads.end(), [](const Access& read) { return !read.is_plain(); });
    if ((kind == IdiomKind::other || kind == IdiomKind::batch_reduce_matmul) && !touches_integers(program, s)) {
      const ContractionGrouping grouping =
          convolution ? implicit_gemm_grouping(program, s) : group_contraction(program, s);
      if (grouping.is_gemm) {
        const bool after_a_kernel = last != nullptr;
        if (after_a_kernel)
          cut_before(s, grouping.a_gathered ? "a convolution runs as an implicit GEMM, in a kernel of its own"
                                            : "a contraction runs as a GEMM over grouped indices, in kernels of its own");
        if (plan_contraction_kernels(program, s, grouping, f32, plan, contraction_temporaries, contraction_note)) {
          for (const PlannedKernel& k : plan.kernels) in_a_contraction.insert(k.statements.begin(), k.statements.end());
          continue;
        }
        if (after_a_kernel) plan.kernels.back().cut.clear();
      } else if (convolution) {
        contraction_note = "a convolution (reads through index expressions) runs as a reduction kernel, one warp or "
                           "block per output element, not as an implicit GEMM on tensor cores: " +
                           grouping.why_not;
      } else if (kind == IdiomKind::batch_reduce_matmul) {
        contraction_note = "a reduction kernel, not tensor cores: the sum over several indices is not a GEMM over "
                           "grouped indices (" + grouping.why_not + ")";
      }
    }
    switch (kind) {
      case IdiomKind::matmul: {
        if (last && last->kind == PlannedKernelKind::pointwise) {  // its prologues, fused into the copies
          std::vector<std::string> with = last->statements;
          with.push_back(s.id);
          if (!fused_kernel_refusal(program, with, f32)) {
            last->kind = PlannedKernelKind::fused_matmul;
            last->statements = with;
            break;
          }
        }
        if (std::optional<UserError> alone = fused_kernel_refusal(program, {s.id}, f32)) {
          // No tensor-core kernel takes it (f32 operands, ...): it is a sum like any other.
          if (last) cut_before(s, "a matmul no tensor-core kernel takes runs as a reduction kernel of its own");
          start(PlannedKernelKind::row_reduction, s);
          plan.kernels.back().note = "a reduction kernel, not tensor cores: " + message_of(*alone);
          break;
        }
        if (last && last->kind == PlannedKernelKind::fused_matmul) {
          const std::optional<std::string> why = join_matmul_kernel(*last, s);
          if (!why) break;
          cut_before(s, "the matmul kernel does not take it: " + *why);
        } else {
          cut_before(s, "a matmul runs in a tensor-core kernel of its own");
        }
        start(PlannedKernelKind::fused_matmul, s);
        break;
      }
      // A sum over several indices no GEMM took (operands of two types, an integer tensor): a
      // reduction kernel, like any other sum.
      case IdiomKind::batch_reduce_matmul:
      case IdiomKind::other: {
        // The memory-bound kernel just before it, when they are one row chain.
        std::string chain_refusal;
        if (last && last->kind != PlannedKernelKind::fused_matmul) {
          chain_refusal = join_row_chain(*last, s);
          if (chain_refusal.empty()) break;
        }
        // The pointwise kernel just before it, over the reduction's whole domain: computed in its row loop.
        if (last && last->kind == PlannedKernelKind::pointwise && pointwise_refusal(program, *last, s).empty()) {
          last->kind = PlannedKernelKind::row_reduction;
          last->statements.push_back(s.id);
          break;
        }
        if (last && last->kind == PlannedKernelKind::fused_matmul)
          cut_before(s, "a reduction that is not a matmul is not fused into a matmul kernel yet: it starts a "
                        "memory-bound kernel, one warp or block per written element");
        else if (last && last->kind == PlannedKernelKind::pointwise)
          cut_before(s, "a reduction takes the pointwise statements before it only over its whole domain: " +
                            pointwise_refusal(program, *last, s));
        else if (last)
          cut_before(s, "it is not one row chain with the kernel before it: " + chain_refusal);
        start(PlannedKernelKind::row_reduction, s);
        plan.kernels.back().note = contraction_note;
        if (touches_integers(program, s))
          plan.kernels.back().note = "integer tensors and gathers run in memory-bound kernels (one warp or block per "
                                     "written element), never on tensor cores";
        break;
      }
      case IdiomKind::pointwise: {
        if (last && last->kind == PlannedKernelKind::fused_matmul) {
          const std::optional<std::string> why = join_matmul_kernel(*last, s);
          if (!why) break;
          cut_before(s, "the matmul kernel does not take it: " + *why);
        } else if (last && last->kind == PlannedKernelKind::pointwise) {
          const std::string why = pointwise_refusal(program, *last, s);
          if (why.empty()) {
            last->statements.push_back(s.id);
            break;
          }
          cut_before(s, why);
        } else if (last) {
          const std::string why = join_row_chain(*last, s);
          if (why.empty()) break;
          cut_before(s, "it is not one row chain with the kernel before it: " + why);
        }
        start(PlannedKernelKind::pointwise, s);
        break;
      }
    }
  }
  // (Statements no kernel takes were refused above, whatever the sizes.)
  if (!program.parameters.empty())
    throw UserError({Diagnostic{program.file, program.location.line, program.location.col,
                                fmt::format("def '{}' is not one fused kernel, and a plan of several kernels needs every "
                                            "size bound (the workspace's layout is fixed at compile time): bind {}",
                                            program.name, fmt::join(program.parameters, ", "))}});
  // Back-to-back first: it merges plain matmul kernels only; a row chain then joins the matmul
  // kernel before it (a back-to-back kernel takes none).
  merge_back_to_back(program, plan);
  fuse_row_chains_into_matmul_kernels(program, plan);
  // why attention's statements are not its one kernel: on the kernel of the first
  for (const AttentionRun& run : attention)
    if (!run.why_not.empty())
      for (PlannedKernel& kernel : plan.kernels)
        if (std::find(kernel.statements.begin(), kernel.statements.end(), run.statements.front()) != kernel.statements.end())
          kernel.note = fmt::format("{}not one attention kernel: {}", kernel.note.empty() ? "" : kernel.note + "; ",
                                    run.why_not);
  for (std::size_t k = 0; k < plan.kernels.size(); ++k) {
    plan.kernels[k].name = plan.is_single_fused_kernel() ? program.name : fmt::format("{}_k{}", program.name, k);
    if (plan.kernels[k].view) plan.kernels[k].view->name = plan.kernels[k].name;
  }
  place_temporaries(program, contraction_temporaries, plan);
  return plan;
}

Program kernel_program(const Program& program, const ProgramPlan& plan, std::size_t index) {
  PF_INTERNAL_CHECK(index < plan.kernels.size(), "no kernel " + std::to_string(index));
  const PlannedKernel& kernel = plan.kernels[index];
  if (kernel.view) return *kernel.view;
  return reduced_program(program, kernel.statements, plan.is_single_fused_kernel() ? program.name : kernel.name);
}

std::string to_string(const ProgramPlan& plan, const Program& program) {
  std::string text = fmt::format("plan of def {}: {} kernel{}", plan.def, plan.kernels.size(),
                                 plan.kernels.size() == 1 ? "" : "s");
  text += plan.temporaries.empty() ? ", no workspace\n"
                                   : fmt::format(", workspace of {} bytes\n", plan.workspace_bytes);
  for (std::size_t k = 0; k < plan.kernels.size(); ++k) {
    const PlannedKernel& kernel = plan.kernels[k];
    text += fmt::format("kernel {} {} ({})\n", k, kernel.name, to_string(kernel.kind));
    for (const std::string& id : kernel.statements)
      text += fmt::format("  {}\n", describe(*program.find_statement(id)));
    if (kernel.view) {
      text += fmt::format("  {}\n", kernel.step);
      for (const Statement& s : kernel.view->statements) text += fmt::format("  view: {}\n", print_statement_source(s));
    }
    // (an implicit GEMM's view reads the unmaterialised im2col matrix: list the def's tensors)
    const Program reduced = kernel.kind == PlannedKernelKind::implicit_gemm
                                ? reduced_program(program, kernel.statements, kernel.name)
                                : kernel_program(program, plan, k);
    std::vector<std::string> in, out;
    for (const Tensor& t : reduced.tensors) {
      const std::string where = plan.find_temporary(t.name) ? " (workspace)" : "";
      if (t.role == TensorRole::input) in.push_back(t.name + where);
      if (t.role == TensorRole::output) out.push_back(t.name + where);
    }
    text += fmt::format("  reads {}; writes {}\n", fmt::join(in, ", "), fmt::join(out, ", "));
    if (!kernel.note.empty()) text += fmt::format("  note: {}\n", kernel.note);
    if (kernel.kind == PlannedKernelKind::fused_matmul || kernel.kind == PlannedKernelKind::implicit_gemm) {
      // without a row chain in its epilogue; an implicit GEMM's view
      const Program matmuls = kernel.kind == PlannedKernelKind::implicit_gemm ? *kernel.view : matmul_part(reduced);
      const KernelPlan kernel_plan = plan_gpu_kernel(matmuls, recognize_idioms(matmuls), plan.f32_matmul);
      const auto mixed = [](const MatmulStage& mm) { return mm.operand_type == ElementType::f32 && mm.a_type != mm.b_type; };
      const bool x3 = plan.f32_matmul == F32Matmul::x3tf32;
      if (!kernel_plan.matmuls.empty() && kernel_plan.matmuls.front().operand_type == ElementType::f32 &&
          !std::all_of(kernel_plan.matmuls.begin(), kernel_plan.matmuls.end(), mixed))
        text += x3 ? "  f32 operands: tensor cores, 3xTF32 (f32_matmul=3xtf32: split precision, close to f32)\n"
                   : "  f32 operands: tensor cores, TF32 (f32_matmul=tf32: operands reduced to TF32's 11 significant "
                     "bits: rounded by mma.sync's cvt.rna, truncated by sm_90a's wgmma)\n";
      for (const MatmulStage& mm : kernel_plan.matmuls)
        if (mixed(mm))
          text += fmt::format("  mixed operands: {} is {} and {} is {}: tensor cores, {} (f32_matmul={}: 16-bit values "
                              "widened exactly, f32 ones {})\n",
                              mm.a, to_string(mm.a_type), mm.b, to_string(mm.b_type), x3 ? "3xTF32" : "TF32",
                              x3 ? "3xtf32" : "tf32",
                              x3 ? "split in two TF32 parts" : "rounded to 11 significant bits");
      for (const std::string& loop : shared_operand_loops(kernel_plan)) text += fmt::format("  shared: {}\n", loop);
    }
    if (!kernel.partition.empty()) text += fmt::format("  partition: {}\n", kernel.partition);
    if (!kernel.cut.empty()) text += fmt::format("  cut: {}\n", kernel.cut);
  }
  for (const PlanTemporary& t : plan.temporaries)
    text += fmt::format("temporary {}: {}({}), {} bytes at workspace byte {}\n", t.tensor, to_string(t.type),
                        fmt::join(t.dims, ", "), t.bytes, t.offset);
  return text;
}

}  // namespace polyfuse
