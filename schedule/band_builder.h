// Builds band schedules from per-statement affine expressions written over each
// statement's own dimension names, e.g. member "floor(m/128)" for S0[m, n, k] and for
// S1[m, n]. The GPU passes describe every band they create this way, so a golden dump
// reads like the paper's figures.
#pragma once

#include <isl/cpp.h>

#include <string>
#include <vector>

#include "schedule/kernel_plan.h"

namespace polyfuse {

// One band member: for each statement (by its dims), an affine expression in isl syntax.
struct BandMember {
  std::vector<std::pair<StatementDims, std::string>> pieces;
};

// The partial schedule of a band with `members` (at least one), outermost first.
isl::multi_union_pw_aff make_band(isl::ctx ctx, const std::vector<BandMember>& members);

// Replaces the partial schedule of `band` by `schedule`, keeping its children; every
// member is marked coincident when `coincident` is true. Returns the new band node.
isl::schedule_node_band replace_band(const isl::schedule_node_band& band,
                                     const isl::multi_union_pw_aff& schedule, bool coincident);

// Inserts a band with `schedule` at `node` (above it). Members coincident when asked.
isl::schedule_node_band insert_band(const isl::schedule_node& node,
                                    const isl::multi_union_pw_aff& schedule, bool coincident);

// The subtree of `statement` below `node`: when `node` is a sequence, the child of the
// filter that holds the statement; otherwise `node` itself.
isl::schedule_node statement_subtree(const isl::schedule_node& node, const std::string& statement);

// The union set "{ S[dims] : condition }" for one statement ("" = no condition).
isl::union_set statement_set(isl::ctx ctx, const StatementDims& dims, const std::string& condition);

}  // namespace polyfuse
