#include "schedule/implicit_gemm.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "schedule/cpu_conv.h"
#include "schedule/plan_from_program.h"

namespace polyfuse {
namespace {

constexpr std::int64_t max_pixels = (std::int64_t{1} << 31) - 128;  // M: row0 + a tile stays an int
constexpr std::int64_t max_groups = 65535;                           // the grid's z

ContractionGrouping refused(const std::string& why) {
  ContractionGrouping g;
  g.why_not = why;
  return g;
}

std::int64_t extent_of(const Program& program, const Statement& statement, const std::string& name) {
  for (const IterationIndex& index : statement.indices)
    if (index.name == name) return bound_size(program, index.extent).value;
  return 0;
}

// The extent of the convolution's input channel index.
std::int64_t channels(const Program& program, const Statement& statement, const ConvOverTaps& conv) {
  return extent_of(program, statement, conv.channel_in);
}

}  // namespace

bool implicit_gemm_by_element(const Program& program, const Statement& statement) {
  const std::optional<ConvOverTaps> conv = conv_over_taps(program, statement, nullptr);
  if (!conv) return false;
  const ElementType type = program.find_tensor(statement.reads[static_cast<std::size_t>(conv->input_read)].tensor)->type;
  return channels(program, statement, *conv) % (16 / size_in_bytes(type)) != 0;
}

ContractionGrouping implicit_gemm_grouping(const Program& program, const Statement& statement) {
  std::string why;
  const std::optional<ConvOverTaps> conv = conv_over_taps(program, statement, &why);
  if (!conv) return refused("it is not a convolution over filter taps: " + why);
  if (statement.kind != StatementKind::reduce_init)
    return refused("it adds to the output's values (`+=`); the implicit GEMM starts from zero (`+=!`)");
  const Access& input = statement.reads[static_cast<std::size_t>(conv->input_read)];
  const Access& filter = statement.reads[static_cast<std::size_t>(conv->filter_read)];
  for (const Access* operand : {&input, &filter})
    if (program.find_tensor(operand->tensor)->role == TensorRole::temporary)
      return refused(fmt::format("{} is computed in the def (an earlier kernel's result, in the plan's f32 workspace); "
                                 "the implicit GEMM reads the def's inputs only",
                                 operand->tensor));
  const ElementType type = program.find_tensor(input.tensor)->type;
  if (type != ElementType::f16 && type != ElementType::bf16 && type != ElementType::f32)
    return refused(fmt::format("its operands are {}; the implicit GEMM takes f16, bf16 and f32 (TF32)", to_string(type)));
  if (const ElementType filter_type = program.find_tensor(filter.tensor)->type; filter_type != type)
    return refused(fmt::format("{} is {} and {} is {}; the implicit GEMM takes operands of one type", input.tensor,
                               to_string(type), filter.tensor, to_string(filter_type)));
  // A grouped convolution: the output indices the filter reads (g) lead N = (g, k), each group a GEMM of its own.
  ContractionGrouping g;
  for (const std::string& index : conv->batch)
    if (std::find(filter.indices.begin(), filter.indices.end(), index) != filter.indices.end())
      g.conv_groups.push_back(index);
  std::vector<std::string> n = g.conv_groups;
  n.push_back(conv->channel_out);
  const std::vector<std::string>& written = statement.write.indices;
  if (!std::equal(n.begin(), n.end(), written.end() - static_cast<std::ptrdiff_t>(n.size())))
    return refused(fmt::format("the filter reads the output indices ({}); a grouped convolution's group indices must "
                               "be the output's last but its channel {}",
                               fmt::join(g.conv_groups, ", "), conv->channel_out));
  if (!g.conv_groups.empty() && channels(program, statement, *conv) == 1)
    return refused(fmt::format("it is a depthwise convolution (one input channel {} per group): memory-bound, and each "
                               "group's GEMM (K = the taps alone) too narrow for tensor cores",
                               conv->channel_in));
  std::int64_t group_count = 1;
  for (const std::string& index : g.conv_groups) group_count *= extent_of(program, statement, index);
  if (group_count > max_groups)
    return refused(fmt::format("more than {} groups (the kernel's grid z)", max_groups));
  for (const std::string& index : written) (std::find(n.begin(), n.end(), index) != n.end() ? g.n : g.m).push_back(index);
  for (const std::string& index : filter.indices)
    if (std::find(n.begin(), n.end(), index) == n.end()) g.k.push_back(index);
  if (g.k.back() != conv->channel_in)
    return refused(fmt::format("the filter's channel {} is not its innermost reduction index (a 16-byte chunk of "
                               "K would span taps)",
                               conv->channel_in));
  const auto n_at = [&](std::size_t first) {
    return std::equal(n.begin(), n.end(), filter.indices.begin() + static_cast<std::ptrdiff_t>(first));
  };
  if (n_at(0)) g.b_column_major = true;
  else if (!n_at(filter.indices.size() - n.size()))
    return refused(n.size() == 1 ? fmt::format("the filter's output channel {} is neither its first nor its last "
                                               "dimension",
                                               conv->channel_out)
                                 : fmt::format("the filter's group and output channels ({}) are neither its first "
                                               "nor its last dimensions, in the output's order",
                                               fmt::join(n, ", ")));
  std::int64_t pixels = 1;
  for (const std::string& index : g.m)
    pixels = std::min<std::int64_t>(pixels * extent_of(program, statement, index), max_pixels + 1);
  if (pixels > max_pixels)
    return refused(fmt::format("more than {} output pixels (the kernel's GEMM rows are 32-bit)", max_pixels));
  g.a_read = conv->input_read;
  g.b_read = conv->filter_read;
  g.a_gathered = true;
  g.is_gemm = true;
  return g;
}

}  // namespace polyfuse
