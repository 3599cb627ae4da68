#include "frontend/program.h"

#include "frontend/expr.h"
#include "frontend/isl_helpers.h"

namespace polyfuse {

const Tensor* Program::find_tensor(std::string_view tensor_name) const {
  for (const Tensor& tensor : tensors)
    if (tensor.name == tensor_name) return &tensor;
  return nullptr;
}

const Statement* Program::find_statement(std::string_view id) const {
  int index = statement_index(id);
  return index < 0 ? nullptr : &statements[static_cast<std::size_t>(index)];
}

int Program::statement_index(std::string_view id) const {
  for (std::size_t i = 0; i < statements.size(); ++i)
    if (statements[i].id == id) return static_cast<int>(i);
  return -1;
}

isl::set Program::assumptions() const {
  isl::set result = isl::set::universe(make_set_space(ctx(), parameters, "", {}).params());
  for (const std::string& parameter : parameters) {
    isl::aff size = result.space().param_aff_on_domain(parameter);
    isl::aff one = result.space().zero_aff_on_domain().add_constant(1);
    result = result.intersect(size.ge_set(one));
  }
  return result;
}

isl::union_set Program::domains() const {
  isl::union_set result = isl::union_set::empty(ctx());
  for (const Statement& s : statements) result = result.unite(isl::union_set(s.domain));
  return result;
}

isl::union_map Program::writes() const {
  isl::union_map result = isl::union_map::empty(ctx());
  for (const Statement& s : statements) result = result.unite(isl::union_map(s.write.relation));
  return result;
}

isl::union_map Program::reads() const {
  isl::union_map result = isl::union_map::empty(ctx());
  for (const Statement& s : statements)
    for (const Access& access : s.reads) result = result.unite(isl::union_map(access.relation));
  return result;
}

isl::union_map Program::program_order() const {
  std::size_t depth = 0;
  for (const Statement& s : statements) depth = std::max(depth, s.indices.size());
  isl::union_map result = isl::union_map::empty(ctx());
  for (std::size_t i = 0; i < statements.size(); ++i) {
    const Statement& s = statements[i];
    isl::space domain_space = s.domain.space();
    isl::space map_space = domain_space.add_unnamed_tuple(static_cast<unsigned>(depth + 1));
    isl::multi_aff identity = isl::multi_aff::identity_on_domain(domain_space);
    isl::aff zero = domain_space.zero_aff_on_domain();
    isl::aff_list list(ctx(), static_cast<int>(depth + 1));
    list = list.add(zero.add_constant(static_cast<long>(i)));
    for (std::size_t d = 0; d < depth; ++d)
      list = list.add(d < s.indices.size() ? identity.at(static_cast<int>(d)) : zero);
    isl::map order = isl::multi_aff(map_space, list).as_map().intersect_domain(s.domain);
    result = result.unite(isl::union_map(order));
  }
  return result;
}

bool typed_by_conversion(const Program& program, std::string_view tensor) {
  for (const Statement& s : program.statements)
    if (s.write.tensor == tensor && s.expr.kind == ExprKind::call && conversion_type(s.expr.function)) return true;
  return false;
}

ElementType memory_type(const Program& program, std::string_view tensor) {
  const Tensor& t = *program.find_tensor(tensor);
  return t.role == TensorRole::temporary && !typed_by_conversion(program, tensor) ? ElementType::f32 : t.type;
}

}  // namespace polyfuse
