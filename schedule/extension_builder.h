// Small builders for extension nodes over anonymous prefix-schedule spaces, shared by
// the copy passes (copies.cc, prefetch.cc).
#pragma once

#include <isl/cpp.h>

#include <string>
#include <string_view>
#include <vector>

namespace polyfuse {

// "{ [p0, ..., p(depth-1)] -> [exprs] }"; `exprs` may use the names p0, p1, ...
isl::multi_aff prefix_function(isl::ctx ctx, int depth, const std::string& exprs);

// Prefix point p -> p with its last dimension (the k-step) advanced by `shift`.
isl::multi_aff shift_last(isl::ctx ctx, int depth, int shift);

// Prefix point p -> its first `keep` dimensions.
isl::multi_aff keep_first(isl::ctx ctx, int depth, int keep);

// Prefix point p (depth - 1 dims) -> (p, value): appends a fixed last dimension.
isl::multi_aff append_value(isl::ctx ctx, int depth, int value);

// The map prefix -> name[leading..., offset...].
isl::map statement_map(const isl::multi_aff& leading, const isl::multi_aff& offset, const std::string& name);

// A detached extension subtree: the statements of `extension`, in sequence in `order`
// (statement names). Graft it with graft_before/graft_after.
isl::schedule_node extension_tree(const isl::union_map& extension, const std::vector<std::string>& order);

// Like extension_tree, with a loop around the sequence: a band over the first index of
// every statement of `extension` (one iteration runs one instance of each), below a mark
// named `mark`.
isl::schedule_node extension_loop_tree(const isl::union_map& extension, const std::vector<std::string>& order,
                                       std::string_view mark);

// The first extension node at or below `start` that introduces `statement`; a null
// node when there is none.
isl::schedule_node find_extension(const isl::schedule_node& start, const std::string& statement);

}  // namespace polyfuse
