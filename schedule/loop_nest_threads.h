// Whether a statement's plain loop nest (codegen/cpu_loop_nest.h: a row reduction, a `?:`, an
// index value, integer data) runs its outermost written loop on the CPU target's threads, and
// how much work it is against CpuScheduleOptions::min_parallel_flops.
//
// Each iteration of the outermost written loop computes its elements exactly as on one
// thread (its own accumulator, the same order over the reduction indices), so the results are
// the same bits for every thread count. It may be split when the iterations touch disjoint
// elements: the loop's index is a plain subscript of the write, and every read of the written
// tensor is of the element written (`acc(m) *= ...` reads its own element); a scalar result
// has no such loop, and a gather's range check throws (which an OpenMP region cannot
// pass on), so both stay on the calling thread.
#pragma once

#include <cstdint>
#include <string>

#include "frontend/program.h"

namespace polyfuse {

// The work of `statement`'s loop nest: the points of its domain (every size bound) times
// kCpuFlopsPerElement plus the operations of its right-hand side (schedule/cpu_plan.h).
std::int64_t loop_nest_flops(const Program& program, const Statement& statement);

// Why the outermost written loop of `statement` must stay on one thread; empty when its
// iterations may run on several.
std::string loop_nest_serial_reason(const Statement& statement);

// The outermost written index of `statement` (the loop a parallel loop nest splits); empty for
// a scalar result.
std::string loop_nest_outer_index(const Statement& statement);

}  // namespace polyfuse
