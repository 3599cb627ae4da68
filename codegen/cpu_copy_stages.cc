#include "codegen/cpu_copy_stages.h"

#include <vector>

#include "frontend/diagnostics.h"

namespace polyfuse {
namespace {

class CopyStageEmitter {
 public:
  CopyStageEmitter(const CpuPlan& plan, const CpuNames& names) : plan_(plan), names_(names) {}

  std::string run(const CpuStage& stage) const { return stage.pad ? pad_copy(stage) : permute_copy(stage); }

 private:
  std::vector<std::int64_t> strides_of(const std::string& name) const { return row_major_strides(plan_.tensor(name).shape); }
  std::string omp_for(int depth) const { return cpu_omp_for(plan_, depth); }

  // The loops of a copy stage (`stage.pad`) over the source's first `count` dimensions (one
  // parallel, collapsed loop nest when the stage is parallel), appended to `text`; each loop's
  // term of the source's and the copy's offsets. Returns the indentation inside them.
  std::string copy_loops(const CpuStage& stage, std::size_t count, std::string& text, std::vector<std::string>& from_terms,
                         std::vector<std::string>& to_terms) const {
    const std::vector<std::int64_t>& from_shape = plan_.tensor(stage.pad->from).shape;
    const std::vector<std::int64_t> from_strides = strides_of(stage.pad->from), to_strides = strides_of(stage.pad->to);
    std::string indent = "  ";
    if (count > 0 && stage.parallel) text += indent + omp_for(static_cast<int>(count));
    for (std::size_t d = 0; d < count; ++d) {
      const std::string variable = names_.variable(std::string("p").append(std::to_string(d)));
      text += indent + "for (int64_t " + variable + " = 0; " + variable + " < " + std::to_string(from_shape[d]) +
              "; ++" + variable + ")\n";
      indent += "  ";
      from_terms.push_back(variable + " * " + std::to_string(from_strides[d]));
      to_terms.push_back(variable + " * " + std::to_string(to_strides[d]));
    }
    return indent;
  }

  // A zero-padded copy of a convolution's input. The temporary's storage is zeroed when the
  // calling thread first uses it (a thread_local std::vector) and every call writes only its
  // interior: the input in chunks that are contiguous in both (the innermost padded
  // dimension's whole interior), one loop per dimension outside it.
  std::string pad_copy(const CpuStage& stage) const {
    const CpuPadCopy& pad = *stage.pad;
    if (pad.innermost_dim) return pixel_column_copy(stage);
    const std::vector<std::int64_t>& from_shape = plan_.tensor(pad.from).shape;
    const std::size_t rank = from_shape.size();
    const std::vector<std::int64_t> from_strides = strides_of(pad.from), to_strides = strides_of(pad.to);
    std::size_t innermost = 0;  // the innermost dimension with a border
    for (std::size_t d = 0; d < rank; ++d)
      if (pad.before[d] > 0 || pad.after[d] > 0) innermost = d;
    std::vector<std::string> from_terms, to_terms;
    std::int64_t to_origin = 0;
    std::string text = "  // " + stage.name + ": " + names_.tensor(pad.to) + " = " + names_.tensor(pad.from) +
                       " inside a border of zeros (its storage's, zeroed when first used)\n";
    for (std::size_t d = 0; d < rank; ++d) to_origin += pad.before[d] * to_strides[d];
    const std::string indent = copy_loops(stage, innermost, text, from_terms, to_terms);
    to_terms.push_back(std::to_string(to_origin));
    text += indent + "std::copy_n(" + names_.tensor(pad.from) + " + " + sum_text(from_terms) + ", " +
            std::to_string(from_shape[innermost] * from_strides[innermost]) + ", " + names_.tensor(pad.to) + " + " +
            sum_text(to_terms) + ");\n";
    return text;
  }

