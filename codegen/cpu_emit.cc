#include "codegen/cpu_emit.h"

#include <algorithm>
#include <set>
#include <sstream>

#include "codegen/cpu_block.h"
#include "codegen/cpu_contraction.h"
#include "codegen/cpu_copy_stages.h"
#include "codegen/cpu_helpers.h"
#include "codegen/cpu_loop_nest.h"
#include "codegen/cpu_names.h"
#include "frontend/diagnostics.h"
#include "schedule/cpu_first_touch.h"
#include "schedule/cpu_inline.h"
#include "schedule/cpu_outline.h"
#include "schedule/cpu_parallel_stages.h"

namespace polyfuse {
namespace {

// Text of `text` with every line prefixed by `prefix`.
std::string prefix_lines(const std::string& text, const std::string& prefix) {
  std::string out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) out += prefix + line + "\n";
  return out;
}

std::string join(const std::vector<std::string>& items, const std::string& separator) {
  std::string text;
  for (std::size_t i = 0; i < items.size(); ++i) text += (i ? separator : "") + items[i];
  return text;
}

std::string statement_list(const CpuStage& stage) {
  std::vector<std::string> ids;
  for (const CpuMatmul& matmul : stage.matmuls) ids.push_back(matmul.statement);
  for (const CpuPointwise& pointwise : stage.pointwise) ids.push_back(pointwise.statement);
  return join(ids, ", ");
}

bool is_conv_stage(const CpuStage& stage) {
  return std::any_of(stage.matmuls.begin(), stage.matmuls.end(), [](const CpuMatmul& matmul) { return matmul.conv; });
}

// One block dimension of a stage in the entry function.
struct BlockLoop {
  std::string variable;     // loop variable, "" when the dimension is absent
  std::int64_t extent = 1;  // of the index
  std::int64_t block = 1;   // block size (1 for batch loops)
  bool loops() const { return !variable.empty() && extent > block; }
  std::int64_t tail() const { return extent % block; }
};

// Whether a convolution of `plan` skips border taps (schedule/cpu_conv_border.h).
bool has_border_tap(const CpuPlan& plan) {
  for (const CpuStage& stage : plan.stages)
    for (const CpuMatmul& matmul : stage.matmuls)
      if (matmul.conv)
        for (const CpuConvTap& tap : matmul.conv->taps)
          if (tap.border) return true;
  return false;
}

bool has_constant_operand(const CpuPlan& plan) {
  for (const CpuStage& stage : plan.stages)
    for (const CpuMatmul& matmul : stage.matmuls)
      if (matmul.b_constant) return true;
  return false;
}

class Emitter {
 public:
  Emitter(const CpuPlan& plan, const Program& program) : plan_(plan), program_(program), names_(plan) {}

  std::string run() {
    std::string blocks, calls;
    for (std::size_t i = 0; i < plan_.stages.size(); ++i) {
      if (const std::optional<std::size_t> chain = plan_.stages[i].row_chain) {
        emit_row_chain(plan_.row_chains.at(*chain), blocks, calls);
        i = plan_.row_chains.at(*chain).last;
        continue;
      }
      emit_stage(plan_.stages[i], blocks, calls);
    }
    const std::string entry_text = entry(calls);  // decides needs_vector_ and needs_memory_
    const bool loop_nests = std::any_of(plan_.stages.begin(), plan_.stages.end(),
                                        [](const CpuStage& stage) { return stage.loop_nest.has_value(); });
    const bool pads = std::any_of(plan_.stages.begin(), plan_.stages.end(), [](const CpuStage& stage) {
      return stage.pad.has_value() || stage.permute.has_value();
    });
    const bool constants = has_constant_operand(plan_);
    const bool border = has_border_tap(plan_);
    return header() + (pads ? "#include <algorithm>\n" : "") + (constants ? "#include <atomic>\n" : "") +
           (loop_nests ? "#include <cmath>\n" : "") +
           "#include <cstdint>\n" + (needs_memory_ ? "#include <memory>\n" : "") +
           (needs_vector_ ? "#include <vector>\n" : "") +
           (needs_thread_share_ ? "\n#if defined(_OPENMP)\n#include <omp.h>\n#endif\n" : "") +
           "\n#include \"polyfuse/cpu/brgemm.h\"\n#include \"polyfuse/cpu/elementwise.h\"\n" +
           (needs_alignment_ || needs_kept_ ? "#include \"polyfuse/cpu/memory.h\"\n" : "") +
           (loop_nests || border ? "#include \"polyfuse/cpu/reduce.h\"\n" : "") +
           (loop_nests ? "#include \"polyfuse/cpu/types.h\"\n" : "") + "\n"
           "namespace {\n\nusing namespace polyfuse::cpu;\n\n" +
           (needs_thread_share_ ? cpu_thread_share_helper() : "") +
           (constants ? cpu_packed_from_helper() : "") + (needs_filter_panel_ ? cpu_filter_panel_helper(border) : "") +
           (needs_constant_panels_ ? cpu_constant_panels_helper(border) : "") + (border ? cpu_finite_outside_helper() : "") + blocks +
           "}  // namespace\n\n" +
           entry_text;
  }

