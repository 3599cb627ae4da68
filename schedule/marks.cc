#include "schedule/marks.h"

#include <string>

#include "frontend/diagnostics.h"
#include "schedule/isl_raw.h"

namespace polyfuse::marks {

bool is_mark(const isl::schedule_node& node, std::string_view name) {
  if (!node.isa<isl::schedule_node_mark>()) return false;
  return isl_raw::mark_name(node) == name;
}

static void collect(const isl::schedule_node& node, std::string_view name,
                    std::vector<isl::schedule_node>& found) {
  if (is_mark(node, name)) found.push_back(node);
  for (unsigned i = 0; i < node.n_children(); ++i) collect(node.child(i), name, found);
}

std::vector<isl::schedule_node> find_all(const isl::schedule& schedule, std::string_view name) {
  std::vector<isl::schedule_node> found;
  collect(schedule.root(), name, found);
  return found;
}

std::optional<isl::schedule_node> find_nth(const isl::schedule& schedule, std::string_view name, int n) {
  std::vector<isl::schedule_node> found = find_all(schedule, name);
  if (n < 0 || n >= static_cast<int>(found.size())) return std::nullopt;
  return found[n];
}

isl::schedule_node_band band_below(const isl::schedule_node& mark) {
  isl::schedule_node child = mark.child(0);
  PF_INTERNAL_CHECK(child.isa<isl::schedule_node_band>(),
                    "mark '" + isl_raw::mark_name(mark) + "' is not above a band");
  return child.as<isl::schedule_node_band>();
}

}  // namespace polyfuse::marks
