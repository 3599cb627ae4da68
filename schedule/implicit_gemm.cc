#include "schedule/implicit_gemm.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "schedule/cpu_conv.h"
#include "schedule/plan_from_program.h"

namespace polyfuse {
namespace {

constexpr std::int64_t max_pixels = (std::int64_t{1} << 31) - 128;  // M: row0 + a tile stays an int

ContractionGrouping refused(const std::string& why) {
  ContractionGrouping g;
  g.why_not = why;
  return g;
}

// The extent of the convolution's input channel index.
std::int64_t channels(const Program& program, const Statement& statement, const ConvOverTaps& conv) {
  for (const IterationIndex& index : statement.indices)
    if (index.name == conv.channel_in) return bound_size(program, index.extent).value;
  return 0;
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
  for (const std::string& index : conv->batch)
    if (std::find(filter.indices.begin(), filter.indices.end(), index) != filter.indices.end())
      return refused(fmt::format("the filter reads the output index {} (a grouped convolution)", index));

  ContractionGrouping g;
  for (const std::string& index : statement.write.indices)
    (index == conv->channel_out ? g.n : g.m).push_back(index);
  for (const std::string& index : filter.indices)
    if (index != conv->channel_out) g.k.push_back(index);
  if (g.k.back() != conv->channel_in)
    return refused(fmt::format("the filter's channel {} is not its innermost reduction index (a 16-byte chunk of "
                               "K would span taps)",
                               conv->channel_in));
  if (filter.indices.front() == conv->channel_out) g.b_column_major = true;
  else if (filter.indices.back() != conv->channel_out)
    return refused(fmt::format("the filter's output channel {} is neither its first nor its last dimension",
                               conv->channel_out));
  std::int64_t pixels = 1;
  for (const std::string& index : g.m)
    for (const IterationIndex& i : statement.indices)
      if (i.name == index) pixels = std::min<std::int64_t>(pixels * bound_size(program, i.extent).value, max_pixels + 1);
  if (pixels > max_pixels)
    return refused(fmt::format("more than {} output pixels (the kernel's GEMM rows are 32-bit)", max_pixels));
  g.a_read = conv->input_read;
  g.b_read = conv->filter_read;
  g.a_gathered = true;
  g.is_gemm = true;
  return g;
}

}  // namespace polyfuse