 private:
  // The entry's parameters; a tensor no statement touches keeps its place, unnamed.
  std::string signature() const {
    std::set<std::string> touched;
    for (const CpuStage& stage : plan_.stages) {
      for (const CpuMatmul& matmul : stage.matmuls)
        touched.insert({matmul.a.tensor, matmul.b.tensor, matmul.c.tensor});
      for (const CpuPointwise& pointwise : stage.pointwise) {
        touched.insert(pointwise.write.tensor);
        for (const CpuAccess& read : pointwise.reads) touched.insert(read.tensor);
      }
      if (stage.pad) touched.insert({stage.pad->from, stage.pad->to});
      if (stage.permute) touched.insert({stage.permute->from, stage.permute->to});
      if (stage.loop_nest) {
        touched.insert(stage.loop_nest->write);
        touched.insert(stage.loop_nest->reads.begin(), stage.loop_nest->reads.end());
      }
    }
    std::vector<std::string> parameters;
    for (const CpuTensor& tensor : plan_.tensors) {
      if (tensor.storage != CpuStorage::parameter) continue;
      const std::string& name = names_.tensor(tensor.name);
      parameters.push_back(std::string(tensor.role == TensorRole::input ? "const " : "") +
                           cxx_element_type(tensor.type) + "* " +
                           (touched.count(tensor.name) ? name : "/*" + name + ": unused*/"));
    }
    return join(parameters, ", ");
  }

  std::string header() const {
    const std::string entry_name = cpu_entry_name(plan_.name);
    return "// Generated by polyfuse for the CPU target: def " + plan_.name +
           ". Do not edit.\n//\n// Entry point: " + entry_name + "(" + signature() +
           ")\n// Buffers in signature order, row-major and contiguous at the sizes below; f16 and"
           "\n// bf16 elements are bit patterns in uint16_t. " + entry_name +
           "_buffers takes the same\n// pointers as an array.\n" + cpu_threads_line(plan_.threads) + "\n" +
           cpu_build_comment() + "//\n" +
           prefix_lines(to_string(plan_), "// ") + "\n";
  }

  // A statement's plain loop nest over the whole tensors, in the entry function at `indent`
  // (`range`: its outer loop over a row chain's block).
  std::string loop_nest(const CpuLoopNest& nest, bool parallel, const std::string& indent = "  ",
                        const OuterLoopRange& range = {}) const {
    const Statement* statement = nullptr;
    for (const Statement& s : program_.statements)
      if (s.id == nest.statement) statement = &s;
    PF_INTERNAL_CHECK(statement != nullptr, "cpu emit: no statement " + nest.statement);
    LoopNestNames names;
    names.tensor = [this](const std::string& tensor) { return names_.tensor(tensor); };
    names.stored_type = [this](const std::string& tensor) { return plan_.tensor(tensor).type; };
    names.index = [this](const std::string& index) { return names_.loop_variable(index); };
    names.accumulator = names_.variable("acc");
    names.variable = [this](const std::string& name) { return names_.variable(name); };
    if (!range.begin.empty())  // a row chain's temporaries hold its block's rows from range.begin on
      names.row_origin = [this, origin = range.begin](const std::string& tensor) {
        return plan_.tensor(tensor).storage == CpuStorage::chain_local ? origin : std::string();
      };
    return indent + "{  // " + nest.why + "\n" +
           emit_statement_loop_nest(program_, *statement, names, indent + "  ", parallel ? omp_for(1) : "", range) +
           indent + "}\n";
  }

