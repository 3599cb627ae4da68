#include "codegen/cpu_helpers.h"

namespace polyfuse {

// A thread's share of a parallel region, also without OpenMP (its pragmas then ignored).
std::string cpu_thread_share_helper() {
  return "#if !defined(_OPENMP)\n"
         "// Without OpenMP a parallel region is the calling thread alone.\n"
         "int omp_get_thread_num() { return 0; }\n"
         "int omp_get_num_threads() { return 1; }\n"
         "#endif\n\n";
}

// The state of a thread's packed panel of a convolution's filter (CpuConvTaps::panel_per_block),
// with the bits of its finite taps when a tap has a border (schedule/cpu_conv_border.h).
std::string cpu_filter_panel_helper(bool border) {
  return std::string("// A thread's panel of a convolution's filter, packed for the blocks at hand.\n"
                     "template <class T>\n"
                     "struct FilterPanel {\n"
                     "  T* data;\n"
                     "  int64_t origin = -1;  // the filter element of the panel's first output channel; -1: none yet\n") +
         (border ? "  std::uint32_t finite_taps = 0;  // bit t: the panel's values at border tap t are finite\n" : "") +
         "};\n\n";
}

// Whether a block may leave out a border tap's taps outside [first, last) (codegen/cpu_border_taps_code.h).
std::string cpu_finite_outside_helper() {
  return "// Whether a panel whose finite taps are the bits of `finite_taps` is finite at every tap\n"
         "// outside [first, last) of `taps`: a block may then leave those taps out.\n"
         "bool finite_outside(std::uint32_t finite_taps, int64_t first, int64_t last, int64_t taps) {\n"
         "  for (int64_t t = 0; t < taps; ++t)\n"
         "    if ((t < first || t >= last) && !(finite_taps >> t & 1u)) return false;\n"
         "  return true;\n"
         "}\n\n";
}

// What a constant input's packed copy (CpuMatmul::b_constant) was made from.
std::string cpu_packed_from_helper() {
  return "// The generation of the constant inputs' packed copies: forget_constants() moves it on, so\n"
         "// every copy made before is packed again on its next use.\n"
         "std::atomic<std::uint64_t> constants_generation{0};\n\n"
         "// What a constant input's packed copy was made from: the input's pointer, at a generation.\n"
         "struct PackedFrom {\n"
         "  const void* input = nullptr;\n"
         "  std::uint64_t generation = 0;\n"
         "  bool holds(const void* p) const {\n"
         "    return input == p && generation == constants_generation.load(std::memory_order_acquire);\n"
         "  }\n"
         "  static PackedFrom of(const void* p) { return {p, constants_generation.load(std::memory_order_acquire)}; }\n"
         "};\n\n";
}

// A thread's panels of a constant convolution filter, every one it packed kept between calls.
std::string cpu_constant_panels_helper(bool border) {
  return std::string("// A thread's panels of a constant convolution filter, each packed once and kept between calls.\n"
                     "template <class T>\n"
                     "struct ConstantPanels {\n"
                     "  T* data;           // panel p at data + p * (its elements)\n"
                     "  PackedFrom* from;  // what panel p was packed from\n") +
         (border ? "  std::uint32_t* finite_taps;  // panel p's: bit t, its values at border tap t are finite\n" : "") +
         "};\n\n";
}

}  // namespace polyfuse
