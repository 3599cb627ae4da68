// The public parsers of polyfuse/gpu_target.h: the compiler's own (schedule/gpu_options.h),
// with their UserError turned into the API's SourceError.
#include "polyfuse/gpu_target.h"

#include "frontend/diagnostics.h"
#include "polyfuse/errors.h"
#include "schedule/gpu_options.h"

namespace polyfuse {
namespace {

template <class F> auto as_source_error(F&& parse) {
  try {
    return parse();
  } catch (const UserError& e) {
    throw SourceError(render_diagnostics(e.diagnostics(), ""));
  }
}

}  // namespace

Arch arch_from_string(std::string_view text) {
  return as_source_error([&] { return parse_arch(text); });
}

MmaShape mma_shape_from_string(std::string_view text) {
  return as_source_error([&] { return parse_mma_shape(text); });
}

TileShape tile_shape_from_string(std::string_view text) {
  return as_source_error([&] { return parse_tile_shape(text, "tile"); });
}

ConsumerSchedule consumer_schedule_from_string(std::string_view text) {
  return as_source_error([&] { return parse_consumer_schedule(text); });
}

F32Matmul f32_matmul_from_string(std::string_view text) {
  return as_source_error([&] { return parse_f32_matmul(text); });
}

ClusterShape cluster_shape_from_string(std::string_view text) {
  return as_source_error([&] { return parse_cluster_shape(text); });
}

}  // namespace polyfuse
