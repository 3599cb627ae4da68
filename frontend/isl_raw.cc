// The only file of polyfuse that makes raw isl_* C calls (see isl_context.h and
// isl_helpers.h for what they are for).
#include <isl/ctx.h>
#include <isl/map.h>
#include <isl/options.h>
#include <isl/set.h>
#include <isl/space.h>

#include "frontend/diagnostics.h"
#include "frontend/isl_context.h"
#include "frontend/isl_helpers.h"

namespace polyfuse {

IslContext::IslContext() : raw_(isl_ctx_alloc()) {
  PF_INTERNAL_CHECK(raw_ != nullptr, "isl_ctx_alloc failed (out of memory)");
  isl_options_set_on_error(raw_, ISL_ON_ERROR_CONTINUE);
}

IslContext::~IslContext() { isl_ctx_free(raw_); }

isl::ctx IslContext::ctx() const { return isl::ctx(raw_); }

isl::ctx IslContextHandle::ctx() const {
  PF_INTERNAL_CHECK(owner_ != nullptr, "use of an empty isl context handle");
  return owner_->ctx();
}

IslContextHandle make_isl_context() {
  return IslContextHandle(std::make_shared<IslContext>());
}

isl::space make_set_space(isl::ctx ctx, const std::vector<std::string>& params,
                          const std::string& tuple, const std::vector<std::string>& dims) {
  isl_space* space = isl_space_set_alloc(ctx.get(), static_cast<unsigned>(params.size()),
                                         static_cast<unsigned>(dims.size()));
  for (std::size_t i = 0; i < params.size(); ++i)
    space = isl_space_set_dim_name(space, isl_dim_param, static_cast<unsigned>(i), params[i].c_str());
  for (std::size_t i = 0; i < dims.size(); ++i)
    if (!dims[i].empty())
      space = isl_space_set_dim_name(space, isl_dim_set, static_cast<unsigned>(i), dims[i].c_str());
  space = isl_space_set_tuple_name(space, isl_dim_set, tuple.c_str());
  PF_INTERNAL_CHECK(space != nullptr, "could not build the isl space of " + tuple);
  return isl::manage(space);
}

void set_max_operations(isl::ctx ctx, unsigned long operations) {
  isl_ctx_set_max_operations(ctx.get(), operations);
}

isl::map free_output_dimension(isl::map map, unsigned dim) {
  const std::string tuple = map.range_tuple_id().name();
  isl_map* raw = isl_map_project_out(map.release(), isl_dim_out, dim, 1);
  raw = isl_map_insert_dims(raw, isl_dim_out, dim, 1);
  raw = isl_map_set_tuple_name(raw, isl_dim_out, tuple.c_str());
  PF_INTERNAL_CHECK(raw != nullptr, "could not free dimension " + std::to_string(dim) + " of an access to " + tuple);
  return isl::manage(raw);
}

isl::set with_tuple_name(isl::set set, const std::string& name) {
  isl_set* raw = isl_set_set_tuple_name(set.release(), name.c_str());
  PF_INTERNAL_CHECK(raw != nullptr, "could not name the set " + name);
  return isl::manage(raw);
}

void reset_operations(isl::ctx ctx) { isl_ctx_reset_operations(ctx.get()); }

}  // namespace polyfuse
