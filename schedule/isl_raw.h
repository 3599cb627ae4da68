// The few isl operations the 0.25 C++ bindings lack, as value-typed wrappers. This is
// the only file of schedule/ that calls the isl C API directly.
#pragma once

#include <isl/cpp.h>

#include <string>

namespace polyfuse::isl_raw {

// Removes `node` (not the root, not a leaf) from its tree; returns the node now at its
// position (its former child).
isl::schedule_node delete_node(const isl::schedule_node& node);

// The extension map of the extension node `node`.
isl::union_map extension_of(const isl::schedule_node& node);

// The map view of a partial schedule (domain instance -> band values).
isl::union_map to_union_map(const isl::multi_union_pw_aff& schedule);

// The name of the id of the mark node `node`.
std::string mark_name(const isl::schedule_node& node);

// The name of the tuple of `set` ("" when unnamed).
std::string tuple_name(const isl::set& set);

}  // namespace polyfuse::isl_raw
