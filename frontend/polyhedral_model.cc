#include "frontend/polyhedral_model.h"

#include <algorithm>

#include "frontend/diagnostics.h"
#include "frontend/isl_helpers.h"

namespace polyfuse {

isl::aff size_aff(const isl::space& space, const Size& size, const Program& program) {
  isl::aff zero = space.zero_aff_on_domain();
  if (!size.is_symbolic()) return zero.add_constant(static_cast<long>(size.value));
  auto bound = program.size_bindings.find(size.symbol);
  if (bound != program.size_bindings.end()) return zero.add_constant(static_cast<long>(bound->second));
  return space.param_aff_on_domain(size.symbol);
}

isl::aff subscript_aff(const isl::space& space, const std::vector<std::string>& names, const AffineIndex& subscript) {
  isl::multi_aff identity = isl::multi_aff::identity_on_domain(space);
  isl::aff value = space.zero_aff_on_domain().add_constant(static_cast<long>(subscript.constant));
  for (const auto& [index, coefficient] : subscript.terms) {
    auto position = std::find(names.begin(), names.end(), index) - names.begin();
    PF_INTERNAL_CHECK(position < static_cast<long>(names.size()), "subscript index " + index + " is not a dimension");
    value = value.add(identity.at(static_cast<int>(position)).scale(static_cast<long>(coefficient)));
  }
  return value;
}

namespace {

// `{ tuple[d0, ...] : 0 <= d_i < extents[i] }` over `space` (a set space).
isl::set box(const isl::space& space, const std::vector<Size>& extents, const Program& program) {
  isl::set set = space.universe_set();
  isl::multi_aff identity = isl::multi_aff::identity_on_domain(space);
  isl::aff zero = space.zero_aff_on_domain();
  for (std::size_t i = 0; i < extents.size(); ++i) {
    isl::aff dim = identity.at(static_cast<int>(i));
    set = set.intersect(dim.ge_set(zero)).intersect(dim.lt_set(size_aff(space, extents[i], program)));
  }
  return set;
}

}  // namespace

isl::set tensor_extent(const Program& program, const Tensor& tensor) {
  std::vector<std::string> unnamed(tensor.rank());
  isl::space space = make_set_space(program.ctx(), program.parameters, tensor.name, unnamed);
  return box(space, tensor.dims, program);
}

isl::set statement_domain(const Program& program, const std::string& id,
                          const std::vector<IterationIndex>& indices) {
  std::vector<Size> extents;
  std::vector<std::string> names;
  for (const IterationIndex& index : indices) {
    extents.push_back(index.extent);
    names.push_back(index.name);
  }
  return box(make_set_space(program.ctx(), program.parameters, id, names), extents, program);
}

isl::map access_relation(const isl::set& domain, const std::vector<std::string>& domain_indices,
                         const std::string& tensor, const std::vector<AffineIndex>& subscripts,
                         const std::optional<isl::set>& extent) {
  isl::space domain_space = domain.space();
  isl::space map_space = domain_space.add_named_tuple(tensor, static_cast<unsigned>(subscripts.size()));
  isl::aff_list list(domain.ctx(), static_cast<int>(subscripts.size()));
  for (const AffineIndex& subscript : subscripts) list = list.add(subscript_aff(domain_space, domain_indices, subscript));
  isl::map relation = isl::multi_aff(map_space, list).as_map().intersect_domain(domain);
  bool gathered = false;
  for (std::size_t d = 0; d < subscripts.size(); ++d)
    if (subscripts[d].is_gather()) {
      relation = free_output_dimension(relation, static_cast<unsigned>(d));
      gathered = true;
    }
  if (!gathered) return relation;
  PF_INTERNAL_CHECK(extent.has_value(), "access_relation: a gather of " + tensor + " needs the tensor's extent");
  return relation.intersect_range(*extent);
}

Access plain_access(const std::string& tensor, const std::vector<std::string>& indices, const isl::set& domain,
                    const std::vector<std::string>& domain_indices, SourceLocation location) {
  std::vector<AffineIndex> subscripts;
  for (const std::string& index : indices) subscripts.push_back(AffineIndex::plain(index));
  return Access{tensor,     indices,      access_relation(domain, domain_indices, tensor, subscripts), location,
                subscripts, std::nullopt, false};
}

std::string fresh_name(const Program& program, std::string wanted) {
  while (program.find_tensor(wanted) || program.find_statement(wanted)) wanted += "_";
  return wanted;
}

}  // namespace polyfuse