  // A convolution's input with its pixel column innermost (CpuPadCopy::innermost_dim), inside a
  // border of zeros: per index of the dimensions outside the column, the (columns x inner
  // elements) row-major slab transposed through registers (an identity Unary) into the copy,
  // where each inner element's columns are contiguous.
  std::string pixel_column_copy(const CpuStage& stage) const {
    const CpuPadCopy& pad = *stage.pad;
    const std::size_t column = *pad.innermost_dim;
    const std::vector<std::int64_t>& from_shape = plan_.tensor(pad.from).shape;
    const std::vector<std::int64_t> from_strides = strides_of(pad.from), to_strides = strides_of(pad.to);
    const std::int64_t rows = from_shape[column], cols = from_strides[column];
    const std::int64_t to_ld = to_strides[to_strides.size() - 2];  // between the inner elements' columns
    std::vector<std::string> from_terms, to_terms;
    std::int64_t to_origin = pad.before[column];
    std::string text = "  // " + stage.name + ": " + names_.tensor(pad.to) + " = " + names_.tensor(pad.from) +
                       " with its pixel column innermost, inside a border of zeros (its storage's, zeroed when first used)\n";
    const std::string object = names_.variable(stage.name + "_transpose");
    text += "  static const Unary " + object + "({.m = " + std::to_string(rows) + ", .n = " + std::to_string(cols) +
            ", .op = UnaryOp::identity,\n      .in = {Layout::row_major, " + cxx_dtype(plan_.tensor(pad.from).type) +
            ", Broadcast::matrix},\n      .out = {Layout::col_major, " + cxx_dtype(plan_.tensor(pad.to).type) +
            ", Broadcast::matrix}});\n";
    for (std::size_t d = 0; d < column; ++d) to_origin += pad.before[d] * to_strides[d];
    const std::string indent = copy_loops(stage, column, text, from_terms, to_terms);
    if (to_origin != 0) to_terms.push_back(std::to_string(to_origin));
    text += indent + object + "(" + names_.tensor(pad.from) + " + " + sum_text(from_terms) + ", " +
            names_.tensor(pad.to) + " + " + sum_text(to_terms) + ", " + std::to_string(cols) + ", " +
            std::to_string(to_ld) + ");\n";
    return text;
  }

