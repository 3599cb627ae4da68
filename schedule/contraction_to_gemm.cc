#include "schedule/contraction_to_gemm.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>

#include "frontend/diagnostics.h"
#include "frontend/frontend.h"
#include "frontend/limits.h"
#include "schedule/implicit_gemm.h"
#include "schedule/plan_from_program.h"

namespace polyfuse {
namespace {

using Names = std::vector<std::string>;

bool has(const Names& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// `names` filtered to those in `group`, in `names`' order.
Names in_order(const Names& names, const Names& group) {
  Names out;
  for (const std::string& name : names)
    if (has(group, name)) out.push_back(name);
  return out;
}

Names concat(std::initializer_list<const Names*> parts) {
  Names out;
  for (const Names* part : parts) out.insert(out.end(), part->begin(), part->end());
  return out;
}

bool reads_tensor(const Statement& s, const std::string& tensor) {
  return std::any_of(s.reads.begin(), s.reads.end(), [&](const Access& a) { return a.tensor == tensor; });
}

bool distinct(const Names& names) { return std::set<std::string>(names.begin(), names.end()).size() == names.size(); }

ContractionGrouping not_gemm(std::string why) {
  ContractionGrouping g;
  g.why_not = std::move(why);
  return g;
}

// The extent of index `name` of `s`, bound.
std::int64_t extent(const Program& program, const Statement& s, const std::string& name) {
  for (const IterationIndex& index : s.indices)
    if (index.name == name) {
      const Size size = bound_size(program, index.extent);
      PF_INTERNAL_CHECK(!size.is_symbolic(), "contraction planned with the unbound size " + size.symbol);
      return size.value;
    }
  PF_INTERNAL_CHECK(false, "no index " + name + " in " + s.id);
  return 0;
}

std::int64_t product(const Program& program, const Statement& s, const Names& group) {
  std::int64_t p = 1;
  for (const std::string& name : group) p *= extent(program, s, name);
  return p;
}

// "f16(3, 4) X" for a view's signature.
std::string declaration(ElementType type, const std::vector<std::int64_t>& dims, const std::string& name) {
  return fmt::format("{}({}) {}", to_string(type), fmt::join(dims, ", "), name);
}

// The one def of `text` (sizes all literals), compiled by the front end.
std::shared_ptr<Program> compile_view(const std::string& text, const std::string& what) {
  try {
    FrontendResult result = compile_source(SourceFile{what, text});
    return std::make_shared<Program>(std::move(result.programs.front()));
  } catch (const UserError& e) {
    PF_INTERNAL_CHECK(false, fmt::format("the view program of {} does not compile: {}\n{}", what, e.what(), text));
    throw;
  }
}

// A name for a workspace tensor, unique against the program's tensors.
std::string unique_tensor_name(const Program& program, const std::string& wanted) {
  std::string name = wanted;
  for (int i = 2; program.find_tensor(name); ++i) name = fmt::format("{}{}", wanted, i);
  return name;
}

// `indices` as whole groups of `g` ("b", "m", "n" for batch, M, N), or nullopt.
std::optional<Names> as_groups(const Names& indices, const ContractionGrouping& g) {
  Names out;
  for (std::size_t i = 0; i < indices.size();) {
    bool matched = false;
    for (const auto& [name, group] : {std::pair{"b", &g.batch}, std::pair{"m", &g.m}, std::pair{"n", &g.n}}) {
      if (group->empty() || i + group->size() > indices.size()) continue;
      if (!std::equal(group->begin(), group->end(), indices.begin() + static_cast<std::ptrdiff_t>(i))) continue;
      out.push_back(name);
      i += group->size();
      matched = true;
      break;
    }
    if (!matched) return std::nullopt;
  }
  return out;
}

// `e` of statement `s` with its reads in grouped indices, or nullopt when one is not whole groups.
std::optional<std::string> grouped_expr(const Expr& e, const Statement& s, const ContractionGrouping& g) {
  std::vector<std::string> operands;
  for (const Expr& operand : e.operands) {
    std::optional<std::string> text = grouped_expr(operand, s, g);
    if (!text) return std::nullopt;
    operands.push_back(*text);
  }
  switch (e.kind) {
    case ExprKind::constant: return format_number(e.value);
    case ExprKind::read: {
      const std::optional<Names> groups = as_groups(s.reads[e.read].indices, g);
      if (!groups) return std::nullopt;
      return fmt::format("{}({})", s.reads[e.read].tensor, fmt::join(*groups, ", "));
    }
    case ExprKind::negate: return fmt::format("-({})", operands[0]);
    case ExprKind::binary: return fmt::format("({} {} {})", operands[0], to_string(e.op), operands[1]);
    case ExprKind::call: return fmt::format("{}({})", to_string(e.function), fmt::join(operands, ", "));
    // conditions and index values are not rewritten into grouped indices: no view
    case ExprKind::index:
    case ExprKind::compare:
    case ExprKind::logical_and:
    case ExprKind::logical_or:
    case ExprKind::logical_not:
    case ExprKind::select: return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace

std::string ContractionGrouping::groups() const {
  return fmt::format("M=({}) N=({}) K=({}) batch=({}){}", fmt::join(m, ", "), fmt::join(n, ", "), fmt::join(k, ", "),
                     fmt::join(batch, ", "),
                     conv_groups.empty() ? "" : fmt::format(", one GEMM per group ({})", fmt::join(conv_groups, ", ")));
}

ContractionGrouping group_contraction(const Program& program, const Statement& s) {
  if (!s.is_reduction() || s.is_non_sum_reduction()) return not_gemm("not a sum");
  const Expr& e = s.expr;
  if (e.kind != ExprKind::binary || e.op != BinaryOp::mul || e.operands[0].kind != ExprKind::read ||
      e.operands[1].kind != ExprKind::read)
    return not_gemm("its right-hand side is not a product of two tensor reads");
  const Access& x = s.reads[e.operands[0].read];
  const Access& y = s.reads[e.operands[1].read];
  if (!x.is_plain() || !y.is_plain() || !s.write.is_plain())
    return not_gemm("an access reads through index expressions");
  if (!distinct(x.indices) || !distinct(y.indices) || !distinct(s.write.indices))
    return not_gemm("an access repeats an index (a diagonal)");
  if (x.tensor == y.tensor) return not_gemm(fmt::format("both factors read {}", x.tensor));
  const Names& o = s.write.indices;
  ContractionGrouping g;
  for (const std::string& i : o) {
    const bool in_x = has(x.indices, i), in_y = has(y.indices, i);
    if (!in_x && !in_y) return not_gemm(fmt::format("{} indexes the output but neither factor", i));
    (in_x && in_y ? g.batch : in_x ? g.m : g.n).push_back(i);
  }
  for (const Access* a : {&x, &y})
    for (const std::string& i : a->indices)
      if (!has(o, i) && !has(a == &x ? y.indices : x.indices, i))
        return not_gemm(fmt::format("{} is summed over {} alone", i, a->tensor));
  for (const std::string& i : x.indices)
    if (has(y.indices, i) && !has(o, i)) g.k.push_back(i);
  if (g.m.empty() || g.n.empty() || g.k.empty())
    return not_gemm(fmt::format("a GEMM needs free indices in both factors and a contracted one ({})", g.groups()));
  for (const Names* group : {&g.batch, &g.m, &g.n, &g.k}) {
    std::int64_t product = 1;
    for (const std::string& i : *group) {
      const Size size = bound_size(program, std::find_if(s.indices.begin(), s.indices.end(), [&](const IterationIndex& x) {
                                                return x.name == i;
                                              })->extent);
      product = size.is_symbolic() ? 1 : std::min(product * size.value, limits::max_size_value + 1);
    }
    if (product > limits::max_size_value)
      return not_gemm(fmt::format("the group ({}) has more than {} elements", fmt::join(*group, ", "),
                                  limits::max_size_value));
  }
  // A is the factor whose free indices come first in O.
  g.a_read = e.operands[0].read;
  g.b_read = e.operands[1].read;
  const auto first_free = std::find_if(o.begin(), o.end(), [&](const std::string& i) { return !has(g.batch, i); });
  if (!has(x.indices, *first_free)) {
    std::swap(g.a_read, g.b_read);
    std::swap(g.m, g.n);
  }
  const Names& a = s.reads[g.a_read].indices;
  const Names& b = s.reads[g.b_read].indices;
  // K in A's order, unless A is copied anyway and B's order spares B a copy.
  const auto layouts_with = [&](const Names& k_order) {
    ContractionGrouping t = g;
    t.k = k_order;
    t.a_column_major = a == concat({&g.batch, &k_order, &g.m});
    t.a_permuted = !t.a_column_major && a != concat({&g.batch, &g.m, &k_order});
    t.b_column_major = b == concat({&g.batch, &g.n, &k_order});
    t.b_permuted = !t.b_column_major && b != concat({&g.batch, &k_order, &g.n});
    return t;
  };
  ContractionGrouping chosen = layouts_with(in_order(a, g.k));
  if (chosen.a_permuted && chosen.b_permuted) {
    const ContractionGrouping other = layouts_with(in_order(b, g.k));
    if (!other.b_permuted) chosen = other;
  }
  chosen.output_permuted = o != concat({&g.batch, &g.m, &g.n});
  chosen.is_gemm = true;
  return chosen;
}

std::optional<GroupedEpilogue> group_epilogue(const Program& program, const Statement& s, const ContractionGrouping& g,
                                              const Statement& e) {
  if (g.output_permuted || !e.reduction_indices().empty() || e.index_names() != s.write.indices) return std::nullopt;
  for (std::size_t i = 0; i < e.indices.size(); ++i)
    if (bound_size(program, e.indices[i].extent) != Size{"", extent(program, s, e.indices[i].name)})
      return std::nullopt;
  GroupedEpilogue grouped;
  grouped.statement = e.id;
  std::vector<const Access*> accesses{&e.write};
  for (const Access& read : e.reads) accesses.push_back(&read);
  for (const Access* access : accesses) {
    if (!access->is_plain() || access->outside_value) return std::nullopt;
    const std::optional<Names> groups = as_groups(access->indices, g);
    if (!groups) return std::nullopt;
    std::vector<std::int64_t> dims;
    for (const std::string& group : *groups)
      dims.push_back(product(program, s, group == "b" ? g.batch : group == "m" ? g.m : g.n));
    if (grouped.dims.count(access->tensor) && grouped.dims[access->tensor] != dims) return std::nullopt;
    grouped.dims[access->tensor] = dims;
  }
  const std::optional<std::string> rhs = grouped_expr(e.expr, e, g);
  if (!rhs) return std::nullopt;
  grouped.text = fmt::format("{}({}) {} {}", e.write.tensor, fmt::join(*as_groups(e.write.indices, g), ", "),
                             operator_spelling(e), *rhs);
  return grouped;
}

ContractionPlan plan_contraction(const Program& program, const Statement& s, const ContractionGrouping& g,
                                 const std::vector<GroupedEpilogue>& epilogues, const std::set<std::string>& kept) {
  PF_INTERNAL_CHECK(epilogues.empty() || !g.output_permuted, "an epilogue after a permuted output");
  const ElementType output_type = memory_type(program, s.write.tensor);
  PF_INTERNAL_CHECK(g.is_gemm, "plan_contraction of a statement that is not a GEMM");
  ContractionPlan plan;
  const auto dims_of = [&](const Names& order) {
    std::vector<std::int64_t> dims;
    for (const std::string& i : order) dims.push_back(extent(program, s, i));
    return dims;
  };
  const auto subscripts = [](const Names& order) { return fmt::format("{}", fmt::join(order, ", ")); };
  const std::string& o_name = s.write.tensor;

  // The GEMM's operand: the tensor itself (a view of it) or its permutation copy.
  struct Operand {
    std::string tensor;
    ElementType type;
  };
  const auto operand = [&](int read, bool permuted, const Names& order, const std::string& suffix) {
    const Access& access = s.reads[read];
    const Tensor& tensor = *program.find_tensor(access.tensor);
    if (suffix == "A" && g.a_gathered) return Operand{unique_tensor_name(program, access.tensor + "_im2col"), tensor.type};
    // a def's temporary is read from the plan's workspace, in its memory_type (f32 unless a
    // conversion writes it)
    if (!permuted) return Operand{access.tensor, memory_type(program, access.tensor)};
    const std::string copy = unique_tensor_name(program, o_name + "_" + suffix);
    const ElementType copy_type = computed_type(tensor.type);  // an FP8 operand's copy is decoded (f32)
    const std::string text =
        fmt::format("def {0}({1}) -> ({2}) {{\n  {3}({4}) = {5}({6})\n}}\n", copy + "_copy",
                    declaration(memory_type(program, access.tensor), dims_of(access.indices), access.tensor),
                    declaration(copy_type, dims_of(order), copy), copy, subscripts(order), access.tensor,
                    subscripts(access.indices));
    plan.steps.push_back({ContractionStep::Kind::permute_operand, compile_view(text, "permutation of " + access.tensor),
                          fmt::format("{} copied into {} order ({}) for {}'s GEMM", access.tensor, suffix == "A" ? "[batch][M][K]" : "[batch][K][N]",
                                      subscripts(order), s.id)});
    plan.temporaries.push_back({copy, copy_type, dims_of(order)});
    return Operand{copy, copy_type};
  };
  const Operand a = operand(g.a_read, g.a_permuted, concat({&g.batch, &g.m, &g.k}), "A");
  const Operand b = operand(g.b_read, g.b_permuted, concat({&g.batch, &g.k, &g.n}), "B");

  // The GEMM over the grouped view: one index per group (b only when there is a batch).
  const bool batched = !g.batch.empty();
  const std::int64_t extent_b = product(program, s, g.batch), extent_m = product(program, s, g.m),
                     extent_n = product(program, s, g.n), extent_k = product(program, s, g.k);
  const auto view_dims = [&](std::vector<std::int64_t> dims) {
    if (batched) dims.insert(dims.begin(), extent_b);
    return dims;
  };
  const auto view_indices = [&](const std::string& i, const std::string& j) {
    return batched ? fmt::format("b, {}, {}", i, j) : fmt::format("{}, {}", i, j);
  };
  const bool a_column = !g.a_permuted && g.a_column_major, b_column = !g.b_permuted && g.b_column_major;
  const std::string gemm_out = g.output_permuted ? unique_tensor_name(program, o_name + "_gemm") : o_name;
  const ElementType gemm_type = g.output_permuted ? ElementType::f32 : output_type;
  const std::string op = s.kind == StatementKind::reduce_init || g.output_permuted ? "+=!" : "+=";
  // The view's signature: A and B, the tensors the epilogues only read, then what stays in memory.
  std::vector<std::string> inputs{
      declaration(a.type, view_dims(a_column ? std::vector{extent_k, extent_m} : std::vector{extent_m, extent_k}),
                  a.tensor),
      declaration(b.type, view_dims(b_column ? std::vector{extent_n, extent_k} : std::vector{extent_k, extent_n}),
                  b.tensor)};
  std::vector<std::string> outputs;
  std::vector<std::string> written{gemm_out}, declared{a.tensor, b.tensor};
  if (g.output_permuted || kept.count(gemm_out)) outputs.push_back(declaration(gemm_type, view_dims({extent_m, extent_n}), gemm_out));
  declared.push_back(gemm_out);
  std::string statements = fmt::format("  {}({}) {} {}({}) * {}({})\n", gemm_out, view_indices("m", "n"), op, a.tensor,
                                       a_column ? view_indices("k", "m") : view_indices("m", "k"), b.tensor,
                                       b_column ? view_indices("n", "k") : view_indices("k", "n"));
  for (const GroupedEpilogue& e : epilogues) {
    statements += "  " + e.text + "\n";
    written.push_back(program.find_statement(e.statement)->write.tensor);
  }
  for (const GroupedEpilogue& e : epilogues)
    for (const auto& [tensor, dims] : e.dims) {
      if (has(declared, tensor)) continue;
      declared.push_back(tensor);
      if (!has(written, tensor)) inputs.push_back(declaration(memory_type(program, tensor), dims, tensor));
      else if (kept.count(tensor)) outputs.push_back(declaration(memory_type(program, tensor), dims, tensor));
    }
  const std::string gemm_text = fmt::format("def gemm({}) -> ({}) {{\n{}}}\n", fmt::join(inputs, ", "),
                                            fmt::join(outputs, ", "), statements);
  const bool by_element = g.a_gathered && implicit_gemm_by_element(program, s);
  const std::string implicit = fmt::format("as an implicit GEMM: {}; A = {} gathered from {}{} in the copy to shared "
                                           "memory (never in memory), B = {} {}",
                                           g.groups(), a.tensor, s.reads[g.a_read].tensor,
                                           by_element ? " element by element (its channels are not whole 16-byte chunks)"
                                                      : "",
                                           b.tensor, b_column ? "column-major" : "row-major");
  plan.steps.push_back({ContractionStep::Kind::gemm, compile_view(gemm_text, "GEMM of " + s.id),
                        g.a_gathered ? implicit : fmt::format("as a GEMM over grouped indices: {}; A = {} {}, B = {} {}; {}",
                                    g.groups(), a.tensor, a_column ? "column-major" : "row-major", b.tensor,
                                    b_column ? "column-major" : "row-major",
                                    g.a_permuted || g.b_permuted || g.output_permuted ? "with permutation copies"
                                                                                       : "no permutation copy")});
  if (!g.output_permuted) return plan;

  // O from the GEMM's [batch][M][N] result.
  plan.temporaries.push_back({gemm_out, ElementType::f32, dims_of(concat({&g.batch, &g.m, &g.n}))});
  const std::string text =
      fmt::format("def {0}({1}) -> ({2}) {{\n  {3}({4}) {5} {6}({7})\n}}\n", o_name + "_permute",
                  declaration(ElementType::f32, dims_of(concat({&g.batch, &g.m, &g.n})), gemm_out),
                  declaration(output_type, dims_of(s.write.indices), o_name), o_name, subscripts(s.write.indices),
                  s.kind == StatementKind::reduce_init ? "=" : "+=", gemm_out,
                  subscripts(concat({&g.batch, &g.m, &g.n})));
  plan.steps.push_back({ContractionStep::Kind::permute_output, compile_view(text, "permutation of " + o_name),
                        fmt::format("{} permuted from the GEMM's [batch][M][N] order ({})", o_name,
                                    subscripts(concat({&g.batch, &g.m, &g.n})))});
  return plan;
}

std::vector<GroupedEpilogue> epilogues_after(const Program& program, const Statement& s,
                                             const ContractionGrouping& grouping) {
  std::vector<GroupedEpilogue> epilogues;
  std::map<std::string, std::vector<std::int64_t>> dims;
  // A grouped convolution's kernel reads a group's columns of the epilogues' tensors from its first
  // (g * the group's columns) with 16-byte loads: each group must start 16-byte aligned.
  const std::int64_t group_columns = extent(program, s, s.write.indices.back());
  const auto misaligned = [&](const Statement& e) {
    return !grouping.conv_groups.empty() &&
           std::any_of(e.reads.begin(), e.reads.end(), [&](const Access& read) {
             return read.tensor != s.write.tensor &&  // in registers
                    group_columns * size_in_bytes(memory_type(program, read.tensor)) % 16 != 0;
           });
  };
  for (int i = program.statement_index(s.id) + 1; i < static_cast<int>(program.statements.size()); ++i) {
    std::optional<GroupedEpilogue> e = group_epilogue(program, s, grouping, program.statements[i]);
    if (!e || misaligned(program.statements[i])) break;
    for (const auto& [tensor, view] : e->dims)
      if ((dims.count(tensor) && dims[tensor] != view) ||
          (tensor == s.reads[grouping.a_read].tensor && !grouping.a_gathered) ||
          tensor == s.reads[grouping.b_read].tensor)
        return epilogues;
    dims.insert(e->dims.begin(), e->dims.end());
    epilogues.push_back(std::move(*e));
  }
  return epilogues;
}

std::set<std::string> kept_tensors(const Program& program, const Statement& s,
                                   const std::vector<GroupedEpilogue>& epilogues) {
  std::vector<std::string> ids{s.id};
  for (const GroupedEpilogue& e : epilogues) ids.push_back(e.statement);
  std::set<std::string> kept;
  for (const std::string& id : ids) {
    const std::string& tensor = program.find_statement(id)->write.tensor;
    if (program.find_tensor(tensor)->role == TensorRole::output) kept.insert(tensor);
    for (const Statement& other : program.statements)
      if (!has(ids, other.id) && (other.write.tensor == tensor || reads_tensor(other, tensor))) kept.insert(tensor);
  }
  // A result nobody reads (dead code) is still computed, as every path computes it: the
  // contraction's own result goes to the workspace, so that its GEMM has an output.
  if (kept.empty()) kept.insert(s.write.tensor);
  return kept;
}

}  // namespace polyfuse
