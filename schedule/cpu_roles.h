// The roles of a statement's indices in a CPU stage's blocks (schedule/cpu_plan.h's CpuDim):
// which are batch indices (and which of them), the rows m and the columns n; and the accesses
// they make of each tensor's dimensions.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "schedule/cpu_plan.h"

namespace polyfuse {

// The role of every index of one statement in its stage: (dim, batch position or -1).
using Roles = std::map<std::string, std::pair<CpuDim, int>>;

// The access of `tensor` through `indices` (one per dimension), each index in its role.
CpuAccess access_for(const std::string& tensor, const std::vector<std::string>& indices, const Roles& roles);

// The roles of a block space's indices `names`, outermost first: batch.., m, n (the roles of a
// pointwise statement from the indices it writes, and of a stage from its loop names).
Roles pointwise_roles(const std::vector<std::string>& names);

// Whether two accesses read the same element of the block (the same roles per dimension).
bool same_element(const CpuAccess& x, const CpuAccess& y);

}  // namespace polyfuse
