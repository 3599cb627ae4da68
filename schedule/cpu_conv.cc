#include "schedule/cpu_conv.h"

#include <algorithm>
#include <map>
#include <set>

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

}  // namespace polyfuse
