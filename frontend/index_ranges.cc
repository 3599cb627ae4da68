#include "frontend/index_ranges.h"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "frontend/isl_helpers.h"
#include "frontend/polyhedral_model.h"

namespace polyfuse {
namespace {

// `{ space -> [position-th dimension] }`.
isl::map projection(const isl::space& space, int position) {
  isl::multi_aff identity = isl::multi_aff::identity_on_domain(space);
  isl::space map_space = space.add_unnamed_tuple(1);
  isl::aff_list list(space.ctx(), 1);
  list = list.add(identity.at(position));
  return isl::multi_aff(map_space, list).as_map();
}

// True when `set` does not depend on the parameters.
bool parameter_free(const isl::set& set) {
  return set.is_equal(set.project_out_all_params().intersect_params(set.params()));
}

// `value` as C writes it ("M - 1"; a piecewise value with conditions), free of isl's notation.
std::string c_text(const isl::pw_aff& value) {
  isl_printer* printer = isl_printer_to_str(value.ctx().get());
  printer = isl_printer_set_output_format(printer, ISL_FORMAT_C);
  printer = isl_printer_print_pw_aff(printer, value.get());
  char* text = isl_printer_get_str(printer);
  std::string result = text ? text : "";
  free(text);
  isl_printer_free(printer);
  return result;
}

}  // namespace

isl::set subscript_range(const Program& program, const std::vector<IterationIndex>& known,
                         const std::string& index, const AffineIndex& subscript, const Size& extent) {
  std::vector<std::string> names;
  for (const IterationIndex& i : known) names.push_back(i.name);
  names.push_back(index);
  // The other indices in their boxes, `index` unconstrained.
  isl::space space = make_set_space(program.ctx(), program.parameters, "", names);
  isl::multi_aff identity = isl::multi_aff::identity_on_domain(space);
  isl::aff zero = space.zero_aff_on_domain();
  isl::set other_boxes = isl::set::universe(space);
  for (std::size_t p = 0; p < known.size(); ++p) {
    isl::aff dim = identity.at(static_cast<int>(p));
    other_boxes = other_boxes.intersect(dim.ge_set(zero)).intersect(dim.lt_set(size_aff(space, known[p].extent, program)));
  }
  // The instances whose subscript leaves [0, extent).
  isl::aff value = subscript_aff(space, names, subscript);
  isl::set inside = value.ge_set(zero).intersect(value.lt_set(size_aff(space, extent, program)));
  isl::set bad = other_boxes.subtract(inside);
  isl::map onto_index = projection(space, static_cast<int>(names.size() - 1));
  isl::set bad_values = bad.apply(onto_index);
  isl::set good = isl::set::universe(bad_values.space()).subtract(bad_values);
  return good.intersect_params(program.assumptions()).coalesce();
}

std::optional<Size> range_size(const Program& program, const isl::set& range) {
  if (range.is_empty()) return std::nullopt;
  isl::space space = range.space();
  isl::aff i = isl::multi_aff::identity_on_domain(space).at(0);
  isl::aff zero = space.zero_aff_on_domain();
  auto box = [&](const Size& size) {
    return i.ge_set(zero).intersect(i.lt_set(size_aff(space, size, program))).intersect_params(program.assumptions());
  };
  if (parameter_free(range)) {
    isl::val low = range.dim_min_val(0);
    isl::val high = range.dim_max_val(0);
    if (!low.is_int() || !high.is_int() || !low.is_zero()) return std::nullopt;
    Size size{"", high.get_num_si() + 1};
    return box(size).is_equal(range) ? std::optional<Size>(size) : std::nullopt;
  }
  for (const std::string& parameter : program.parameters)
    if (box(Size{parameter, 0}).is_equal(range)) return Size{parameter, 0};
  return std::nullopt;
}

std::string range_text(const isl::set& range) {
  if (!range.is_empty() && parameter_free(range)) {
    isl::val low = range.dim_min_val(0);
    isl::val high = range.dim_max_val(0);
    if (low.is_int() && high.is_int() && low.eq(high)) return std::to_string(low.get_num_si());
    if (low.is_int() && high.is_int()) return fmt::format("{}..{}", low.get_num_si(), high.get_num_si());
  }
  // One interval whose bounds depend on the sizes: "1..M", "0..H - R".
  const isl::set simple = range.coalesce();
  if (!simple.is_empty() && isl_set_n_basic_set(simple.get()) == 1 && isl_set_involves_locals(simple.get()) == isl_bool_false)
    return fmt::format("{}..{}", c_text(isl::manage(isl_set_dim_min(simple.copy(), 0))),
                       c_text(isl::manage(isl_set_dim_max(simple.copy(), 0))));
  std::ostringstream text;
  text << range;
  return text.str();
}

std::vector<OutsideDimension> dimensions_outside(const Access& access, const Tensor& tensor,
                                                 const isl::set& assumptions) {
  std::vector<OutsideDimension> outside;
  isl::set image = access.relation.range().intersect_params(assumptions);
  for (std::size_t d = 0; d < tensor.rank(); ++d) {
    isl::map onto = projection(image.space(), static_cast<int>(d));
    isl::set values = image.apply(onto);
    isl::set allowed =
        tensor.extent.intersect_params(assumptions).apply(projection(tensor.extent.space(), static_cast<int>(d)));
    if (!values.is_subset(allowed)) outside.push_back(OutsideDimension{d, values.coalesce(), allowed});
  }
  return outside;
}

}  // namespace polyfuse
