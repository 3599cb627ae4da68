#include "schedule/footprint.h"

#include <sstream>

#include "frontend/diagnostics.h"

namespace polyfuse {

static isl::map prefix_of(const isl::schedule_node& node, const isl::set& domain) {
  return node.prefix_schedule_union_map().intersect_domain(isl::union_set(domain)).as_map();
}

DataTile data_tile(const isl::schedule_node& node, const isl::map& access) {
  isl::map prefix = prefix_of(node, access.domain());
  isl::map footprint = prefix.reverse().apply_range(access);
  isl::fixed_box box = footprint.range_simple_fixed_box_hull();
  if (!box.is_valid()) {
    std::ostringstream text;
    text << access;
    PF_INTERNAL_CHECK(false, "the footprint of " + text.str() + " has no fixed-size box");
  }
  DataTile tile;
  tile.offset = box.offset();
  isl::multi_val sizes = box.size();
  for (unsigned i = 0; i < sizes.size(); ++i) tile.sizes.push_back(static_cast<int>(sizes.at(i).get_num_si()));
  tile.prefix_depth = static_cast<int>(prefix.range_tuple_dim());
  return tile;
}

isl::set prefix_points(const isl::schedule_node& node, const isl::set& statement_domain) {
  return prefix_of(node, statement_domain).range();
}

}  // namespace polyfuse
