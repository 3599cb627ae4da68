#include "codegen/tile_bounds.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "codegen/cuda_addressing.h"
#include "frontend/diagnostics.h"
#include "frontend/element_type.h"
#include "schedule/gpu_mapping.h"
#include "schedule/plan_from_program.h"

namespace polyfuse {

TileBounds tile_bounds(const Program& program, const std::string& statement, int leading, const std::string& tensor,
                       int rows, int cols, const std::string& row_offset, const std::string& col_offset) {
  std::vector<std::string> ext = tensor_extents(program, tensor);
  PF_INTERNAL_CHECK(ext.size() >= 2, "tile bounds of a tensor of rank < 2: " + tensor);
  std::vector<std::string> args;
  for (int i = 0; i < leading; ++i) args.push_back(fmt::format("l{}", i));
  for (size_t i = 0; i < ext.size(); ++i) args.push_back(fmt::format("o{}", i));
  std::vector<std::string> params = program.parameters;
  for (const std::string& w : warp_parameters()) params.push_back(w);
  size_t r = ext.size();
  auto cut = [&](size_t dim, int size, const std::string& offset) {
    std::string origin = fmt::format("o{}", dim) + (offset.empty() ? "" : " + " + offset);
    return isl::set(program.ctx(), fmt::format("[{}] -> {{ {}[{}] : {} + {} > {} }}", fmt::join(params, ", "), statement,
                                               fmt::join(args, ", "), origin, size, ext[dim]));
  };
  return TileBounds{cut(r - 2, rows, row_offset), cut(r - 1, cols, col_offset)};
}

std::string check_argument(const std::string& code) {
  if (code == "0") return "pf::Check::none";
  if (code == "1") return "pf::Check::rows";
  if (code == "2") return "pf::Check::cols";
  PF_INTERNAL_CHECK(code == "3", "not a pf::Check code: " + code);
  return "pf::Check::all";
}

std::string row_width(const Program& program, const std::string& tensor) {
  const Tensor* t = program.find_tensor(tensor);
  PF_INTERNAL_CHECK(t != nullptr, "unknown tensor " + tensor);
  const Size row = bound_size(program, t->dims.back());
  if (row.is_symbolic()) return "pf::Width::by_address";
  return width_of_stride(row.value * size_in_bytes(t->type));
}

std::string width_of_stride(long long bytes) {
  for (int width : {16, 8, 4})
    if (bytes % width == 0) return fmt::format("pf::Width::b{}", 8 * width);
  return "pf::Width::b16";
}

}  // namespace polyfuse
