#include "codegen/statement_rewrites.h"

#include <isl/ast.h>

namespace polyfuse {

// The user statement's name: the first argument of its call expression.
static std::string statement_name(const isl::ast_node& node) {
  isl::ast_expr_op call = node.as<isl::ast_node_user>().expr().as<isl::ast_expr_op>();
  return call.arg(0).as<isl::ast_expr_id>().id().name();
}

// The pf::Check code of the instances in `instances`.
static int check_code(const isl::set& instances, const TileBounds& bounds) {
  int code = 0;
  if (!instances.intersect(bounds.rows_cut).is_empty()) code |= 1;
  if (!instances.intersect(bounds.cols_cut).is_empty()) code |= 2;
  return code;
}

isl::ast_build with_statement_rewrites(const isl::ast_build& build, const StatementRewrites& rewrites,
                                       const isl::set& context) {
  return build.set_at_each_domain([rewrites, context](isl::ast_node node, isl::ast_build at) {
    std::string name = statement_name(node);
    auto rewrite = rewrites.arguments.find(name);
    auto bounds = rewrites.tile_bounds.find(name);
    if (rewrite == rewrites.arguments.end() && bounds == rewrites.tile_bounds.end()) return node;
    // schedule point -> statement instance, then -> new arguments.
    isl::map schedule = at.get_schedule().as_map();
    isl::pw_multi_aff instance = schedule.reverse().as_pw_multi_aff();
    isl::pw_multi_aff args = instance;
    if (rewrite != rewrites.arguments.end()) args = isl::pw_multi_aff(rewrite->second).pullback(instance);
    if (bounds != rewrites.tile_bounds.end()) {
      isl::set instances = schedule.domain().intersect_params(context);
      isl::pw_aff code = instance.domain().pw_aff_on_domain(static_cast<long>(check_code(instances, bounds->second)));
      args = args.flat_range_product(isl::pw_multi_aff(code));
    }
    args = args.set_range_tuple(name);
    isl::ast_expr call = at.call_from(args);
    return isl::manage(isl_ast_node_alloc_user(call.release()));
  });
}

}  // namespace polyfuse
