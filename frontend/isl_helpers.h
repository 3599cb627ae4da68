// isl constructions that the isl/cpp.h 0.25 bindings cannot express (named set
// dimensions). Implemented with raw isl_* calls in isl_raw.cc, the only file that
// makes raw isl calls.
#pragma once

#include <isl/cpp.h>

#include <string>
#include <vector>

namespace polyfuse {

// A set space `[params...] -> { tuple[dims...] }` whose parameters and set dimensions
// carry the given names (an empty dimension name leaves that dimension unnamed).
isl::space make_set_space(isl::ctx ctx, const std::vector<std::string>& params,
                          const std::string& tuple, const std::vector<std::string>& dims);

// Sets isl's operation budget for `ctx` (0 = unlimited); a computation that exceeds it
// throws isl::exception_quota.
void set_max_operations(isl::ctx ctx, unsigned long operations);

// `map` with no constraint left on output dimension `dim` (every value; the output tuple
// keeps its name): the access of a gathered dimension, whose position is data.
isl::map free_output_dimension(isl::map map, unsigned dim);

// `set` with its tuple named `name` (the bindings set a map's range tuple, not a set's).
isl::set with_tuple_name(isl::set set, const std::string& name);

// Resets the operation counter of `ctx` (see set_max_operations).
void reset_operations(isl::ctx ctx);

}  // namespace polyfuse
