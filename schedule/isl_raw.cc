#include "schedule/isl_raw.h"

#include <isl/schedule_node.h>
#include <isl/set.h>
#include <isl/union_map.h>

namespace polyfuse::isl_raw {

isl::schedule_node delete_node(const isl::schedule_node& node) {
  return isl::manage(isl_schedule_node_delete(node.copy()));
}

isl::union_map extension_of(const isl::schedule_node& node) {
  return isl::manage(isl_schedule_node_extension_get_extension(node.get()));
}

isl::union_map to_union_map(const isl::multi_union_pw_aff& schedule) {
  return isl::manage(isl_union_map_from_multi_union_pw_aff(schedule.copy()));
}

std::string mark_name(const isl::schedule_node& node) {
  return isl::manage(isl_schedule_node_mark_get_id(node.get())).name();
}

std::string tuple_name(const isl::set& set) {
  const char* name = isl_set_get_tuple_name(set.get());
  return name ? name : "";
}

}  // namespace polyfuse::isl_raw