  // The OpenMP pragma of `depth` nested parallel loops (collapsed), with the plan's thread count;
  // `in_region`: the loops of an enclosing parallel region (omp_parallel).
  std::string omp_for(int depth, bool in_region = false) const { return cpu_omp_for(plan_, depth, in_region); }
  std::string omp_parallel() const { return cpu_omp_parallel(plan_); }

  // One loop over a row chain's blocks (schedule/cpu_row_chains.h), each block through the
  // chain's stages in turn: loop nests over the block's rows, blocked stages on its rows.
  void emit_row_chain(const CpuRowChain& chain, std::string& blocks, std::string& calls) {
    // The block loop's variables: `m0` after the chain's first row index, unless a stage of the
    // chain names one of its own loops so (a stage whose rows are another index of the same
    // extent, whose columns are m: random program 31678 declared `int64_t i0` twice).
    std::set<std::string> taken;
    for (std::size_t i = chain.first; i <= chain.last; ++i) {
      const CpuStage& stage = plan_.stages[i];
      if (stage.loop_nest) {
        for (const Statement& statement : program_.statements)
          if (statement.id == stage.loop_nest->statement)
            for (const IterationIndex& index : statement.indices) taken.insert(names_.loop_variable(index.name));
        continue;
      }
      // (its row loop's variable is the chain's: only its columns' is its own)
      if (!stage.m_name.empty() && !stage.n_name.empty()) taken.insert(names_.loop_variable(stage.n_name + "0"));
    }
    std::string first = names_.loop_variable(chain.index + "0");
    while (taken.count(first) || taken.count(first + "_end")) first = names_.variable(first + "_");
    const std::string end = names_.variable(first + "_end");
    const std::string rows = std::to_string(chain.rows), extent = std::to_string(chain.extent);
    std::vector<std::string> statements;
    for (std::size_t i = chain.first; i <= chain.last; ++i)
      statements.push_back(plan_.stages[i].loop_nest ? plan_.stages[i].loop_nest->statement
                                                     : statement_list(plan_.stages[i]));
    calls += "  // " + plan_.stages[chain.first].name + ".." + plan_.stages[chain.last].name + ": a row chain (" +
             join(statements, ", ") + "), each block of " + rows + " rows through every stage in turn" +
             (chain.parallel ? std::string() : " (one thread: " + std::to_string(chain.flops) +
                                                   " flops, below the parallel threshold)") + "\n";
    if (chain.parallel) calls += "  " + omp_for(1);
    calls += "  for (int64_t " + first + " = 0; " + first + " < " + extent + "; " + first + " += " + rows + ") {\n";
    for (const std::string& name : chain.temporaries) {  // each thread's block of them, from row `first` on
      const CpuTensor& tensor = plan_.tensor(name);
      std::int64_t row = 1;
      for (std::size_t d = 1; d < tensor.shape.size(); ++d) row *= tensor.shape[d];
      // (the stages use a pointer, computed once: cpu_helpers.h's kept)
      const std::string storage = names_.variable(names_.tensor(name) + "_storage");
      calls += "    alignas(64) static thread_local " + cxx_element_type(tensor.type) + " " + storage + "[" + rows + " * " +
               std::to_string(row) + "];  // rows " + first + ".. of " + name + "\n";
      calls += "    " + cxx_element_type(tensor.type) + "* const " + names_.tensor(name) + " = kept(" + storage + ");\n";
      needs_kept_ = true;
    }
    const bool nests = std::any_of(plan_.stages.begin() + std::ptrdiff_t(chain.first),
                                   plan_.stages.begin() + std::ptrdiff_t(chain.last) + 1,
                                   [](const CpuStage& stage) { return stage.loop_nest.has_value(); });
    if (nests)
      calls += "    const int64_t " + end + " = " + first + " + " + rows + " < " + extent + " ? " + first + " + " + rows +
               " : " + extent + ";\n";
    for (std::size_t i = chain.first; i <= chain.last; ++i) {
      const CpuStage& stage = plan_.stages[i];
      if (stage.loop_nest) {
        calls += "    // " + stage.name + ": " + stage.loop_nest->statement + ", a loop nest over the block's rows\n" +
                 loop_nest(*stage.loop_nest, false, "    ", OuterLoopRange{first, end});
        continue;
      }
      const BlockLoop block_rows{first, chain.extent, chain.rows};  // (its temporaries from row `first` on)
      emit_stage(stage, blocks, calls, &block_rows);
    }
    calls += "  }\n";
  }

