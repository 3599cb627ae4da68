#include "codegen/cpu_filter_panel_code.h"

#include <vector>

#include "codegen/cpu_border_taps_code.h"
#include "frontend/diagnostics.h"

namespace polyfuse {
namespace {

// One statement of the block function (indented by two spaces).
std::string line(const std::string& text) { return "  " + text + "\n"; }

}  // namespace

CpuFilterPanelCode emit_filter_panel_pack(const CpuPlan& plan, const CpuMatmul& matmul, const CpuNames& names,
                                          const CpuStageVariables& variables, const std::string& kernel,
                                          const std::string& origin) {
  CpuFilterPanelCode code;
  const CpuConvTaps& conv = *matmul.conv;
  const CpuTensor& filter = plan.tensor(matmul.b.tensor);
  const std::vector<std::int64_t> strides = row_major_strides(filter.shape);
  const std::int64_t c_stride = access_stride(matmul.b, strides, CpuDim::k),
                     k_stride = access_stride(matmul.b, strides, CpuDim::n);
  PF_INTERNAL_CHECK(c_stride == 1 || k_stride == 1,
                    "cpu block: a panel copy of a filter contiguous along neither c nor k");
  const std::string& panel = variables.filter_panel;
  const std::string at = names.variable(names.tensor(filter.name) + "_origin");
  const std::string& filter_name = names.tensor(filter.name);
  code.lines += line(
      "// B: the block's panel of " + filter_name + " (taps x " + std::to_string(matmul.k) + " channels x cols, rows " +
      std::to_string(conv.filter_panel) + " apart), packed by this thread unless it holds it" +
      (matmul.b_constant ? " from this or an earlier call (" + filter_name + " is a constant input)" : ""));
  code.lines += line("const int64_t " + at + " = " + (origin.empty() ? std::string("0") : origin.substr(3)) + ";");
  std::string data = panel + ".data";
  std::int64_t panel_elements = matmul.k * conv.filter_panel;
  for (const CpuConvTap& tap : conv.taps) panel_elements *= tap.extent;
  const std::string index = names.variable(filter_name + "_index");
  if (matmul.b_constant) {
    data = names.variable(filter_name + "_block_panel");
    code.lines += line(
        "const int64_t " + index + " = " +
        (variables.n0.empty() ? std::string("0") : variables.n0 + " / " + std::to_string(conv.filter_panel)) + ";");
    code.lines += line(cxx_element_type(filter.type) + "* const " + data + " = " + panel + ".data + " + index + " * " +
                       std::to_string(panel_elements) + ";");
    code.lines += line("if (!" + panel + ".from[" + index + "].holds(" + filter_name + ")) {");
  } else {
    code.lines += line("if (" + panel + ".origin != " + at + ") {");
  }
  code.lines += line("  static const Unary " + kernel + "({.m = " + std::to_string(matmul.k) +
                     ", .n = cols, .op = UnaryOp::identity,");
  code.lines += line("      .in = {" + std::string(c_stride == 1 ? "Layout::col_major" : "Layout::row_major") + ", " +
                     cxx_dtype(filter.type) + ", Broadcast::matrix},");
  code.lines += line("      .out = {Layout::row_major, " + cxx_dtype(filter.type) + ", Broadcast::matrix}});");
  std::string indent = "  ";
  std::vector<std::string> from_terms{at}, to_terms;
  for (const CpuConvTap& tap : conv.taps) {
    const std::string variable = names.loop_variable(tap.index);
    code.lines += line(indent + "for (int64_t " + variable + " = 0; " + variable + " < " + std::to_string(tap.extent) +
                       "; ++" + variable + ")");
    indent += "  ";
    from_terms.push_back(variable + " * " + std::to_string(tap.filter_stride));
    to_terms.push_back(variable + " * " + std::to_string(tap.b_stride));
  }
  code.lines +=
      line(indent + kernel + "(" + filter_name + " + " + sum_text(from_terms) + ", " + data +
           (to_terms.empty() ? "" : " + " + sum_text(to_terms)) + ", " +
           std::to_string(c_stride == 1 ? k_stride : c_stride) + ", " + std::to_string(conv.filter_panel) + ");");
  for (const CpuConvTap& tap : conv.taps)
    if (tap.border) {
      code.finite_taps = panel + ".finite_taps" + (matmul.b_constant ? "[" + index + "]" : "");
      code.lines += finite_taps_check(tap, data, filter.type, code.finite_taps, "    ", names);
    }
  if (matmul.b_constant)
    code.lines += line("  " + panel + ".from[" + index + "] = PackedFrom::of(" + filter_name + ");");
  else
    code.lines += line("  " + panel + ".origin = " + at + ";");
  code.lines += line("}");
  code.data = data;
  return code;
}

}  // namespace polyfuse
