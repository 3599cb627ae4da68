#include "schedule/band_builder.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "frontend/diagnostics.h"
#include "schedule/isl_raw.h"

namespace polyfuse {

isl::multi_union_pw_aff make_band(isl::ctx ctx, const std::vector<BandMember>& members) {
  PF_INTERNAL_CHECK(!members.empty(), "a band needs at least one member");
  std::vector<std::string> member_texts;
  for (const BandMember& member : members) {
    std::vector<std::string> pieces;
    for (const auto& [dims, expr] : member.pieces)
      pieces.push_back(fmt::format("{} -> [({})]", dims.tuple_text(), expr));
    member_texts.push_back(fmt::format("{{ {} }}", fmt::join(pieces, "; ")));
  }
  return isl::multi_union_pw_aff(ctx, fmt::format("[{}]", fmt::join(member_texts, ", ")));
}

static isl::schedule_node_band set_coincident(isl::schedule_node_band band, bool coincident) {
  for (unsigned i = 0; i < band.n_member(); ++i) band = band.member_set_coincident(i, coincident);
  return band;
}

isl::schedule_node_band insert_band(const isl::schedule_node& node,
                                    const isl::multi_union_pw_aff& schedule, bool coincident) {
  isl::schedule_node inserted = node.insert_partial_schedule(schedule);
  return set_coincident(inserted.as<isl::schedule_node_band>(), coincident);
}

isl::schedule_node_band replace_band(const isl::schedule_node_band& band,
                                     const isl::multi_union_pw_aff& schedule, bool coincident) {
  isl::schedule_node below = isl_raw::delete_node(band);
  return insert_band(below, schedule, coincident);
}

isl::schedule_node statement_subtree(const isl::schedule_node& node, const std::string& statement) {
  if (!node.isa<isl::schedule_node_sequence>()) return node;
  for (unsigned i = 0; i < node.n_children(); ++i) {
    isl::schedule_node filter = node.child(i);
    isl::union_set set = filter.as<isl::schedule_node_filter>().filter();
    bool found = false;
    set.foreach_set([&](isl::set s) { found = found || isl_raw::tuple_name(s) == statement; });
    if (found) return filter.child(0);
  }
  PF_INTERNAL_CHECK(false, "statement " + statement + " is not in the sequence");
}

isl::union_set statement_set(isl::ctx ctx, const StatementDims& dims, const std::string& condition) {
  if (condition.empty()) return isl::union_set(ctx, fmt::format("{{ {} }}", dims.tuple_text()));
  return isl::union_set(ctx, fmt::format("{{ {} : {} }}", dims.tuple_text(), condition));
}

}  // namespace polyfuse
