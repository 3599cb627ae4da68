#include "runtime/reference/tensor_data.h"

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

std::vector<float> random_values(std::int64_t count, ElementType type, std::uint64_t seed) {
  std::vector<float> values(static_cast<std::size_t>(count));
  std::uint64_t state = seed;
  for (float& value : values) {
    // SplitMix64: portable and fast; the top 24 bits give a uniform f32 in [0, 1).
    state += 0x9e3779b97f4a7c15ull;
    std::uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    const float unit = static_cast<float>(z >> 40) * (1.0f / 16777216.0f);
    value = round_to(type, 2.0f * unit - 1.0f);
  }
  return values;
}

TensorData random_tensors(const Program& program, std::uint64_t seed) {
  TensorData data;
  std::uint64_t position = 0;
  for (const Tensor& tensor : program.tensors) {
    if (tensor.role == TensorRole::temporary) continue;
    data[tensor.name] = random_values(element_count(program, tensor), tensor.type,
                                      seed * 1000003ull + position);
    ++position;
  }
  return data;
}

}  // namespace polyfuse::reference