  // A convolution's filter packed into panels (schedule/cpu_plan.h's CpuPermuteCopy): loops
  // over the panels and the indices outside c (parallel, collapsed), and for each one (c x
  // panel) copy: a Unary identity when the filter is contiguous along c (its transposition runs
  // through registers) or along k (rows copied), else element by element.
  std::string permute_copy(const CpuStage& stage) const {
    const CpuPermuteCopy& copy = *stage.permute;
    const CpuTensor& from = plan_.tensor(copy.from);
    const std::vector<std::int64_t> from_strides = strides_of(copy.from), to_strides = strides_of(copy.to);
    const std::size_t rank = copy.indices.size();  // packed order [batch.., taps.., c, k]
    PF_INTERNAL_CHECK(copy.panel > 0 && rank >= 2 && to_strides.size() == rank + 1,
                      "cpu emit: the packed filter " + copy.to + " is not in panels");
    const std::int64_t channels = from.shape[copy.from_dim[rank - 2]], outputs = from.shape[copy.from_dim[rank - 1]];
    const std::int64_t c_stride = from_strides[copy.from_dim[rank - 2]], k_stride = from_strides[copy.from_dim[rank - 1]];
    const std::int64_t panel = copy.panel, tail = outputs % panel;
    const std::string& to = names_.tensor(copy.to);
    const std::string& source = names_.tensor(copy.from);
    const std::string k0 = names_.loop_variable(copy.indices.back() + "0");
    // (the panel is the stage's column block or the whole of k: one panel, no loop over them)
    PF_INTERNAL_CHECK(outputs > panel || (outputs == panel && tail == 0), "cpu emit: a panel wider than k");
    std::vector<std::string> from_terms, to_terms;
    if (outputs > panel) {
      from_terms.push_back(k0 + " * " + std::to_string(k_stride));
      to_terms.push_back(k0 + " / " + std::to_string(panel) + " * " + std::to_string(to_strides[0]));
    }
    std::vector<std::string> loops;
    if (outputs > panel)
      loops.push_back("for (int64_t " + k0 + " = 0; " + k0 + " < " + std::to_string(outputs) + "; " + k0 + " += " +
                      std::to_string(panel) + ")");
    for (std::size_t d = 0; d + 2 < rank; ++d) {
      const std::string variable = names_.loop_variable(copy.indices[d]);
      loops.push_back("for (int64_t " + variable + " = 0; " + variable + " < " +
                      std::to_string(from.shape[copy.from_dim[d]]) + "; ++" + variable + ")");
      from_terms.push_back(variable + " * " + std::to_string(from_strides[copy.from_dim[d]]));
      to_terms.push_back(variable + " * " + std::to_string(to_strides[d + 1]));
    }
    std::string text = "  // " + stage.name + ": " + copy.source + " (" + copy.why + ")\n";
    const std::string from_pointer = source + (from_terms.empty() ? "" : " + " + sum_text(from_terms));
    const std::string to_pointer = to + (to_terms.empty() ? "" : " + " + sum_text(to_terms));
    std::string body;
    if (c_stride == 1 || k_stride == 1) {
      // in(c, j) = the filter at (c, k0 + j), out(c, j) = the panel's row c, column j
      const std::string in_layout = c_stride == 1 ? "Layout::col_major" : "Layout::row_major";
      const std::string ld_in = std::to_string(c_stride == 1 ? k_stride : c_stride);
      const auto unary = [&](const std::string& name, std::int64_t columns) {
        return "  static const Unary " + name + "({.m = " + std::to_string(channels) + ", .n = " +
               std::to_string(columns) + ", .op = UnaryOp::identity,\n      .in = {" + in_layout + ", " +
               cxx_dtype(from.type) + ", Broadcast::matrix},\n      .out = {Layout::row_major, " + cxx_dtype(from.type) +
               ", Broadcast::matrix}});\n";
      };
      const std::string full = names_.variable(stage.name + "_panel");
      const std::string last = names_.variable(stage.name + "_last_panel");
      text += unary(full, panel);
      if (tail != 0) text += unary(last, tail);
      const std::string object =
          tail == 0 ? full : "(" + k0 + " + " + std::to_string(panel) + " <= " + std::to_string(outputs) + " ? " + full + " : " + last + ")";
      body = object + "(" + from_pointer + ", " + to_pointer + ", " + ld_in + ", " + std::to_string(panel) + ");\n";
    } else {  // neither c nor k contiguous in the stored filter: element by element
      const std::string c = names_.loop_variable(copy.indices[rank - 2]), j = names_.loop_variable(copy.indices.back());
      const std::string columns = tail == 0 ? std::to_string(panel)
                                            : "std::min<int64_t>(" + std::to_string(panel) + ", " + std::to_string(outputs) + " - " + k0 + ")";
      body = "for (int64_t " + c + " = 0; " + c + " < " + std::to_string(channels) + "; ++" + c + ")\n";
      body += "  for (int64_t " + j + " = 0; " + j + " < " + columns + "; ++" + j + ")\n";
      body += "    (" + to_pointer + ")[" + c + " * " + std::to_string(panel) + " + " + j + "] = (" + from_pointer + ")[" +
              c + " * " + std::to_string(c_stride) + " + " + j + " * " + std::to_string(k_stride) + "];\n";
    }
    std::string indent = "  ";
    if (!loops.empty() && stage.parallel) text += indent + omp_for(static_cast<int>(loops.size()));
    for (const std::string& loop : loops) {
      text += indent + loop + "\n";
      indent += "  ";
    }
    std::string lines;
    for (std::size_t at = 0, next; at < body.size(); at = next + 1) {
      next = body.find('\n', at);
      lines += indent + body.substr(at, next - at) + "\n";
    }
    return text + lines;
  }

  const CpuPlan& plan_;
  const CpuNames& names_;
};

}  // namespace

std::string emit_cpu_copy_stage(const CpuPlan& plan, const CpuStage& stage, const CpuNames& names) {
  return CopyStageEmitter(plan, names).run(stage);
}

}  // namespace polyfuse
