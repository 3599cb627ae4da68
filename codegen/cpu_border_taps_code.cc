#include "codegen/cpu_border_taps_code.h"

#include "frontend/diagnostics.h"

namespace polyfuse {
namespace {

std::string line(const std::string& text) { return "  " + text + "\n"; }

// `coefficient * variable` as C++ ("h", "2 * h", "-h").
std::string term(std::int64_t coefficient, const std::string& variable) {
  if (coefficient == 1) return variable;
  if (coefficient == -1) return "-" + variable;
  return std::to_string(coefficient) + " * " + variable;
}

// The input index the tap reads at the block's batch index `b` and tap `t` (C++ text).
std::string input_index(const CpuTapBorder& border, const std::string& b, const std::string& t) {
  std::string text = term(border.batch_coefficient, b) + " + " + term(border.tap_coefficient, t);
  if (border.constant > 0) text += " + " + std::to_string(border.constant);
  if (border.constant < 0) text += " - " + std::to_string(-border.constant);
  return text;
}

}  // namespace

CpuBorderRange emit_border_range(const CpuConvTap& tap, const std::string& batch_variable,
                                 const std::string& finite_taps, const CpuNames& names, std::int64_t fewest) {
  PF_INTERNAL_CHECK(tap.border.has_value(), "cpu block: border taps of a tap without a border");
  const CpuTapBorder& border = *tap.border;
  const std::string t = names.loop_variable(tap.index);
  const std::string extent = std::to_string(tap.extent);
  CpuBorderRange range;
  range.first = names.variable(t + "_first");
  range.last = names.variable(t + "_last");
  const std::string &first = range.first, &last = range.last;
  range.lines += line("// " + t + "'s taps [" + first + ", " + last + ") read the input proper (its index " +
                      input_index(border, batch_variable, t) + " in [0, " + std::to_string(border.input_extent) +
                      ")); the others only the zero");
  range.lines += line("// border, skipped when this thread's panel is finite there (the same sums: schedule/cpu_conv_border.h)");
  range.lines += line("int64_t " + first + " = 0, " + last + " = " + extent + ";");
  range.lines += line("while (" + first + " < " + last + " && " + input_index(border, batch_variable, first) +
                      " < 0) ++" + first + ";");
  range.lines += line("while (" + last + " > " + first + " && " +
                      input_index(border, batch_variable, "(" + last + " - 1)") + " >= " +
                      std::to_string(border.input_extent) + ") --" + last + ";");
  const std::string too_few = fewest > 1 ? last + " - " + first + " < " + std::to_string(fewest) : first + " == " + last;
  range.lines += line("if (" + too_few + " || !finite_outside(" + finite_taps + ", " + first + ", " + last + ", " +
                      extent + ")) " + first + " = 0, " + last + " = " + extent + ";");
  return range;
}

CpuBorderTapsCode emit_border_taps(const CpuConvTap& tap, const std::string& batch_variable, const std::string& kernel,
                                   const std::function<std::string(std::int64_t)>& config,
                                   const std::string& finite_taps,
                                   const std::function<std::string(const std::string&)>& object_name,
                                   const CpuNames& names) {
  const CpuBorderRange range = emit_border_range(tap, batch_variable, finite_taps, names);
  CpuBorderTapsCode code;
  code.lines = range.lines;
  std::string choice = kernel;
  for (auto count = tap.border->counts.rbegin(); count != tap.border->counts.rend(); ++count) {
    const std::string name = object_name("taps_" + std::to_string(*count));
    code.lines += line("static const Brgemm " + name + "(" + config(*count) + ");");
    choice = range.last + " - " + range.first + " == " + std::to_string(*count) + " ? " + name + " : " + choice;
  }
  code.kernel = object_name("kernel");
  code.lines += line("const Brgemm& " + code.kernel + " = " + choice + ";");
  code.first = range.first;
  return code;
}

std::string finite_taps_check(const CpuConvTap& tap, const std::string& data, ElementType type,
                              const std::string& finite_taps, const std::string& indent, const CpuNames& names) {
  PF_INTERNAL_CHECK(tap.border.has_value(), "cpu block: a finiteness check of a tap without a border");
  const CpuTapBorder& border = *tap.border;
  const std::string t = names.loop_variable(tap.index);
  const std::string slice = std::to_string(tap.b_stride);
  std::string outside;
  if (border.inner_first > 0) outside = t + " < " + std::to_string(border.inner_first);
  if (border.inner_last < tap.extent)
    outside += (outside.empty() ? "" : " || ") + t + " >= " + std::to_string(border.inner_last);
  std::string text = indent + finite_taps + " = 0;  // which of " + t + "'s taps a block may leave out are finite\n";
  text += indent + "for (int64_t " + t + " = 0; " + t + " < " + std::to_string(tap.extent) + "; ++" + t + ")\n";
  const std::string dtype = type == ElementType::f32 ? "" : cxx_dtype(type) + ", ";
  text += indent + "  if ((" + outside + ") && all_finite(" + data + " + " + t + " * " + slice + ", " + dtype + slice + ")) " +
          finite_taps + " |= std::uint32_t{1} << " + t + ";\n";
  return text;
}

}  // namespace polyfuse
