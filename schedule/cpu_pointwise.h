// Pointwise statements on the CPU target: which reads a block primitive takes (an element, a
// row, a column or a scalar of the block a statement writes) and the CpuPointwise of a
// statement in its block roles.
//
//   if (read_outside_the_block(statement).empty()) stage.pointwise.push_back(pointwise_of(program, statement));
//   else /* a loop nest between the blocked stages */;
#pragma once

#include <string>
#include <vector>

#include "frontend/program.h"
#include "schedule/cpu_plan.h"

namespace polyfuse {

// A located UserError: the CPU target does not support `statement` for `reason`.
[[noreturn]] void refuse_on_cpu(const Program& program, const Statement& statement, const std::string& reason);

// Whether a block primitive takes `access` as a read: at most one m and one n dimension, and a
// matrix's contiguous dimension is one of them.
bool read_in_the_block(const CpuAccess& access);

// The first tensor that pointwise `statement` reads in a shape no block primitive takes, or "".
std::string read_outside_the_block(const Statement& statement);

// `statement` as a pointwise statement, its indices in `names`'s roles (default: the order it
// writes them in); `+=` without a reduction index reads the written element. Refuses a read
// outside the block and a read of the written tensor at other elements.
CpuPointwise pointwise_of(const Program& program, const Statement& statement,
                          const std::vector<std::string>* names = nullptr);

}  // namespace polyfuse
