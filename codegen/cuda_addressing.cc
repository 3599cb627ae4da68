#include "codegen/cuda_addressing.h"

#include <fmt/format.h>

#include <charconv>
#include <optional>

#include "codegen/cuda_kernel_layout.h"
#include "codegen/tile_bounds.h"
#include "frontend/diagnostics.h"
#include "schedule/plan_from_program.h"

namespace polyfuse {

std::string grouped(const std::string& text) {
  for (char c : text)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.')) return "(" + text + ")";
  return text;
}

std::vector<std::string> tensor_extents(const Program& program, const std::string& tensor) {
  const Tensor* t = program.find_tensor(tensor);
  PF_INTERNAL_CHECK(t != nullptr, "unknown tensor " + tensor);
  std::vector<std::string> result;
  for (const Size& size : t->dims) result.push_back(bound_size(program, size).to_string());
  return result;
}

std::string element_offset(const std::vector<std::string>& origin, const std::vector<std::string>& extents) {
  std::string offset;  // Horner form, terms with a zero index left out
  for (size_t i = 0; i < origin.size(); ++i) {
    if (!offset.empty()) offset = (offset.find(" + ") != std::string::npos ? "(" + offset + ")" : offset) + " * " + extents[i];
    if (origin[i] == "0") continue;
    if (offset.empty()) offset = "(long long)" + grouped(origin[i]);
    else offset += " + " + grouped(origin[i]);
  }
  return offset.empty() ? "0" : offset;
}

// The value of a literal C integer expression ("128"), if it is one.
static std::optional<long long> literal(const std::string& text) {
  long long value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::string remaining(const std::string& extent, const std::string& origin) {
  if (origin == "0") return extent;
  if (literal(extent) && literal(origin)) return std::to_string(*literal(extent) - *literal(origin));
  return extent + " - " + grouped(origin);
}

std::string address(const std::string& pointer, const std::string& offset) {
  return offset == "0" ? pointer : pointer + " + " + offset;
}

std::vector<std::string> warp_tile_origin(const CudaStatementContext& c, const std::vector<std::string>& block_origin) {
  std::vector<std::string> origin = block_origin;
  size_t r = origin.size();
  origin[r - 2] = fmt::format("{} + {} * warp_y", block_origin[r - 2], c.options.warp.m);
  origin[r - 1] = fmt::format("{} + {} * warp_x", block_origin[r - 1], c.options.warp.n);
  return origin;
}

std::string print_tile_store(const CudaStatementContext& c, const std::string& tile, const std::string& tensor,
                             const std::vector<std::string>& args) {
  std::vector<std::string> ext = tensor_extents(c.program, tensor);
  std::vector<std::string> origin = warp_tile_origin(c, std::vector<std::string>(args.begin(), args.end() - 1));
  size_t r = origin.size();
  const Tensor* t = c.program.find_tensor(tensor);
  // Split-K sums the k-splits in the store, unless they were already added into split 0
  // before an epilogue (reduce_split_k): then split 0 alone stores, as without split-K.
  const bool reduced = c.layout.split_k > 1 && !c.plan.epilogue.empty();
  const int splits = reduced ? 1 : c.layout.split_k;
  std::string split = splits > 1 ? "warp_k" : "0";
  std::string store = fmt::format("pf::store_accumulators<{}, {}, {}>({}, {}, {}, {}, {}, {}, {}, {}, warp_y * {} + warp_x, {});",
                                  cuda_type(t->type), check_argument(args.back()), row_width(c.program, tensor), tile,
                                  scratch_address(c), address(tensor, element_offset(origin, ext)), ext[r - 1],
                                  remaining(ext[r - 2], origin[r - 2]), remaining(ext[r - 1], origin[r - 1]), splits, split,
                                  c.layout.warps_x, c.layout.warps_y * c.layout.warps_x);
  return reduced ? "if (warp_k == 0) " + store : store;
}

std::string scratch_address(const CudaStatementContext& c) {
  return c.layout.scratch_offset ? fmt::format("smem + {}", c.layout.scratch_offset) : "smem";
}

}  // namespace polyfuse
