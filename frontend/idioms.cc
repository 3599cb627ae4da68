#include "frontend/idioms.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <set>

namespace polyfuse {
namespace {

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// The operand read of `factor`: the first read whose indices include those of every read
// of the factor (the others broadcast against it, e.g. g(k) in `A(m, k) * g(k)`); -1 if
// no read does.
int operand_read(const Statement& s, const Expr& factor) {
  std::vector<int> reads = reads_in(factor);
  for (int candidate : reads) {
    const std::vector<std::string>& all = s.reads[static_cast<std::size_t>(candidate)].indices;
    bool covers = true;
    for (int other : reads)
      for (const std::string& index : s.reads[static_cast<std::size_t>(other)].indices)
        covers = covers && contains(all, index);
    if (covers) return candidate;
  }
  return -1;
}

// Fills `idiom` for a reduction statement, or returns why it is not a matmul.
std::string match_matmul(const Statement& s, MatmulIdiom& idiom, bool& batch_reduce) {
  std::vector<std::string> reductions = s.reduction_indices();
  if (reductions.size() > 2) return "more than two reduction indices";
  if (s.expr.kind != ExprKind::binary || s.expr.op != BinaryOp::mul)
    return "the right-hand side is not a product";
  const Expr& left = s.expr.operands[0];
  const Expr& right = s.expr.operands[1];
  int left_read = operand_read(s, left), right_read = operand_read(s, right);
  if (left_read < 0 || right_read < 0) return "a factor reads no tensor at every index of the factor";
  const std::vector<std::string>& c = s.write.indices;
  if (c.size() < 2) return "the result has fewer than two dimensions";
  idiom.m = c[c.size() - 2];
  idiom.n = c[c.size() - 1];
  idiom.batch.assign(c.begin(), c.end() - 2);
  const std::vector<std::string>& li = s.reads[static_cast<std::size_t>(left_read)].indices;
  const std::vector<std::string>& ri = s.reads[static_cast<std::size_t>(right_read)].indices;
  bool left_is_a = contains(li, idiom.m) && !contains(li, idiom.n) && contains(ri, idiom.n) &&
                   !contains(ri, idiom.m);
  bool left_is_b = contains(li, idiom.n) && !contains(li, idiom.m) && contains(ri, idiom.m) &&
                   !contains(ri, idiom.n);
  if (!left_is_a && !left_is_b) return "no factor is indexed by the rows and the other by the columns";
  idiom.a_is_left = left_is_a;
  const Expr& a_factor = left_is_a ? left : right;
  const Expr& b_factor = left_is_a ? right : left;
  int a_read = left_is_a ? left_read : right_read;
  int b_read = left_is_a ? right_read : left_read;
  const std::vector<std::string>& a = s.reads[static_cast<std::size_t>(a_read)].indices;
  const std::vector<std::string>& b = s.reads[static_cast<std::size_t>(b_read)].indices;
  if (a.size() < 2 || b.size() < 2) return "an operand has fewer than two dimensions";
  // k is the reduction index among A's last two indices.
  std::string a1 = a[a.size() - 2], a2 = a[a.size() - 1];
  std::string b1 = b[b.size() - 2], b2 = b[b.size() - 1];
  std::string k = a1 == idiom.m ? a2 : a2 == idiom.m ? a1 : "";
  if (k.empty() || !contains(reductions, k)) return "A's last two indices are not m and a reduction index";
  idiom.k = k;
  if (a1 == idiom.m) idiom.a.layout = MatrixLayout::row_major; else idiom.a.layout = MatrixLayout::column_major;
  if (b1 == k && b2 == idiom.n) idiom.b.layout = MatrixLayout::row_major;
  else if (b1 == idiom.n && b2 == k) idiom.b.layout = MatrixLayout::column_major;
  else return "B's last two indices are not k and n";
  std::vector<std::string> a_lead(a.begin(), a.end() - 2), b_lead(b.begin(), b.end() - 2);
  // One operand may leave out the batch indices: it is the same for every batch element.
  const bool one_shared = reductions.size() == 1 && (a_lead.empty() || b_lead.empty());
  if (a_lead != b_lead && !one_shared) return "A and B have different batch indices";
  if (reductions.size() == 1) {
    if ((a_lead.empty() ? b_lead : a_lead) != idiom.batch)
      return "the batch indices of the operands differ from the result's";
    batch_reduce = false;
  } else {
    std::string r = reductions[0] == k ? reductions[1] : reductions[0];
    std::vector<std::string> without_r;
    for (const std::string& index : a_lead)
      if (index != r) without_r.push_back(index);
    if (!contains(a_lead, r) || without_r != idiom.batch)
      return "the second reduction index is not a batch index of both operands";
    idiom.reduce_batch = r;
    batch_reduce = true;
  }
  idiom.zero_init = s.kind == StatementKind::reduce_init;
  idiom.a.read = a_read;
  idiom.a.tensor = s.reads[static_cast<std::size_t>(a_read)].tensor;
  idiom.a.has_prologue = a_factor.kind != ExprKind::read;
  idiom.a.factor = a_factor;
  idiom.b.read = b_read;
  idiom.b.tensor = s.reads[static_cast<std::size_t>(b_read)].tensor;
  idiom.b.has_prologue = b_factor.kind != ExprKind::read;
  idiom.b.factor = b_factor;
  return "";
}

bool is_matmul(const StatementIdiom& idiom) {
  return idiom.kind == IdiomKind::matmul || idiom.kind == IdiomKind::batch_reduce_matmul;
}

}  // namespace

std::string_view to_string(MatrixLayout layout) {
  return layout == MatrixLayout::row_major ? "row-major" : "column-major";
}

std::string_view to_string(IdiomKind kind) {
  switch (kind) {
    case IdiomKind::matmul: return "matmul";
    case IdiomKind::batch_reduce_matmul: return "batch-reduce matmul";
    case IdiomKind::pointwise: return "pointwise";
    case IdiomKind::other: return "other";
  }
  return "?";
}

// Why a statement that reads through index expressions is `other`.
constexpr std::string_view index_expression_reason =
    "a read has index expressions (like a convolution's h + r): not a matmul (the GPU plan may make it an implicit "
    "GEMM)";

std::string unsupported_reduction(const StatementIdiom& idiom, std::string_view target) {
  if (idiom.reason == index_expression_reason)
    return fmt::format("this statement reads through index expressions (a convolution, a shift or a padded read); "
                       "beside a matmul such statements are not supported yet on {} (a def without a matmul runs "
                       "them)", target);
  return fmt::format("this reduction is not a matmul ({}); reductions that are not matmuls (row reductions: softmax, "
                     "layer norm, ...) are not supported yet on {}: they wait for issue 20's kernel plans",
                     idiom.reason, target);
}

const StatementIdiom* Idioms::find(std::string_view id) const {
  for (const StatementIdiom& idiom : statements)
    if (idiom.statement == id) return &idiom;
  return nullptr;
}

namespace {

// The idioms of `program`'s statements, given its statement-level flow dependences.
Idioms classify(const Program& program, const std::vector<std::pair<std::string, std::string>>& flow) {
  Idioms idioms;
  for (const Statement& s : program.statements) {
    StatementIdiom idiom;
    idiom.statement = s.id;
    const bool affine = std::any_of(s.reads.begin(), s.reads.end(), [](const Access& read) { return !read.is_plain(); });
    if (affine) {
      // A convolution, a shifted or a padded read: not a matmul; the GPU plan decides whether a
      // convolution is an implicit GEMM (schedule/implicit_gemm.h).
      idiom.reason = index_expression_reason;
    } else if (s.is_non_sum_reduction()) {
      idiom.reason = fmt::format("it is a {} reduction ('{}'), not a sum", to_string(s.reduction),
                                 operator_spelling(s));
    } else if (s.reduction_indices().empty()) {
      idiom.kind = IdiomKind::pointwise;
    } else {
      bool batch_reduce = false;
      idiom.reason = match_matmul(s, idiom.matmul, batch_reduce);
      if (idiom.reason.empty())
        idiom.kind = batch_reduce ? IdiomKind::batch_reduce_matmul : IdiomKind::matmul;
      else
        idiom.matmul = MatmulIdiom{};
    }
    idioms.statements.push_back(std::move(idiom));
  }
  // Statement-level RAW graph.
  std::size_t count = program.statements.size();
  std::vector<std::vector<std::size_t>> consumers(count), producers(count);
  for (const auto& [source, sink] : flow) {
    auto from = static_cast<std::size_t>(program.statement_index(source));
    auto to = static_cast<std::size_t>(program.statement_index(sink));
    consumers[from].push_back(to);
    producers[to].push_back(from);
  }
  for (std::size_t p = 0; p < count; ++p) {
    if (idioms.statements[p].kind != IdiomKind::pointwise) continue;
    std::set<std::size_t> prologue_of, epilogue_of, seen;
    // Backwards: matmuls whose result reaches p through pointwise statements.
    std::function<void(std::size_t)> back = [&](std::size_t node) {
      for (std::size_t source : producers[node]) {
        if (!seen.insert(source).second) continue;
        if (is_matmul(idioms.statements[source])) epilogue_of.insert(source);
        else if (idioms.statements[source].kind == IdiomKind::pointwise) back(source);
      }
    };
    back(p);
    seen.clear();
    // Forwards: matmuls whose operands p's result reaches through pointwise statements.
    std::function<void(std::size_t)> forward = [&](std::size_t node) {
      const std::string& written = program.statements[node].write.tensor;
      for (std::size_t sink : consumers[node]) {
        const StatementIdiom& target = idioms.statements[sink];
        if (is_matmul(target)) {
          if (target.matmul.a.tensor == written || target.matmul.b.tensor == written)
            prologue_of.insert(sink);
        } else if (target.kind == IdiomKind::pointwise && seen.insert(sink).second) {
          forward(sink);
        }
      }
    };
    forward(p);
    for (std::size_t m : prologue_of) idioms.statements[p].prologue_of.push_back(program.statements[m].id);
    for (std::size_t m : epilogue_of) idioms.statements[p].epilogue_of.push_back(program.statements[m].id);
  }
  return idioms;
}

}  // namespace

Idioms recognize_idioms(const Program& program) { return classify(program, flow_statement_pairs(program)); }

Idioms recognize_idioms(const Program& program, const Dependences& dependences) {
  return classify(program, statement_pairs(program, dependences.raw));
}

}  // namespace polyfuse
