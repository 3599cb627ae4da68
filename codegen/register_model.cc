#include "codegen/register_model.h"

#include <algorithm>
#include <fmt/format.h>

namespace polyfuse {

int RegisterModel::main_loop() const {
  const int loop_data = pipelined ? 2 * fragments + staging : std::max(fragment_sets * fragments, staging);
  return accumulators + loop_data + copy_addresses + base + edge;
}

int RegisterModel::epilogue() const { return tiles + epilogue_operands + base; }

int RegisterModel::total() const { return std::max(main_loop(), epilogue()); }

std::string RegisterModel::to_string() const {
  const std::string loop_data =
      pipelined && staging > 0               ? fmt::format("2 x {} fragments + {} prologue staging", fragments, staging)
      : fragment_sets * fragments >= staging ? fmt::format("{} x {} fragments", fragment_sets, fragments)
                                             : fmt::format("{} prologue staging", staging);
  return fmt::format("main loop {} = {} accumulators + {} + {} copy addresses + {}{}; epilogue {} = {} tile registers + {} "
                     "operand registers + {}",
                     main_loop(), accumulators, loop_data, copy_addresses, base,
                     edge ? fmt::format(" + {} edge blocks", edge) : "", epilogue(), tiles, epilogue_operands, base);
}

int register_limit(Arch arch, int threads) {
  const ArchLimits limits = arch_limits(arch);
  // ptxas allocates registers in units of 8 per thread (256 per warp)
  const int per_thread = limits.registers_per_sm / std::max(threads, 1) / 8 * 8;
  return std::min(limits.max_registers_per_thread, per_thread);
}

}  // namespace polyfuse
