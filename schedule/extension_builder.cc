#include "schedule/extension_builder.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "schedule/isl_raw.h"

namespace polyfuse {

isl::multi_aff prefix_function(isl::ctx ctx, int depth, const std::string& exprs) {
  std::vector<std::string> names;
  for (int i = 0; i < depth; ++i) names.push_back(fmt::format("p{}", i));
  return isl::multi_aff(ctx, fmt::format("{{ [{}] -> [{}] }}", fmt::join(names, ", "), exprs));
}

isl::multi_aff shift_last(isl::ctx ctx, int depth, int shift) {
  std::vector<std::string> exprs;
  for (int i = 0; i < depth; ++i)
    exprs.push_back(i + 1 == depth ? fmt::format("p{} + {}", i, shift) : fmt::format("p{}", i));
  return prefix_function(ctx, depth, fmt::format("{}", fmt::join(exprs, ", ")));
}

isl::multi_aff keep_first(isl::ctx ctx, int depth, int keep) {
  std::vector<std::string> exprs;
  for (int i = 0; i < keep; ++i) exprs.push_back(fmt::format("p{}", i));
  return prefix_function(ctx, depth, fmt::format("{}", fmt::join(exprs, ", ")));
}

isl::multi_aff append_value(isl::ctx ctx, int depth, int value) {
  std::vector<std::string> exprs;
  for (int i = 0; i < depth; ++i) exprs.push_back(fmt::format("p{}", i));
  exprs.push_back(std::to_string(value));
  return prefix_function(ctx, depth, fmt::format("{}", fmt::join(exprs, ", ")));
}

isl::map statement_map(const isl::multi_aff& leading, const isl::multi_aff& offset, const std::string& name) {
  return leading.flat_range_product(offset).as_map().set_range_tuple(name);
}

// The statements of `extension` in sequence in `order`, below `node` (a leaf).
static isl::schedule_node in_sequence(isl::schedule_node node, const isl::union_map& extension,
                                      const std::vector<std::string>& order) {
  isl::ctx ctx = extension.ctx();
  if (order.size() > 1) {
    isl::union_set range = extension.range();
    isl::union_set_list filters(ctx, static_cast<int>(order.size()));
    for (const std::string& name : order) {
      isl::union_set part = isl::union_set::empty(ctx);
      range.foreach_set([&](isl::set s) {
        if (isl_raw::tuple_name(s) == name) part = part.unite(isl::union_set(isl::set::universe(s.space())));
      });
      filters = filters.add(part);
    }
    node = node.insert_sequence(filters);
  }
  return node;
}

isl::schedule_node extension_tree(const isl::union_map& extension, const std::vector<std::string>& order) {
  return in_sequence(isl::schedule_node::from_extension(extension).child(0), extension, order).root();
}

isl::schedule_node extension_loop_tree(const isl::union_map& extension, const std::vector<std::string>& order,
                                       std::string_view mark) {
  std::vector<std::string> pieces;
  extension.range().foreach_set([&](isl::set s) {
    std::vector<std::string> dims;
    for (int i = 0, n = static_cast<int>(s.tuple_dim()); i < n; ++i) dims.push_back(fmt::format("i{}", i));
    pieces.push_back(fmt::format("{}[{}] -> [(i0)]", isl_raw::tuple_name(s), fmt::join(dims, ", ")));
  });
  isl::multi_union_pw_aff loop(extension.ctx(), fmt::format("[{{ {} }}]", fmt::join(pieces, "; ")));
  isl::schedule_node band = isl::schedule_node::from_extension(extension).child(0).insert_partial_schedule(loop);
  band = in_sequence(band.child(0), extension, order).parent();
  return band.insert_mark(std::string(mark)).root();
}

static bool introduces(const isl::schedule_node& node, const std::string& statement) {
  if (!node.isa<isl::schedule_node_extension>()) return false;
  bool found = false;
  isl_raw::extension_of(node).range().foreach_set(
      [&](isl::set s) { found = found || isl_raw::tuple_name(s) == statement; });
  return found;
}

isl::schedule_node find_extension(const isl::schedule_node& start, const std::string& statement) {
  if (introduces(start, statement)) return start;
  for (unsigned i = 0; i < start.n_children(); ++i) {
    isl::schedule_node found = find_extension(start.child(i), statement);
    if (!found.is_null()) return found;
  }
  return isl::schedule_node();
}

}  // namespace polyfuse
