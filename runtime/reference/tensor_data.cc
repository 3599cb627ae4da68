#include "runtime/reference/tensor_data.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "frontend/diagnostics.h"
#include "runtime/reference/element_rounding.h"

namespace polyfuse::reference {

std::int64_t bound_extent(const Program& program, const Size& size) {
  if (!size.is_symbolic()) return size.value;
  const auto found = program.size_bindings.find(size.symbol);
  if (found == program.size_bindings.end()) {
    throw UserError({Diagnostic{program.file, program.location.line, program.location.col,
                                "size " + quote_name(size.symbol) + " of def " +
                                    quote_name(program.name) +
                                    " is not bound; running a program needs every size "
                                    "(bind it with `sizes` " + size.symbol + "=VALUE)"}});
  }
  return found->second;
}

std::vector<std::int64_t> bound_shape(const Program& program, const Tensor& tensor) {
  std::vector<std::int64_t> shape;
  shape.reserve(tensor.dims.size());
  for (const Size& dim : tensor.dims) shape.push_back(bound_extent(program, dim));
  return shape;
}

std::int64_t element_count(const Program& program, const Tensor& tensor) {
  std::int64_t count = 1;
  for (std::int64_t extent : bound_shape(program, tensor)) count *= extent;
  return count;
}

std::vector<std::int64_t> checked_element_counts(const Program& program, const TensorData& tensors,
                                                 const std::string& who) {
  // Sizes first: an unbound size is the user's error, whatever buffers were passed.
  std::vector<std::int64_t> counts;
  for (const Tensor& tensor : program.tensors) counts.push_back(element_count(program, tensor));
  for (std::size_t i = 0; i < program.tensors.size(); ++i) {
    const Tensor& tensor = program.tensors[i];
    if (tensor.role == TensorRole::temporary) continue;
    const auto found = tensors.find(tensor.name);
    if (found == tensors.end())
      throw std::invalid_argument(who + ": no buffer for " + std::string(to_string(tensor.role)) + " '" +
                                  tensor.name + "'");
    if (static_cast<std::int64_t>(found->second.size()) != counts[i])
      throw std::invalid_argument(who + ": buffer of '" + tensor.name + "' has " +
                                  std::to_string(found->second.size()) + " elements, expected " +
                                  std::to_string(counts[i]));
  }
  return counts;
}

namespace {

// SplitMix64: portable and fast.
std::uint64_t next_random(std::uint64_t& state) {
  state += 0x9e3779b97f4a7c15ull;
  std::uint64_t z = state;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// The values an integer tensor gets: below the smallest extent it indexes (gathers), else below 4.
std::int64_t integer_limit(const Program& program, const Tensor& tensor) {
  std::int64_t limit = 0;
  for (const Statement& statement : program.statements)
    for (const Access& read : statement.reads)
      for (std::size_t dim = 0; dim < read.subscripts.size(); ++dim) {
        const AffineIndex& subscript = read.subscripts[dim];
        if (!subscript.is_gather() || statement.reads.at(static_cast<std::size_t>(subscript.gather)).tensor != tensor.name)
          continue;
        const std::int64_t extent = bound_extent(program, program.find_tensor(read.tensor)->dims[dim]);
        limit = limit == 0 ? extent : std::min(limit, extent);
      }
  return limit == 0 ? 4 : limit;
}

// Throws UserError unless `range` suits `name`: a floating-point input or output of `program`,
// low < high, both finite and within the type's finite values.
void check_range(const Program& program, const std::string& name, const ValueRange& range) {
  const Tensor* tensor = program.find_tensor(name);
  const std::string where = fmt::format("input range of '{}' ({}:{}): ", name, range.low, range.high);
  auto refuse = [&](const std::string& rule) {
    throw UserError({Diagnostic{program.file, program.location.line, program.location.col, where + rule}});
  };
  if (tensor == nullptr || tensor->role == TensorRole::temporary) {
    std::vector<std::string> names;
    for (const Tensor& t : program.tensors)
      if (t.role != TensorRole::temporary && !is_integer(t.type)) names.push_back(t.name);
    refuse(fmt::format("def '{}' has no input or output of that name (its floating-point tensors: {})", program.name,
                       fmt::join(names, ", ")));
  }
  if (is_integer(tensor->type))
    refuse(fmt::format("'{}' is {}: integer tensors get integers below the extent they index", name,
                       to_string(tensor->type)));
  if (!std::isfinite(range.low) || !std::isfinite(range.high) || !(range.low < range.high))
    refuse("the range must be LOW:HIGH with finite LOW < HIGH");
  const double largest = tensor->type == ElementType::f16    ? 65504.0
                         : tensor->type == ElementType::bf16 ? 0x1.fep127
                         : is_fp8(tensor->type) ? round_to(tensor->type, std::numeric_limits<float>::max())  // saturates
                                                : std::numeric_limits<float>::max();
  if (std::fabs(range.low) > largest || std::fabs(range.high) > largest)
    refuse(fmt::format("{} holds finite values up to {:g} in magnitude", to_string(tensor->type), largest));
}

}  // namespace

std::vector<float> random_values(std::int64_t count, ElementType type, std::uint64_t seed, ValueRange range) {
  std::vector<float> values(static_cast<std::size_t>(count));
  std::uint64_t state = seed;
  const bool standard = range.low == -1 && range.high == 1;
  for (float& value : values) {
    // The top 24 bits give a uniform f32 in [0, 1).
    const float unit = static_cast<float>(next_random(state) >> 40) * (1.0f / 16777216.0f);
    // (The default range in f32 arithmetic: the values every earlier run drew.)
    value = round_to(type, standard ? 2.0f * unit - 1.0f
                                    : static_cast<float>(range.low + (range.high - range.low) * unit));
  }
  return values;
}

std::vector<float> random_integers(std::int64_t count, std::int64_t limit, std::uint64_t seed) {
  std::vector<float> values(static_cast<std::size_t>(count));
  std::uint64_t state = seed;
  for (float& value : values) value = static_cast<float>(next_random(state) % static_cast<std::uint64_t>(limit));
  return values;
}

TensorData random_tensors(const Program& program, std::uint64_t seed, const ValueRanges& ranges) {
  for (const auto& [name, range] : ranges) check_range(program, name, range);
  TensorData data;
  std::uint64_t position = 0;
  for (const Tensor& tensor : program.tensors) {
    if (tensor.role == TensorRole::temporary) continue;
    const std::uint64_t stream = seed * 1000003ull + position;
    const auto range = ranges.find(tensor.name);
    data[tensor.name] = is_integer(tensor.type)
                            ? random_integers(element_count(program, tensor), integer_limit(program, tensor), stream)
                            : random_values(element_count(program, tensor), tensor.type, stream,
                                            range == ranges.end() ? ValueRange{} : range->second);
    ++position;
  }
  return data;
}

}  // namespace polyfuse::reference
