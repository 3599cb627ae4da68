#include "codegen/statement_rewrites.h"

#include <isl/ast.h>

namespace polyfuse {

// The user statement's name: the first argument of its call expression.
static std::string statement_name(const isl::ast_node& node) {
  isl::ast_expr_op call = node.as<isl::ast_node_user>().expr().as<isl::ast_expr_op>();
  return call.arg(0).as<isl::ast_expr_id>().id().name();
}

isl::ast_build with_statement_rewrites(const isl::ast_build& build, const StatementRewrites& rewrites) {
  return build.set_at_each_domain([rewrites](isl::ast_node node, isl::ast_build at) {
    auto rewrite = rewrites.find(statement_name(node));
    if (rewrite == rewrites.end()) return node;
    // schedule point -> statement instance, then -> new arguments.
    isl::map schedule = at.get_schedule().as_map();
    isl::pw_multi_aff instance = schedule.reverse().as_pw_multi_aff();
    isl::pw_multi_aff args = isl::pw_multi_aff(rewrite->second).pullback(instance);
    args = args.set_range_tuple(rewrite->first);
    isl::ast_expr call = at.call_from(args);
    return isl::manage(isl_ast_node_alloc_user(call.release()));
  });
}

}  // namespace polyfuse
