#include "codegen/im2col_gather.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <limits>

#include "codegen/mma_sync_loop.h"
#include "frontend/diagnostics.h"
#include "schedule/cpu_conv.h"
#include "schedule/implicit_gemm.h"
#include "schedule/plan_from_program.h"

namespace polyfuse {


std::int64_t product(const Im2colGather& g, const std::vector<std::string>& group) {
  std::int64_t p = 1;
  for (const std::string& index : group) p *= g.extent.at(index);
  return p;
}

// "n = row / 63, h = row / 7 % 9, w = row % 7": `group`'s indices from the flat `flat`
// (the group's first index outermost).
std::string decompose(const Im2colGather& g, const std::vector<std::string>& group, const std::string& flat) {
  std::vector<std::string> parts;
  std::int64_t inner = product(g, group);
  for (std::size_t i = 0; i < group.size(); ++i) {
    const std::int64_t extent = g.extent.at(group[i]);
    inner /= extent;
    std::string value = flat;
    if (inner > 1) value += fmt::format(" / {}", inner);
    if (i > 0) value += fmt::format(" % {}", extent);
    parts.push_back(fmt::format("{} = {}", g.variable.at(group[i]), value));
  }
  return fmt::format("const int {};", fmt::join(parts, ", "));
}

// The subscript as C text over the index variables ("h + r - 1", "2 * h + r - 1").
static std::string subscript_text(const Im2colGather& g, const AffineIndex& subscript) {
  std::string text;
  for (const auto& [index, coefficient] : subscript.terms) {
    const std::string& v = g.variable.at(index);
    const std::int64_t c = coefficient < 0 ? -coefficient : coefficient;
    const std::string term = c == 1 ? v : fmt::format("{} * {}", c, v);
    text += text.empty() ? (coefficient < 0 ? "-" + term : term) : (coefficient < 0 ? " - " : " + ") + term;
  }
  if (subscript.constant != 0 || text.empty())
    text += text.empty() ? std::to_string(subscript.constant)
                         : fmt::format(" {} {}", subscript.constant < 0 ? '-' : '+',
                                       subscript.constant < 0 ? -subscript.constant : subscript.constant);
  return text;
}

// `subscript`'s terms over the indices of `group` (and its constant when `constant`).
static AffineIndex part(const AffineIndex& subscript, const std::vector<std::string>& group, bool constant) {
  AffineIndex p;
  for (const auto& [index, coefficient] : subscript.terms)
    if (std::find(group.begin(), group.end(), index) != group.end()) p.add(index, coefficient);
  if (constant) p.constant = subscript.constant;
  return p;
}

// The gather's three functions of A's chunk (row, col..col+7): `<I>_row(row)` decomposes a row
// (an output pixel) once, before the k-loop, into its input coordinates at tap and channel 0 and
// their offset in I; `<I>_tap(col)` a column (a filter tap and channel) once per k-step, into its
// share of the coordinates and of the offset; `<I>_at(row, tap)` adds them: the chunk's address,
// or nullptr past the GEMM's end and where a coordinate leaves I (padding).
std::string gather_functions(const Im2colGather& g, const std::string& type, int per_chunk) {
  const std::string& in = g.input.tensor;
  const std::int64_t m = product(g, g.grouping.m), k = product(g, g.grouping.k);
  const std::size_t dims = g.input.subscripts.size();
  // each dimension's row part (the output pixel's indices and the constant) and column part (the taps')
  std::vector<AffineIndex> row_part, tap_part;
  std::vector<std::string> row_indices = g.grouping.m;  // the output pixel's, and the block's group
  row_indices.insert(row_indices.end(), g.grouping.conv_groups.begin(), g.grouping.conv_groups.end());
  for (const AffineIndex& subscript : g.input.subscripts) {
    row_part.push_back(part(subscript, row_indices, true));
    tap_part.push_back(part(subscript, g.grouping.k, false));
    PF_INTERNAL_CHECK(!subscript.is_gather() && row_part.back().terms.size() + tap_part.back().terms.size() ==
                                                    subscript.terms.size(),
                      std::string("an implicit GEMM whose input subscript ") + subscript.to_string() + " reads an output channel");
  }
  // the guarded coordinates (a padded dimension): named in<d>, fields of both parts
  std::vector<std::size_t> guarded;
  std::vector<std::string> coordinate(dims), guards;
  for (std::size_t d = 0; d < dims; ++d) {
    if (g.pad_before[d] == 0 && g.pad_after[d] == 0) continue;
    std::string c = fmt::format("in{}", d);
    while (g.taken.count(c)) c += "_";
    coordinate[d] = c;
    guarded.push_back(d);
    if (g.pad_before[d] > 0) guards.push_back(fmt::format("{} < 0", c));
    if (g.pad_after[d] > 0) guards.push_back(fmt::format("{} >= {}", c, g.input_dims[d]));
  }
  std::vector<std::string> fields, row_values, tap_fields, tap_values;
  for (const std::size_t d : guarded) {
    fields.push_back(coordinate[d]);
    row_values.push_back(fmt::format("{} = {}", coordinate[d], subscript_text(g, row_part[d])));
    if (!tap_part[d].terms.empty()) {
      tap_fields.push_back(coordinate[d]);
      tap_values.push_back(subscript_text(g, tap_part[d]));
    }
  }
  // the row's offset, ((x0 * D1 + x1) * D2 + x2) * D3 + x3 (Horner), and the tap's, a sum of strides
  std::vector<std::int64_t> stride(dims, 1);
  for (std::size_t d = dims - 1; d-- > 0;) stride[d] = stride[d + 1] * g.input_dims[d + 1];
  std::string offset;
  AffineIndex tap_offset;
  std::int64_t tap_bound = 0;
  for (std::size_t d = 0; d < dims; ++d) {
    for (const auto& [index, coefficient] : tap_part[d].terms) {
      tap_offset.add(index, coefficient * stride[d]);
      tap_bound += (coefficient < 0 ? -coefficient : coefficient) * stride[d] * (g.extent.at(index) - 1);
    }
    const AffineIndex& r = row_part[d];
    const std::string x = !coordinate[d].empty() ? coordinate[d]
                          : r.terms.size() + (r.constant != 0) > 1 ? "(" + subscript_text(g, r) + ")"
                                                                   : subscript_text(g, r);
    if (d == 0) offset = "(long long)" + x;
    else
      offset = fmt::format("{}{} * {}{}{}", d + 1 < dims ? "(" : "", offset, g.input_dims[d], x == "0" ? "" : " + " + x,
                           d + 1 < dims ? ")" : "");
  }
  const std::string offset_type = tap_bound > std::numeric_limits<int>::max() ? "long long" : "int";
  const std::string row_type = in + "_Row", tap_type = in + "_Tap";
  const auto zeros = [](std::size_t n) { return fmt::format("{}", fmt::join(std::vector<std::string>(n, "0"), ", ")); };
  std::string text;
  text += fmt::format("// A ({} x {}: M = ({}), K = ({})) is {}'s im2col matrix, gathered here and never in memory: "
                      "row m is\n// the output pixel ({}), column kk the filter tap and channel ({}); the element "
                      "is {}({}).\n",
                      m, k, fmt::join(g.grouping.m, ", "), fmt::join(g.grouping.k, ", "), in, fmt::join(g.grouping.m, ", "),
                      fmt::join(g.grouping.k, ", "), in,
                      fmt::join([&] {
                        std::vector<std::string> s;
                        for (const AffineIndex& a : g.input.subscripts) s.push_back(a.to_string());
                        return s;
                      }(),
                                ", "));
  text += fmt::format("// A thread copies the same rows at every k-step: {}_row(row) decomposes one once, before the "
                      "k-loop (its input\n// coordinates at tap and channel 0 and their offset in {}); {}_tap(col) a "
                      "column once per k-step (its share\n// of the coordinates and of the offset); {}_at(row, tap): "
                      "{}, or nullptr for zeros.\n",
                      in, in, in, in,
                      per_chunk == 1 ? "the address of that element (the channels are not whole 16-byte chunks)"
                                     : fmt::format("the address of the chunk's {} channels", per_chunk));
  const std::string row_fields = fields.empty() ? "" : fmt::format("int {}; ", fmt::join(fields, ", "));
  text += fmt::format("struct {} {{ long long offset; {}bool inside; }};\n", row_type, row_fields);
  text += fmt::format("const auto {}_row = [&](int row) -> {} {{\n", in, row_type);
  std::string body = fmt::format("if (row >= {}) return {{0, {}false}};  // past the GEMM's end\n", m,
                                 fields.empty() ? "" : zeros(fields.size()) + ", ");
  body += decompose(g, g.grouping.m, "row") + "\n";
  if (!row_values.empty())
    body += fmt::format("const int {};  // the input's coordinates at tap and channel 0\n", fmt::join(row_values, ", "));
  body += fmt::format("return {{{}, {}true}};\n", offset, fields.empty() ? "" : fmt::format("{}, ", fmt::join(fields, ", ")));
  text += indented(body, 2) + "};\n";
  text += fmt::format("struct {} {{ {} offset; {}bool inside; }};\n", tap_type, offset_type,
                      tap_fields.empty() ? "" : fmt::format("int {}; ", fmt::join(tap_fields, ", ")));
  text += fmt::format("const auto {}_tap = [&](int col) -> {} {{\n", in, tap_type);
  body = fmt::format("if (col >= {}) return {{0, {}false}};  // past the GEMM's end\n", k,
                     tap_fields.empty() ? "" : zeros(tap_fields.size()) + ", ");
  body += decompose(g, g.grouping.k, "col") + "\n";
  body += fmt::format("return {{{}, {}true}};\n", subscript_text(g, tap_offset),
                      tap_values.empty() ? "" : fmt::format("{}, ", fmt::join(tap_values, ", ")));
  text += indented(body, 2) + "};\n";
  text += fmt::format("const auto {}_at = [&](const {}& row, const {}& tap) -> const {}* {{\n", in, row_type, tap_type,
                      type);
  body = "if (!row.inside || !tap.inside) return nullptr;  // past the GEMM's end\n";
  if (!guards.empty()) {
    std::vector<std::string> sums;
    for (const std::size_t d : guarded)
      sums.push_back(tap_part[d].terms.empty() ? fmt::format("{0} = row.{0}", coordinate[d])
                                               : fmt::format("{0} = row.{0} + tap.{0}", coordinate[d]));
    body += fmt::format("const int {};  // the input's coordinates\n", fmt::join(sums, ", "));
    body += fmt::format("if ({}) return nullptr;  // outside {}: zero padding\n", fmt::join(guards, " || "), in);
  }
  body += fmt::format("return {} + row.offset + tap.offset;\n", in);
  text += indented(body, 2) + "};\n";
  return text;
}

// The C variable of each index: its name, unless that is a name the gather function uses
// (the input's coordinates are named in<d>, their names then made unique against `g.taken`).
static void name_index_variables(const Program& program, Im2colGather& g, const std::vector<std::string>& kernel_names) {
  g.taken = {"row", "col", "tap", "nullptr"};
  g.taken.insert(kernel_names.begin(), kernel_names.end());
  for (const Tensor& t : program.tensors)
    for (const char* suffix : {"", "_Row", "_Tap", "_row", "_tap", "_at", "_rows"}) g.taken.insert(t.name + suffix);
  for (const IterationIndex& index : g.statement.indices) {
    std::string v = index.name;
    while (g.taken.count(v) || (v.starts_with("in") && v.size() > 2 &&
                                std::all_of(v.begin() + 2, v.end(), [](char ch) { return ch >= '0' && ch <= '9'; })))
      v += "_";
    g.variable[index.name] = v;
  }
  for (const auto& entry : g.variable) g.taken.insert(entry.second);
}


Im2colGather im2col_gather(const Program& program, const Statement& conv, const std::vector<std::string>& kernel_names) {
  std::string why;
  const std::optional<ConvOverTaps> taps = conv_over_taps(program, conv, &why);
  PF_INTERNAL_CHECK(taps.has_value(), "an implicit GEMM that is not a convolution: " + why);
  Im2colGather g{conv, conv.reads[static_cast<std::size_t>(taps->input_read)], implicit_gemm_grouping(program, conv), {}, {},
                 taps->pad_before, taps->pad_after, {}, {}};
  name_index_variables(program, g, kernel_names);
  PF_INTERNAL_CHECK(g.grouping.is_gemm, "an implicit GEMM the grouping refuses: " + g.grouping.why_not);
  for (const IterationIndex& index : conv.indices) g.extent[index.name] = bound_size(program, index.extent).value;
  for (const Size& dim : program.find_tensor(g.input.tensor)->dims) g.input_dims.push_back(bound_size(program, dim).value);
  return g;
}

}  // namespace polyfuse
