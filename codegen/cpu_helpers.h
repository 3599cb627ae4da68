// The helpers the CPU target's generated C++ defines in its anonymous namespace when its code
// uses them (codegen/cpu_emit.cc chooses which): each returns the helper's text. Helpers that
// depend on nothing the program decides live in kernels/cpu instead (polyfuse/cpu/memory.h:
// line_aligned, kept).
#pragma once

#include <string>

namespace polyfuse {

// omp_get_thread_num/omp_get_num_threads for a build without OpenMP.
std::string cpu_thread_share_helper();
// FilterPanel<T>: a thread's packed panel of a convolution's filter (finite_taps with border taps).
std::string cpu_filter_panel_helper(bool border);
// finite_outside(...): whether a panel is finite at every tap outside a range.
std::string cpu_finite_outside_helper();
// constants_generation and PackedFrom: what a constant input's packed copy was made from.
std::string cpu_packed_from_helper();
// ConstantPanels<T>: a thread's panels of a constant convolution filter.
std::string cpu_constant_panels_helper(bool border);

}  // namespace polyfuse