  // `chain_rows` set: a blocked stage of a row chain, on the rows of the chain's block (that
  // loop's variable), its column loop (if any) inside it.
  void emit_stage(const CpuStage& stage, std::string& blocks, std::string& calls, const BlockLoop* chain_rows = nullptr) {
    if (stage.pad || stage.permute) {
      calls += emit_cpu_copy_stage(plan_, stage, names_);
      return;
    }
    if (stage.loop_nest) {
      calls += "  // " + stage.name + ": " + stage.loop_nest->statement + ", a loop nest\n" + loop_nest(*stage.loop_nest, stage.parallel);
      return;
    }
    CpuStageVariables variables;
    std::vector<BlockLoop> loops;
    for (std::size_t i = 0; i < stage.batch_names.size(); ++i) {
      variables.batch.push_back(names_.loop_variable(stage.batch_names[i]));
      loops.push_back({variables.batch.back(), stage.batch_extents[i], 1});
    }
    if (chain_rows) variables.chain_row = chain_rows->variable;
    if (!stage.m_name.empty()) variables.m0 = chain_rows ? chain_rows->variable : names_.loop_variable(stage.m_name + "0");
    if (!stage.n_name.empty())  // (a chain's stage without m: its n is the chain's row)
      variables.n0 = chain_rows && stage.m_name.empty() ? chain_rows->variable : names_.loop_variable(stage.n_name + "0");
    const BlockLoop rows{variables.m0, stage.m_extent, std::min(stage.blocking.mc, stage.m_extent)};
    const BlockLoop cols{variables.n0, stage.n_extent, std::min(stage.blocking.nc, stage.n_extent)};
    if (!variables.m0.empty()) loops.push_back(rows);
    if (!variables.n0.empty()) loops.push_back(cols);

    // B packed once per call and shared by the row blocks (the GotoBLAS order), where it can be.
    if (cpu_stage_shares_b(stage)) {
      variables.packed_b = names_.variable(stage.name + "_" + names_.tensor(stage.matmuls.front().b.tensor) + "_packed");
      variables.block_rows = rows.block;
      variables.block_cols = cols.block;
      variables.n_extent = stage.n_extent;
    }
    // A convolution packing its filter per block: each thread's panel buffer and state.
    const CpuMatmul* per_block = nullptr;
    for (const CpuMatmul& matmul : stage.matmuls)
      if (matmul.conv && matmul.conv->panel_per_block) per_block = &matmul;
    if (per_block) variables.filter_panel = names_.variable(names_.tensor(per_block->b.tensor) + "_panel");
    const CpuBlockCode code = emit_cpu_block(plan_, stage, names_, variables);
    needs_kept_ = needs_kept_ || code.thread_buffers;
    const std::string function = stage.name + "_block";
    blocks += "// " + stage.name + " (" + statement_list(stage) +
              "): one rows x cols block of the output at (" +
              join(loop_variables(loops), ", ") + ").\n";
    blocks += "template <int64_t rows, int64_t cols>\nvoid " + function + "(" +
              join(code.parameters, ", ") + ") {\n" + code.body + "}\n\n";

    // The block loops of the entry function: only dimensions with more than one block. A
    // convolution's run output-channel block outermost: consecutive blocks (one thread's
    // share) reuse one slice of the filter from L2 (schedule/cpu_plan.cc chooses nc for it).
    std::vector<std::string> arguments = code.tensors;
    int depth = 0;
    for (const BlockLoop& loop : loops) {
      arguments.push_back(loop.loops() ? loop.variable : "0");
      depth += loop.loops();
    }
    if (!code.packed_b_argument.empty()) arguments.push_back(code.packed_b_argument);
    if (per_block) arguments.push_back(variables.filter_panel);
    if (is_conv_stage(stage) && !variables.n0.empty()) std::rotate(loops.begin(), loops.end() - 1, loops.end());
    if (chain_rows) {  // in the chain's loop over row blocks: the column loop, then the call
      std::string text = "    // " + stage.name + ": " + statement_list(stage) + " on the block's rows\n";
      std::string indent = "    ";
      for (const BlockLoop& loop : loops) {
        if (!loop.loops() || loop.variable == chain_rows->variable) continue;
        text += indent + "for (int64_t " + loop.variable + " = 0; " + loop.variable + " < " + std::to_string(loop.extent) +
                "; " + loop.variable + " += " + std::to_string(loop.block) + ")\n";
        indent += "  ";
      }
      calls += text + dispatch(function, arguments, rows, cols, indent);
      return;
    }
    std::string text = "  // " + stage.name + ": " + statement_list(stage) +
                       (depth > 0 && !stage.parallel ? " (one thread: " + std::to_string(stage.flops) +
                                                           " flops, below the parallel threshold)"
                                                     : std::string()) +
                       "\n" + code.entry;
    // A shared B is packed inside the blocks' region, each thread its share: packed before the
    // region, the other threads would wait for it (0.4 ms of a 1024^3 GEMM's 8 ms on 2 threads).
    const bool pack_in_region = !code.pack_b.call.empty() && depth > 0 && stage.parallel;
    if (!code.pack_b.call.empty() && !pack_in_region) text += pack_text(code.pack_b, "  ", "");
    std::string indent = "  ";
    if (per_block) {  // the loops inside a parallel region whose threads each own a panel
      const CpuTensor& filter = plan_.tensor(per_block->b.tensor);
      const std::string type = cxx_element_type(filter.type);
      std::int64_t elements = per_block->k * per_block->conv->filter_panel;
      for (const CpuConvTap& tap : per_block->conv->taps) elements *= tap.extent;
      const std::string storage = variables.filter_panel + "_storage";
      needs_vector_ = needs_alignment_ = true;
      const bool region = depth > 0 && stage.parallel;
      if (region) text += indent + omp_parallel();
      text += indent + "{\n";
      indent += "  ";
      const std::string padding = " + " + std::to_string(64 / size_in_bytes(filter.type));
      if (per_block->b_constant) {  // every panel, each with what it was packed from
        needs_constant_panels_ = true;
        const std::int64_t panels = (stage.n_extent + per_block->conv->filter_panel - 1) / per_block->conv->filter_panel;
        const std::string from = variables.filter_panel + "_from";
        text += indent + "// this thread's panels of " + names_.tensor(filter.name) +
                " (a constant input), each packed on its first use and kept between calls\n";
        text += indent + "static thread_local std::vector<" + type + "> " + storage + "(" + std::to_string(panels) +
                " * " + std::to_string(elements) + padding + ");\n";
        text += indent + "static thread_local std::vector<PackedFrom> " + from + "(" + std::to_string(panels) + ");\n";
        const bool border = std::any_of(per_block->conv->taps.begin(), per_block->conv->taps.end(),
                                        [](const CpuConvTap& tap) { return tap.border.has_value(); });
        const std::string finite = variables.filter_panel + "_finite_taps";
        if (border)
          text += indent + "static thread_local std::vector<std::uint32_t> " + finite + "(" + std::to_string(panels) + ");\n";
        text += indent + "ConstantPanels<" + type + "> " + variables.filter_panel + "{line_aligned(" + storage +
                ".data()), " + from + ".data()" + (border ? ", " + finite + ".data()" : "") + "};\n";
      } else {
        needs_filter_panel_ = true;
        text += indent + "// this thread's panel of " + names_.tensor(filter.name) +
                " (B of the blocks at hand), kept between calls; which panel it holds, for this call\n";
        text += indent + "static thread_local std::vector<" + type + "> " + storage + "(" + std::to_string(elements) +
                padding + ");\n";
        text += indent + "FilterPanel<" + type + "> " + variables.filter_panel + "{line_aligned(" + storage + ".data())};\n";
      }
      if (region) text += indent + omp_for(depth, /*in_region=*/true);
    } else if (pack_in_region) {
      needs_thread_share_ = true;
      text += indent + omp_parallel() + indent + "{\n";
      indent += "  ";
      text += indent + "// each thread packs its share of B's panels; every block reads them all\n" +
              pack_text(code.pack_b, indent, ", omp_get_thread_num(), omp_get_num_threads()") + indent +
              "#pragma omp barrier\n" + indent + omp_for(depth, /*in_region=*/true);
    } else if (depth > 0 && stage.parallel) {
      text += indent + omp_for(depth);
    }
    for (const BlockLoop& loop : loops) {
      if (!loop.loops()) continue;
      text += indent + "for (int64_t " + loop.variable + " = 0; " + loop.variable + " < " +
              std::to_string(loop.extent) + "; " +
              (loop.block == 1 ? "++" + loop.variable : loop.variable + " += " + std::to_string(loop.block)) +
              ")\n";
      indent += "  ";
    }
    text += dispatch(function, arguments, rows, cols, indent);
    if (per_block || pack_in_region) text += "  }\n";
    calls += text;
  }

