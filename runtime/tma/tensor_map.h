// The one host API that builds a TMA tensor map (a CUtensorMap's 128 bytes, passed to a kernel
// as `const __grid_constant__ pf::sm90::TensorMap`): for the emulator with its own encoding
// (polyfuse_emu/tensor_map.h), for a GPU with cuTensorMapEncodeTiled (libcuda, loaded at first
// use). Both first check the driver's rules (tensor_map_rules.h) and refuse a request that
// breaks one, naming it. The code generator asks check_tiled_map (or can_use_tma) at compile
// time and falls back to a cp.async main loop where TMA cannot load an operand.
//
//   auto request = polyfuse::tma::tiled_2d(DataType::float16, a, K, M, K * 2, 64, 128, Swizzle::b128);
//   TensorMapBytes map = polyfuse::tma::encode_tiled(request, Target::emulator);
//   polyfuse::emu::launch(kernel, grid, block, smem, map, ...);   // the kernel takes pf::sm90::TensorMap
//
// Untested on hardware: the GPU target has not run on a GPU in this project yet.
#pragma once

#include <stdexcept>
#include <string>

#include "runtime/tma/tensor_map_rules.h"

namespace polyfuse::tma {

// A request the driver's rules refuse, or the GPU encoder failing.
class TensorMapError : public std::runtime_error {
 public:
  TensorMapError(const std::string& message, std::optional<Rule> rule) : std::runtime_error(message), rule_(rule) {}
  // The rule broken (nothing when the driver or the emulator refused for another reason).
  const std::optional<Rule>& rule() const { return rule_; }

 private:
  std::optional<Rule> rule_;
};

enum class Target { emulator, gpu };

// The map for `target` (global_address: a host pointer for the emulator, a device pointer for
// a GPU). Throws TensorMapError for a broken rule (both targets) or a driver failure, and the
// emulator's EmulationError for what it does not model (polyfuse_emu/tensor_map.h).
TensorMapBytes encode_tiled(const TiledMapRequest& request, Target target);

// A 2-D request: `inner` x `outer` elements (dimension 0 contiguous), rows `row_stride_bytes`
// apart, boxes of box_inner x box_outer, the given swizzle, zero fill.
TiledMapRequest tiled_2d(DataType type, const void* base, std::uint64_t inner, std::uint64_t outer,
                         std::uint64_t row_stride_bytes, std::uint32_t box_inner, std::uint32_t box_outer,
                         Swizzle swizzle);

// Whether TMA can load boxes of box_inner x box_outer from a row-major matrix with this many
// columns and this leading dimension (elements) at `base`: the rule broken, or nothing. The
// code generator's question when the sizes are bound ("row-major f16 A with K = 129: a 258-byte
// row stride" breaks Rule::stride_multiple).
std::optional<RuleViolation> can_use_tma(DataType type, std::uintptr_t base, std::uint64_t cols, std::uint64_t rows,
                                         std::uint64_t leading_dimension, std::uint32_t box_inner,
                                         std::uint32_t box_outer, Swizzle swizzle);

// Whether the GPU encoder can run here (libcuda with cuTensorMapEncodeTiled); `why` if not.
bool gpu_encoder_available(std::string* why = nullptr);

}  // namespace polyfuse::tma
