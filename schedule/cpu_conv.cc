#include "schedule/cpu_conv.h"

#include <algorithm>
#include <map>
#include <set>

#include "schedule/cpu_plan.h"
#include "schedule/plan_from_program.h"

namespace polyfuse {
namespace {

bool reads_index(const Access& access, const std::string& index) {
  for (const AffineIndex& subscript : access.subscripts)
    if (subscript.coefficient(index) != 0) return true;
  return std::find(access.indices.begin(), access.indices.end(), index) != access.indices.end();
}

bool all_plain(const Access& access) {
  return std::none_of(access.indices.begin(), access.indices.end(), [](const std::string& i) { return i.empty(); });
}

std::optional<ConvOverTaps> refuse(std::string* why, const std::string& reason) {
  if (why) *why = reason;
  return std::nullopt;
}

}  // namespace

bool ConvOverTaps::padded() const {
  return std::any_of(pad_before.begin(), pad_before.end(), [](std::int64_t p) { return p > 0; }) ||
         std::any_of(pad_after.begin(), pad_after.end(), [](std::int64_t p) { return p > 0; });
}

std::optional<ConvOverTaps> conv_over_taps(const Program& program, const Statement& statement, std::string* why) {
  if (!statement.is_reduction() || statement.reduction != ReductionOp::sum)
    return refuse(why, "not a sum (`+=!` or `+=`)");
  const Expr& e = statement.expr;
  if (statement.reads.size() != 2 || e.kind != ExprKind::binary || e.op != BinaryOp::mul ||
      e.operands[0].kind != ExprKind::read || e.operands[1].kind != ExprKind::read)
    return refuse(why, "not the product of two reads");
  ConvOverTaps conv;
  for (int i = 0; i < 2; ++i) {
    const Access& read = statement.reads[static_cast<std::size_t>(i)];
    if (read.is_index || std::any_of(read.subscripts.begin(), read.subscripts.end(),
                                     [](const AffineIndex& s) { return s.is_gather(); }))
      return refuse(why, "a read through an index tensor");
    (all_plain(read) ? conv.filter_read : conv.input_read) = i;
  }
  if (conv.input_read < 0 || conv.filter_read < 0)
    return refuse(why, "not one read with plain subscripts (the filter) and one with index expressions (the input)");
  const Access& input = statement.reads[static_cast<std::size_t>(conv.input_read)];
  const Access& filter = statement.reads[static_cast<std::size_t>(conv.filter_read)];
  const Tensor& in_tensor = *program.find_tensor(input.tensor);
  const Tensor& f_tensor = *program.find_tensor(filter.tensor);
  if (in_tensor.type != f_tensor.type || is_integer(in_tensor.type))
    return refuse(why, "the input and the filter are not of one floating-point type");

  // c: the input's last subscript, a plain reduction index read nowhere else in the input.
  const std::vector<AffineIndex>& subscripts = input.subscripts;
  if (subscripts.size() != input.indices.size()) return refuse(why, "the input's subscripts are not recorded");
  if (std::set<std::string>(filter.indices.begin(), filter.indices.end()).size() != filter.indices.size())
    return refuse(why, "the filter reads one index in two dimensions");
  conv.channel_in = subscripts.back().plain_index();
  const auto is_reduction = [&](const std::string& index) {
    for (const IterationIndex& i : statement.indices)
      if (i.name == index) return i.is_reduction;
    return false;
  };
  if (conv.channel_in.empty() || !is_reduction(conv.channel_in) ||
      std::find(filter.indices.begin(), filter.indices.end(), conv.channel_in) == filter.indices.end())
    return refuse(why, "the input's last subscript is not a channel index the filter also reads");
  for (std::size_t d = 0; d + 1 < subscripts.size(); ++d)
    if (subscripts[d].coefficient(conv.channel_in) != 0)
      return refuse(why, "the channel index appears in another subscript of the input");

  // The output channel: the written tensor's last index, read by the filter only.
  const std::vector<std::string>& written = statement.write.indices;
  if (written.size() < 2) return refuse(why, "the written tensor has fewer than two dimensions (columns and channels)");
  conv.channel_out = written.back();
  if (reads_index(input, conv.channel_out) || !reads_index(filter, conv.channel_out))
    return refuse(why, "the written tensor's last index is not an output channel (read by the filter only)");
  // The output column: the innermost other written index the input reads and the filter does not.
  for (std::size_t i = written.size() - 1; i-- > 0;)
    if (reads_index(input, written[i]) && !reads_index(filter, written[i])) {
      conv.column = written[i];
      break;
    }
  if (conv.column.empty()) return refuse(why, "no output column (a written index only the input reads)");
  for (const std::string& index : written)
    if (index != conv.column && index != conv.channel_out) {
      if (!reads_index(input, index) && !reads_index(filter, index))
        return refuse(why, "the written index " + index + " is read by neither operand");
      conv.batch.push_back(index);
    }
  for (const IterationIndex& index : statement.indices) {
    if (!index.is_reduction || index.name == conv.channel_in) continue;
    if (!reads_index(filter, index.name)) return refuse(why, "the tap " + index.name + " is not a filter subscript");
    conv.taps.push_back(index.name);
  }

  // Padding: the range of each input subscript over the (box) domain.
  std::map<std::string, std::int64_t> extent;
  for (const IterationIndex& index : statement.indices) {
    const Size size = bound_size(program, index.extent);
    if (size.is_symbolic()) return refuse(why, "an unbound size");
    extent[index.name] = size.value;
  }
  for (std::size_t d = 0; d < subscripts.size(); ++d) {
    std::int64_t low = subscripts[d].constant, high = subscripts[d].constant;
    for (const auto& [index, coefficient] : subscripts[d].terms) {
      const std::int64_t last = coefficient * (extent.at(index) - 1);
      (last < 0 ? low : high) += last;
    }
    const Size size = bound_size(program, in_tensor.dims[d]);
    if (size.is_symbolic()) return refuse(why, "an unbound size");
    conv.pad_before.push_back(std::max<std::int64_t>(0, -low));
    conv.pad_after.push_back(std::max<std::int64_t>(0, high - (size.value - 1)));
  }
  if (conv.padded() && input.outside_value.value_or(0.0) != 0.0)
    return refuse(why, "the value read outside the input is not zero (the padded copy holds zeros)");
  if (why) why->clear();
  return conv;
}

std::optional<std::size_t> pixels_in_vectors_dim(const ConvOverTaps& conv, const Access& input,
                                                 const std::map<std::string, std::int64_t>& extent, ElementType input_type,
                                                 ElementType output_type, bool closed) {
  if (!closed || input_type != ElementType::f32 || output_type != ElementType::f32) return std::nullopt;
  if (extent.at(conv.channel_out) >= 16 || extent.at(conv.column) < 16) return std::nullopt;
  std::optional<std::size_t> column_dim;
  for (std::size_t d = 0; d < input.subscripts.size(); ++d) {
    const std::int64_t coefficient = input.subscripts[d].coefficient(conv.column);
    if (coefficient == 0) continue;
    if (coefficient != 1 || column_dim) return std::nullopt;
    column_dim = d;
  }
  if (!column_dim) return std::nullopt;
  for (std::size_t d = *column_dim + 1; d < input.subscripts.size(); ++d)
    if (conv.pad_before[d] > 0 || conv.pad_after[d] > 0) return std::nullopt;
  return column_dim;
}

ConvInputLayout conv_input_layout(const ConvOverTaps& conv, const std::vector<std::int64_t>& input_shape,
                                  ElementType type, std::optional<std::size_t> pixels_dim) {
  ConvInputLayout layout;
  layout.pad_after = conv.pad_after;
  const std::int64_t element_bytes = type == ElementType::f32 ? 4 : 2;
  const std::int64_t line = 64 / element_bytes;
  const std::int64_t channels = input_shape.back();
  if (conv.padded() && !pixels_dim && channels * element_bytes >= 1024) {
    const std::int64_t lines = (channels + layout.pad_after.back() + line - 1) / line;
    layout.pad_after.back() = (lines % 2 == 0 ? lines + 1 : lines) * line - channels;
  }
  std::vector<std::int64_t> padded = input_shape;
  for (std::size_t d = 0; d < padded.size(); ++d) padded[d] += conv.pad_before[d] + layout.pad_after[d];
  layout.copy_shape = padded;
  layout.strides = row_major_strides(padded);
  if (pixels_dim) {
    const std::size_t moved = *pixels_dim;
    layout.copy_shape.erase(layout.copy_shape.begin() + static_cast<std::ptrdiff_t>(moved));
    layout.copy_shape.push_back(padded[moved]);
    const std::vector<std::int64_t> copy_strides = row_major_strides(layout.copy_shape);
    for (std::size_t d = 0; d < padded.size(); ++d) layout.strides[d] = d == moved ? 1 : copy_strides[d < moved ? d : d - 1];
  }
  return layout;
}

}  // namespace polyfuse