  // The packing of a shared B (CpuSharedPack) at `indent`, each call ending with `share`.
  static std::string pack_text(const CpuSharedPack& pack, std::string indent, const std::string& share) {
    std::string text;
    if (!pack.condition.empty()) {
      text += indent + "if (" + pack.condition + ")\n";
      indent += "  ";
    }
    if (!pack.loop.empty()) {
      text += indent + pack.loop + "\n";
      indent += "  ";
    }
    return text + indent + pack.call + share + ");\n";
  }

  static std::vector<std::string> loop_variables(const std::vector<BlockLoop>& loops) {
    std::vector<std::string> names;
    for (const BlockLoop& loop : loops) names.push_back(loop.variable);
    return names;
  }

  // The call of the block function for the block shape at hand: full blocks, and the
  // smaller ones at the ends of m and n that are not multiples of the block.
  static std::string dispatch(const std::string& function, const std::vector<std::string>& arguments,
                              const BlockLoop& rows, const BlockLoop& cols, const std::string& indent) {
    // (Appending avoids GCC 12's false -Wrestrict on "literal" + std::string&&.)
    std::string args = "(";
    args += join(arguments, ", ");
    args += ");\n";
    const auto call = [&](std::int64_t r, std::int64_t c) {
      return function + "<" + std::to_string(r) + ", " + std::to_string(c) + ">" + args;
    };
    const auto full = [](const BlockLoop& loop) {
      return loop.variable + " + " + std::to_string(loop.block) + " <= " + std::to_string(loop.extent);
    };
    const bool row_tail = rows.loops() && rows.tail() != 0;
    const bool col_tail = cols.loops() && cols.tail() != 0;
    if (!row_tail && !col_tail) return indent + call(rows.block, cols.block);
    std::string text = indent + "{\n";
    const std::string inner = indent + "  ";
    if (row_tail && col_tail) {
      text += inner + "if (" + full(rows) + " && " + full(cols) + ") " + call(rows.block, cols.block);
      text += inner + "else if (" + full(rows) + ") " + call(rows.block, cols.tail());
      text += inner + "else if (" + full(cols) + ") " + call(rows.tail(), cols.block);
      text += inner + "else " + call(rows.tail(), cols.tail());
    } else if (row_tail) {
      text += inner + "if (" + full(rows) + ") " + call(rows.block, cols.block);
      text += inner + "else " + call(rows.tail(), cols.block);
    } else {
      text += inner + "if (" + full(cols) + ") " + call(rows.block, cols.block);
      text += inner + "else " + call(rows.block, cols.tail());
    }
    return text + indent + "}\n";
  }

