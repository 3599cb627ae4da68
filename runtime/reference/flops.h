// The floating-point operations of a program, as every report counts them: two per
// multiply-add of each reduction statement (one per point of its iteration domain), the
// pointwise work not counted (it is memory-bound). Every size must be bound.
#pragma once

#include <cstdint>

#include "frontend/program.h"

namespace polyfuse::reference {

std::int64_t reduction_flops(const Program& program);

}  // namespace polyfuse::reference
