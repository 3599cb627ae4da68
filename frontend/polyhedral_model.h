// Builds the isl side of the IR: tensor extents, statement domains and access
// relations (see statement.h for their exact form). Sizes in Program::size_bindings
// become constants, the others (Program::parameters) isl parameters.
#pragma once

#include <isl/cpp.h>

#include <optional>
#include <string>
#include <vector>

#include "frontend/program.h"

namespace polyfuse {

// `[params] -> { T[i0, ...] : 0 <= i0 < dims[0] and ... }` for `tensor` in the context of
// `program` (which must have its context, parameters and bindings set).
isl::set tensor_extent(const Program& program, const Tensor& tensor);

// `[params] -> { id[indices...] : 0 <= index < extent and ... }`, dimensions named by
// the indices, in the context of `program`.
isl::set statement_domain(const Program& program, const std::string& id,
                          const std::vector<IterationIndex>& indices);

// `{ domain -> tensor[subscripts...] }` restricted to `domain`, where every index of
// the subscripts is one of the domain's dimensions `domain_indices`. A gathered subscript
// (AffineIndex::gather) is not affine: the relation holds every element of that dimension
// inside `extent` (the tensor's, required then), a may-access that keeps dependences correct.
isl::map access_relation(const isl::set& domain, const std::vector<std::string>& domain_indices,
                         const std::string& tensor, const std::vector<AffineIndex>& subscripts,
                         const std::optional<isl::set>& extent = std::nullopt);

// The affine function (on the domain of the set space `space`) for the extent `size`.
isl::aff size_aff(const isl::space& space, const Size& size, const Program& program);

// The affine function (on the domain of the set space `space`, whose dimensions are
// `names`) for `subscript`.
isl::aff subscript_aff(const isl::space& space, const std::vector<std::string>& names, const AffineIndex& subscript);

// For passes that add statements (frontend/matmul_factors.h, schedule/cpu_outline.h): a plain
// access of `tensor` at `indices`, each one of the dimensions `domain_indices` of `domain`.
Access plain_access(const std::string& tensor, const std::vector<std::string>& indices, const isl::set& domain,
                    const std::vector<std::string>& domain_indices, SourceLocation location);
// `wanted`, with `_` appended while a tensor or statement of `program` has that name.
std::string fresh_name(const Program& program, std::string wanted);

}  // namespace polyfuse