  // A zero-padded copy's destination: its copy stage writes the interior, never the border.
  bool is_padded_copy(const CpuTensor& tensor) const {
    return std::any_of(plan_.stages.begin(), plan_.stages.end(),
                       [&](const CpuStage& stage) { return stage.pad && stage.pad->to == tensor.name; });
  }

  bool is_copy_result(const CpuTensor& tensor) const {
    return std::any_of(plan_.stages.begin(), plan_.stages.end(),
                       [&](const CpuStage& stage) { return stage.permute && stage.permute->to == tensor.name; });
  }

  std::string entry(const std::string& calls) {
    const std::string name = cpu_entry_name(plan_.name);
    std::string text = "extern \"C\" void " + name + "(" + signature() + ") {\n";
    bool any = false;
    for (const CpuTensor& tensor : plan_.tensors) {
      if (tensor.storage != CpuStorage::full_temporary) continue;
      if (!any) text += "  // temporaries read by more than one stage\n";
      any = true;
      std::int64_t count = 1;
      for (std::int64_t extent : tensor.shape) count *= extent;
      const std::string& id = names_.tensor(tensor.name);
      const std::string type = cxx_element_type(tensor.type);
      // Written before it is read (a reordering copy's destination, whose rows' padding columns
      // are never read; a matmul's result): no zeroing pass.
      const bool written_whole = first_touch_writes_all(plan_, tensor);
      // One cache line longer, used from its first line boundary (line_aligned): the BRGEMM's
      // 64-byte loads of a packed panel's rows never straddle two lines.
      const std::string length = std::to_string(count) + " + " + std::to_string(64 / size_in_bytes(tensor.type));
      needs_alignment_ = true;
      if (written_whole) {
        needs_memory_ = true;
        text += "  std::unique_ptr<" + type + "[]> " + id + "_storage(new " + type + "[" + length +
                "]);  // not zeroed: " + (is_copy_result(tensor) ? "the copy writes every element read\n"
                                                                   : "its first stage writes every element\n");
        text += "  " + type + "* const " + id + " = line_aligned(" + id + "_storage.get());\n";
        continue;
      }
      needs_vector_ = true;
      if (is_padded_copy(tensor)) {
        // Zeroing megabytes on every call cost as much as the copy (ResNet-50's stride-2 3x3 at
        // batch 2: 3.3 MB): each calling thread keeps its own, zeroed when first used.
        text += "  // the border stays zero: zeroed once per calling thread, every call writes the interior\n";
        text += "  static thread_local std::vector<" + type + "> " + id + "_storage(" + length + ");\n";
        text += "  " + type + "* const " + id + " = line_aligned(" + id + "_storage.data());\n";
        continue;
      }
      text += "  std::vector<" + type + "> " + id + "_storage(" + length + ");\n";
      text += "  " + type + "* const " + id + " = line_aligned(" + id + "_storage.data());\n";
    }
    text += calls + "}\n\n";
    // The array form for loaders.
    std::vector<std::string> arguments;
    int index = 0;
    for (const CpuTensor& tensor : plan_.tensors) {
      if (tensor.storage != CpuStorage::parameter) continue;
      arguments.push_back("static_cast<" + std::string(tensor.role == TensorRole::input ? "const " : "") +
                          cxx_element_type(tensor.type) + "*>(buffers[" + std::to_string(index++) + "])");
    }
    text += "extern \"C\" void " + name + "_buffers(void* const* buffers) {\n  " + name + "(" +
            join(arguments, ", ") + ");\n}\n";
    if (has_constant_operand(plan_))
      text += "\n// The constant inputs' values changed behind the same pointers: their packed copies are\n"
              "// made again on the next call (by every thread).\n"
              "extern \"C\" void " + name + "_forget_constants() {\n"
              "  constants_generation.fetch_add(1, std::memory_order_acq_rel);\n}\n";
    return text;
  }

