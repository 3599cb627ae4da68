#include "schedule/gpu_options.h"

#include <algorithm>
#include <charconv>
#include <fmt/format.h>

#include "frontend/diagnostics.h"

namespace polyfuse {

Arch parse_arch(std::string_view text) {
  if (text == "sm_80") return Arch::sm_80;
  if (text == "sm_86") return Arch::sm_86;
  if (text == "sm_89") return Arch::sm_89;
  if (text == "sm_90") return Arch::sm_90;
  if (text == "sm_90a") return Arch::sm_90a;
  throw UserError(fmt::format("`arch`: unknown architecture '{}' (expected sm_80, sm_86, sm_89, sm_90 or sm_90a)", text));
}

std::string to_string(Arch arch) {
  return fmt::format("sm_{}{}", compute_capability(arch), has_wgmma(arch) ? "a" : "");
}

bool has_wgmma(Arch arch) { return arch == Arch::sm_90a; }

int compute_capability(Arch arch) {
  switch (arch) {
    case Arch::sm_80: return 80;
    case Arch::sm_86: return 86;
    case Arch::sm_89: return 89;
    case Arch::sm_90:
    case Arch::sm_90a: return 90;
  }
  PF_INTERNAL_CHECK(false, "unknown Arch value");
}

ArchLimits arch_limits(Arch arch) {
  switch (arch) {
    case Arch::sm_80: return {163 * 1024, 1024, 255, 65536};
    case Arch::sm_86:
    case Arch::sm_89: return {99 * 1024, 1024, 255, 65536};
    case Arch::sm_90:
    case Arch::sm_90a: return {227 * 1024, 1024, 255, 65536};
  }
  PF_INTERNAL_CHECK(false, "unknown Arch value");
}

MmaShape parse_mma_shape(std::string_view text) {
  if (text == "16x16x8") return MmaShape::m16n16k8;
  if (text == "32x32x8") return MmaShape::m32n32k8;
  if (text == "m16n8k16") return MmaShape::m16n8k16;
  throw UserError(fmt::format("`mma`: unknown macro-MMA shape '{}' (expected 16x16x8, 32x32x8 or m16n8k16)", text));
}

std::string to_string(MmaShape shape) {
  switch (shape) {
    case MmaShape::m16n16k8: return "16x16x8";
    case MmaShape::m32n32k8: return "32x32x8";
    case MmaShape::m16n8k16: return "m16n8k16";
  }
  PF_INTERNAL_CHECK(false, "unknown MmaShape value");
}

ClusterShape parse_cluster_shape(std::string_view text) {
  if (text == "1x1") return ClusterShape{1, 1};
  if (text == "2x1") return ClusterShape{2, 1};
  if (text == "1x2") return ClusterShape{1, 2};
  throw UserError(fmt::format("`cluster`: unknown cluster '{}' (expected 1x1, 2x1 or 1x2 output tiles)", text));
}

std::string to_string(const ClusterShape& cluster) { return fmt::format("{}x{}", cluster.m, cluster.n); }

ConsumerSchedule parse_consumer_schedule(std::string_view text) {
  if (text == "cooperative") return ConsumerSchedule::cooperative;
  if (text == "pingpong") return ConsumerSchedule::pingpong;
  throw UserError(fmt::format("`consumer_schedule`: unknown schedule '{}' (expected cooperative or pingpong)", text));
}

std::string to_string(ConsumerSchedule schedule) {
  return schedule == ConsumerSchedule::pingpong ? "pingpong" : "cooperative";
}

F32Matmul parse_f32_matmul(std::string_view text) {
  if (text == "tf32") return F32Matmul::tf32;
  if (text == "3xtf32") return F32Matmul::x3tf32;
  if (text == "f32") return F32Matmul::f32;
  throw UserError(fmt::format("`f32_matmul`: unknown mode '{}' (expected tf32, 3xtf32 or f32)", text));
}

std::string to_string(F32Matmul mode) {
  switch (mode) {
    case F32Matmul::tf32: return "tf32";
    case F32Matmul::x3tf32: return "3xtf32";
    case F32Matmul::f32: return "f32";
  }
  PF_INTERNAL_CHECK(false, "unknown F32Matmul value");
}

TileShape mma_tile(MmaShape shape) {
  switch (shape) {
    case MmaShape::m16n16k8: return {16, 16, 8};
    case MmaShape::m32n32k8: return {32, 32, 8};
    case MmaShape::m16n8k16: return {16, 8, 16};
  }
  PF_INTERNAL_CHECK(false, "unknown MmaShape value");
}

TileShape accumulator_fragment(MmaShape shape) {
  return shape == MmaShape::m16n8k16 ? TileShape{16, 8, 0} : TileShape{16, 16, 0};
}

bool mma_supported(MmaShape, Arch) { return true; }

TileShape parse_tile_shape(std::string_view text, std::string_view option) {
  int values[3] = {0, 0, 0};
  std::string_view rest = text;
  for (int i = 0; i < 3; ++i) {
    size_t end = i < 2 ? rest.find('x') : rest.size();
    if (end == std::string_view::npos) end = rest.size();
    std::string_view part = rest.substr(0, end);
    auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), values[i]);
    bool last = i == 2;
    if (part.empty() || ec != std::errc() || ptr != part.data() + part.size() || values[i] <= 0 ||
        (!last && end == rest.size()) || (last && end != rest.size()))
      throw UserError(fmt::format("`{}`: expected MxNxK with three positive integers (e.g. 128x128x32), got '{}'", option, text));
    rest = last ? std::string_view() : rest.substr(end + 1);
  }
  return {values[0], values[1], values[2]};
}

std::string to_string(const TileShape& tile) { return fmt::format("{}x{}x{}", tile.m, tile.n, tile.k); }