  const CpuPlan& plan_;
  const Program& program_;
  CpuNames names_;
  bool needs_vector_ = false;
  bool needs_thread_share_ = false;
  bool needs_memory_ = false;
  bool needs_alignment_ = false;
  bool needs_kept_ = false;  // per-thread buffers (cpu_helpers.h's kept)
  bool needs_filter_panel_ = false;
  bool needs_constant_panels_ = false;
};

}  // namespace

std::string cpu_entry_name(const std::string& def) { return "polyfuse_" + def; }

std::string emit_cpu(const CpuPlan& plan, const Program& program) { return Emitter(plan, program).run(); }

Program cpu_program(const Program& program, const CpuScheduleOptions& options) {
  const Program inlined = options.inline_temporaries ? inline_cheap_temporaries(program) : program;
  return options.outline_transcendental_terms ? outline_transcendental_terms(inlined) : inlined;
}

std::string emit_cpu(const Program& source, const CpuScheduleOptions& options) {
  const Program program = cpu_program(source, options);
  if (is_cpu_contraction(program) && program.parameters.empty()) return emit_cpu_contraction(program, options);
  if (needs_cpu_loop_nest(program, recognize_idioms(program)) || has_contraction_beside_other_statements(program))
    return emit_cpu_loop_nest(program, options);
  return emit_cpu(plan_cpu(program, options), program);
}

}  // namespace polyfuse