GpuOptions default_gpu_options(Arch arch) {
  GpuOptions options;
  options.arch = arch;
  return options;
}

GpuOptions gpu_options_from_choices(const GpuChoices& choices) {
  GpuOptions o = default_gpu_options(choices.arch);
  if (choices.mma) o.mma = *choices.mma;
  if (choices.block) o.block = *choices.block;
  o.block_chosen = choices.block.has_value();
  if (choices.split_k != 0) o.split_k = choices.split_k;
  if (choices.stages != 0) o.stages = choices.stages;
  o.group = choices.group;
  o.consumer_schedule = choices.consumer_schedule;
  o.f32_matmul = choices.f32_matmul;
  o.cluster = choices.cluster;
  if (choices.warp) {
    o.warp = *choices.warp;
    o.choose_warp = false;
  } else {
    o.warp = {std::min(64, o.block.m), std::min(64, o.block.n), o.split_k > 0 ? o.block.k / o.split_k : o.block.k};
    o.choose_warp = true;
  }
  return o;
}

int threads_per_block(const GpuOptions& o) {
  return 32 * (o.block.m / o.warp.m) * (o.block.n / o.warp.n) * o.split_k;
}

int shared_bytes_per_block(const GpuOptions& o, int element_bytes) {
  int operand_tiles = o.stages * (o.block.m * o.block.k + o.block.k * o.block.n) * element_bytes;
  int accumulator_staging = threads_per_block(o) / 32 * 1024;  // reorder scratch: 1 KiB per warp
  return std::max(operand_tiles, accumulator_staging);
}

int accumulator_registers_per_thread(const GpuOptions& o) { return o.warp.m * o.warp.n / 32; }

static void require(bool ok, const std::string& message) {
  if (!ok) throw UserError(message);
}

void validate_gpu_options(const GpuOptions& o, int element_bytes) {
  for (const auto& [tile, name] : {std::pair{o.block, "block"}, std::pair{o.warp, "warp"}})
    require(tile.m >= 1 && tile.n >= 1 && tile.k >= 1,
            fmt::format("`{}` {}: every extent of a tile must be at least 1", name, to_string(tile)));
  TileShape mma = mma_tile(o.mma);
  require(o.split_k == 1 || o.split_k == 2 || o.split_k == 4,
          fmt::format("`split_k` must be 1, 2 or 4, got {}", o.split_k));
  require(o.stages >= 1 && o.stages <= max_stages,
          fmt::format("`stages` must be 1 to {} (1: no prefetch, 2..{}: a ring of shared stages), got {}", max_stages,
                      max_stages, o.stages));
  require(o.cluster == ClusterShape{1, 1} || o.cluster == ClusterShape{2, 1} || o.cluster == ClusterShape{1, 2},
          fmt::format("`cluster` {}: the sm_90a kernel's clusters are 1x1, 2x1 or 1x2 output tiles", to_string(o.cluster)));
  require(!o.group || *o.group >= 1,
          fmt::format("`group` must be at least 1 (tile rows per group of the block order; 1: row-major), got {}",
                      o.group.value_or(0)));
  require(o.block.m % o.warp.m == 0 && o.block.n % o.warp.n == 0,
          fmt::format("`block` {} is not a multiple of `warp` {} in M and N", to_string(o.block), to_string(o.warp)));
  require(o.block.k % o.split_k == 0 && o.block.k / o.split_k == o.warp.k,
          fmt::format("`warp` K ({}) must equal `block` K ({}) divided by `split_k` ({})", o.warp.k, o.block.k, o.split_k));
  require(o.warp.m % mma.m == 0 && o.warp.n % mma.n == 0 && o.warp.k % mma.k == 0,
          fmt::format("`warp` {} is not a multiple of the {} macro-MMA tile {}", to_string(o.warp), to_string(o.mma), to_string(mma)));
  require(mma_supported(o.mma, o.arch),
          fmt::format("`mma` {} is not available on {}", to_string(o.mma), to_string(o.arch)));

  ArchLimits limits = arch_limits(o.arch);
  int threads = threads_per_block(o);
  require(threads <= limits.max_threads_per_block,
          fmt::format("block tile {} with warp tile {} and split-K {} needs {} threads per block; {} allows {} ({} over)",
                      to_string(o.block), to_string(o.warp), o.split_k, threads, to_string(o.arch),
                      limits.max_threads_per_block, threads - limits.max_threads_per_block));
  int shared = shared_bytes_per_block(o, element_bytes);
  require(shared <= limits.max_shared_bytes_per_block,
          fmt::format("block tile {} with {} stage(s) needs {} bytes of shared memory per block; {} allows {} ({} bytes "
                      "over): use fewer `stages` or a smaller `block`",
                      to_string(o.block), o.stages, shared, to_string(o.arch), limits.max_shared_bytes_per_block,
                      shared - limits.max_shared_bytes_per_block));
  // Accumulators alone; fragments, addresses and the epilogue need at least 32 more.
  int registers = accumulator_registers_per_thread(o) + 32;
  require(registers <= limits.max_registers_per_thread,
          fmt::format("warp tile {} needs at least {} registers per thread ({} for f32 accumulators); {} allows {} ({} over)",
                      to_string(o.warp), registers, accumulator_registers_per_thread(o), to_string(o.arch),
                      limits.max_registers_per_thread, registers - limits.max_registers_per_thread));
  require(registers * threads <= limits.registers_per_sm,
          fmt::format("block of {} threads × at least {} registers needs {} registers; an {} SM has {} ({} over)",
                      threads, registers, registers * threads, to_string(o.arch), limits.registers_per_sm,
                      registers * threads - limits.registers_per_sm));
}

}  // namespace polyfuse
