#include "schedule/attention.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "schedule/plan_from_program.h"

namespace polyfuse {
namespace {

bool is_read(const Expr& e, int read) { return e.kind == ExprKind::read && e.read == read; }

// No reads and no index values: a number (sizes are bound).
bool is_constant(const Expr& e) {
  if (e.kind == ExprKind::read || e.kind == ExprKind::index) return false;
  return std::all_of(e.operands.begin(), e.operands.end(), [](const Expr& o) { return is_constant(o); });
}

bool is_binary(const Expr& e, BinaryOp op) {
  return e.kind == ExprKind::binary && e.op == op && is_read(e.operands[0], 0) && is_read(e.operands[1], 1);
}

// exp(read 0 - read 1), or a conversion of it.
bool is_exponential(const Expr& e) {
  const Expr* x = &e;
  if (x->kind == ExprKind::call && conversion_type(x->function)) x = &x->operands[0];
  return x->kind == ExprKind::call && x->function == Function::exp && is_binary(x->operands[0], BinaryOp::sub);
}

std::vector<std::string> with(std::vector<std::string> names, const std::string& last) {
  names.push_back(last);
  return names;
}

std::vector<std::string> without_last(std::vector<std::string> names) {
  names.pop_back();
  return names;
}

bool plain(const Statement& s) {
  return s.write.is_plain() && std::all_of(s.reads.begin(), s.reads.end(), [](const Access& a) { return a.is_plain(); });
}

// A reduction `op=!` of one term, read(0) (a sum's, a max's), whose read is its write plus one index.
bool is_row_reduction(const Statement& s, ReductionOp op, const std::string& tensor) {
  return s.kind == StatementKind::reduce_init && s.reduction == op && s.reads.size() == 1 && is_read(s.expr, 0) &&
         s.reads[0].tensor == tensor && s.reduction_indices().size() == 1 &&
         s.reads[0].indices == with(s.write.indices, s.reduction_indices()[0]);
}

bool is_16_bit(ElementType type) { return type == ElementType::f16 || type == ElementType::bf16; }

// The positions in `names` of `indices` when they are some of `names` in order (a subsequence).
std::optional<std::vector<int>> positions_in(const std::vector<std::string>& indices, const std::vector<std::string>& names) {
  std::vector<int> positions;
  std::size_t from = 0;
  for (const std::string& index : indices) {
    const auto at = std::find(names.begin() + static_cast<std::ptrdiff_t>(from), names.end(), index);
    if (at == names.end()) return std::nullopt;
    positions.push_back(static_cast<int>(at - names.begin()));
    from = static_cast<std::size_t>(at - names.begin()) + 1;
  }
  return positions;
}

// `access`'s layout (Attention::q_layout) when its last index is `last`, `row` is one of the
// others, and the rest are some of `batch` (in any order), each index once.
std::optional<std::vector<int>> layout_of(const Access& access, const std::vector<std::string>& batch,
                                          const std::string& row, const std::string& last) {
  const std::vector<std::string>& ix = access.indices;
  if (ix.size() < 2 || ix.back() != last) return std::nullopt;
  std::vector<int> layout;
  for (std::size_t j = 0; j + 1 < ix.size(); ++j) {
    if (std::find(ix.begin(), ix.begin() + static_cast<std::ptrdiff_t>(j), ix[j]) != ix.begin() + static_cast<std::ptrdiff_t>(j))
      return std::nullopt;  // twice
    if (ix[j] == row) {
      layout.push_back(attention_row);
      continue;
    }
    const auto at = std::find(batch.begin(), batch.end(), ix[j]);
    if (at == batch.end()) return std::nullopt;
    layout.push_back(static_cast<int>(at - batch.begin()));
  }
  if (std::count(layout.begin(), layout.end(), attention_row) != 1) return std::nullopt;
  return layout;
}

bool accessed_by(const Statement& s, const std::string& tensor) {
  return s.write.tensor == tensor ||
         std::any_of(s.reads.begin(), s.reads.end(), [&](const Access& a) { return a.tensor == tensor; });
}

// `index + k` (or `k + index`, `index - k`, `index`) with an integer k: the index and k.
std::optional<std::pair<std::string, std::int64_t>> index_plus(const Expr& e) {
  if (e.kind == ExprKind::index) return std::make_pair(e.index, std::int64_t{0});
  if (e.kind != ExprKind::binary || (e.op != BinaryOp::add && e.op != BinaryOp::sub)) return std::nullopt;
  const Expr& l = e.operands[0];
  const Expr& r = e.operands[1];
  const auto integer = [](const Expr& c) { return c.kind == ExprKind::constant && c.value == std::floor(c.value) && std::fabs(c.value) < 1e9; };
  if (l.kind == ExprKind::index && integer(r))
    return std::make_pair(l.index, static_cast<std::int64_t>(e.op == BinaryOp::add ? r.value : -r.value));
  if (e.op == BinaryOp::add && r.kind == ExprKind::index && integer(l))
    return std::make_pair(r.index, static_cast<std::int64_t>(l.value));
  return std::nullopt;
}

// c when `step` is `t <= s + c ? x : C` in one of its spellings (t the key, s the query), c >= 0,
// C <= -1e20 a constant.
std::optional<std::int64_t> causal_reach_of(const Statement& step) {
  const Expr& e = step.expr;
  const auto& w = step.write.indices;
  if (e.kind != ExprKind::select || e.operands[0].kind != ExprKind::compare || !is_read(e.operands[1], 0))
    return std::nullopt;
  const Expr& masked = e.operands[2];  // -1e30 is the negation of a literal
  const double value = masked.kind == ExprKind::constant ? masked.value
                       : masked.kind == ExprKind::negate && masked.operands[0].kind == ExprKind::constant
                           ? -masked.operands[0].value
                           : 0;
  if (value > -1e20) return std::nullopt;
  const Expr& cmp = e.operands[0];
  const auto a = index_plus(cmp.operands[0]);
  const auto b = index_plus(cmp.operands[1]);
  if (!a || !b) return std::nullopt;
  const std::string& key = w.back();
  const std::string& query = w[w.size() - 2];
  std::optional<std::int64_t> reach;  // keys t <= s + reach
  if (a->first == key && b->first == query) {  // t + ka (<=|<) s + kb
    if (cmp.comparison == Comparison::le) reach = b->second - a->second;
    if (cmp.comparison == Comparison::lt) reach = b->second - a->second - 1;
  } else if (a->first == query && b->first == key) {  // s + ka (>=|>) t + kb
    if (cmp.comparison == Comparison::ge) reach = a->second - b->second;
    if (cmp.comparison == Comparison::gt) reach = a->second - b->second - 1;
  }
  if (!reach || *reach < 0) return std::nullopt;
  return reach;
}

// The value of a constant expression of numbers, + - * /, sqrt and rsqrt; nullopt for others.
std::optional<double> constant_value(const Expr& e) {
  switch (e.kind) {
    case ExprKind::constant: return e.value;
    case ExprKind::negate: {
      const auto x = constant_value(e.operands[0]);
      return x ? std::optional<double>(-*x) : std::nullopt;
    }
    case ExprKind::binary: {
      const auto x = constant_value(e.operands[0]), y = constant_value(e.operands[1]);
      if (!x || !y) return std::nullopt;
      switch (e.op) {
        case BinaryOp::add: return *x + *y;
        case BinaryOp::sub: return *x - *y;
        case BinaryOp::mul: return *x * *y;
        case BinaryOp::div: return *y == 0 ? std::nullopt : std::optional<double>(*x / *y);
      }
      return std::nullopt;
    }
    case ExprKind::call: {
      const auto x = constant_value(e.operands[0]);
      if (!x || *x <= 0 || e.operands.size() != 1) return std::nullopt;
      if (e.function == Function::sqrt) return std::sqrt(*x);
      if (e.function == Function::rsqrt) return 1 / std::sqrt(*x);
      return std::nullopt;
    }
    default: return std::nullopt;
  }
}

// |the factor| when `e` is `read 0 * c` or `read 0 / c` with a constant c, else nullopt.
std::optional<double> scale_factor(const Expr& e) {
  if (e.kind != ExprKind::binary || (e.op != BinaryOp::mul && e.op != BinaryOp::div) || !is_read(e.operands[0], 0))
    return std::nullopt;
  const auto c = constant_value(e.operands[1]);
  if (!c || *c == 0) return std::nullopt;
  return e.op == BinaryOp::mul ? std::fabs(*c) : 1 / std::fabs(*c);
}

}  // namespace

std::int64_t Attention::batch() const {
  std::int64_t n = 1;
  for (std::int64_t e : batch_extents) n *= e;
  return n;
}

std::optional<std::variant<Attention, std::string>> attention_of(const Program& program,
                                                                 const std::vector<std::string>& ids, F32Matmul f32) {
  std::vector<const Statement*> st;
  for (const std::string& id : ids) st.push_back(program.find_statement(id));
  if (st.size() < 5 || !std::all_of(st.begin(), st.end(), [](const Statement* s) { return s && plain(*s); }))
    return std::nullopt;
  Attention a;
  // the scores: L(b.., s, t) +=! Q(b.., s, d) * K(b.., t, d)
  const Statement& sc = *st[0];
  const std::vector<std::string>& w = sc.write.indices;
  // Q * K, or Q * K times or over a constant (a scale the front end leaves in the sum when Q * K is
  // not a matmul it recognises: K shared by the heads)
  const Expr* product_of_reads = &sc.expr;
  if (sc.expr.kind == ExprKind::binary && (sc.expr.op == BinaryOp::mul || sc.expr.op == BinaryOp::div) &&
      is_binary(sc.expr.operands[0], BinaryOp::mul) && is_constant(sc.expr.operands[1])) {
    product_of_reads = &sc.expr.operands[0];
    a.scale = sc.expr.operands[1];
    a.scale_divides = sc.expr.op == BinaryOp::div;
  }
  if (sc.kind != StatementKind::reduce_init || sc.reduction != ReductionOp::sum || sc.reads.size() != 2 ||
      !is_binary(*product_of_reads, BinaryOp::mul) || w.size() < 2 || sc.reduction_indices().size() != 1)
    return std::nullopt;
  const std::vector<std::string> batch(w.begin(), w.end() - 2);
  const std::string d = sc.reduction_indices()[0];
  const auto q_layout = layout_of(sc.reads[0], batch, w[w.size() - 2], d);
  const auto k_layout = layout_of(sc.reads[1], batch, w.back(), d);
  if (!q_layout || !k_layout) return std::nullopt;
  a.q_layout = *q_layout;
  a.k_layout = *k_layout;
  a.scores = sc.id;
  a.q = sc.reads[0].tensor;
  a.k = sc.reads[1].tensor;
  std::vector<std::string> internal = {sc.write.tensor};  // the tensors no memory holds
  std::string x = sc.write.tensor;
  std::size_t i = 1;
  // pointwise steps on the score: each reads only the one before, at the element
  for (; i < st.size(); ++i) {
    const Statement& p = *st[i];
    // each read: the score before at the element, or a tensor no statement here writes at some of
    // the element's indices in order (a mask, a bias: read from memory)
    const bool step = p.kind == StatementKind::assign && p.write.indices.size() == w.size() &&
                      std::any_of(p.reads.begin(), p.reads.end(), [&](const Access& r) { return r.tensor == x; }) &&
                      std::all_of(p.reads.begin(), p.reads.end(), [&](const Access& r) {
                        if (r.tensor == x) return r.indices == p.write.indices;
                        return std::none_of(st.begin(), st.end(), [&](const Statement* o) { return o->write.tensor == r.tensor; }) &&
                               positions_in(r.indices, p.write.indices).has_value();
                      });
    if (!step) break;
    a.score_steps.push_back(p.id);
    x = p.write.tensor;
    internal.push_back(x);
  }
  // mx(b.., s) max=! X(b.., s, t)
  if (i >= st.size() || !is_row_reduction(*st[i], ReductionOp::max, x) || st[i]->write.indices.size() != w.size() - 1)
    return std::nullopt;
  a.row_max = st[i]->id;
  const std::string mx = st[i++]->write.tensor;
  internal.push_back(mx);
  // e(b.., s, t) = exp(X(b.., s, t) - mx(b.., s))
  if (i >= st.size()) return std::nullopt;
  const Statement& ex = *st[i++];
  if (ex.kind != StatementKind::assign || ex.reads.size() != 2 || !is_exponential(ex.expr) || ex.reads[0].tensor != x ||
      ex.reads[1].tensor != mx || ex.reads[0].indices != ex.write.indices ||
      ex.write.indices.size() != w.size() || ex.reads[1].indices != without_last(ex.write.indices))
    return std::nullopt;
  a.exponentials = ex.id;
  a.e = ex.write.tensor;
  internal.push_back(a.e);
  // z(b.., s) +=! e(b.., s, t)
  if (i >= st.size() || !is_row_reduction(*st[i], ReductionOp::sum, a.e)) return std::nullopt;
  a.row_sum = st[i]->id;
  const std::string z = st[i++]->write.tensor;
  internal.push_back(z);
  // P(b.., s, n) +=! e(b.., s, t) * V(b.., t, n), then O(b.., s, n) = P(b.., s, n) / z(b.., s); or
  // O(b.., s, n) +=! e(b.., s, t) * V(b.., t, n) / z(b.., s) (the front end leaves the factor in
  // the sum when e * V is not a matmul it recognises: V shared by the heads). V and O may hold
  // their indices in another order (n last), and P likewise (on chip, its order is only names).
  if (i >= st.size()) return std::nullopt;
  const Statement& pv = *st[i++];
  const bool divided = pv.reads.size() == 3 && pv.expr.kind == ExprKind::binary && pv.expr.op == BinaryOp::div &&
                       is_binary(pv.expr.operands[0], BinaryOp::mul) && is_read(pv.expr.operands[1], 2);
  if (pv.kind != StatementKind::reduce_init || pv.reduction != ReductionOp::sum ||
      !(divided || (pv.reads.size() == 2 && is_binary(pv.expr, BinaryOp::mul))) || pv.reads[0].tensor != a.e ||
      pv.reduction_indices().size() != 1 || pv.write.indices.size() != w.size())
    return std::nullopt;
  {
    // e's indices (b.., s, t) as this statement names them
    const std::vector<std::string>& ei = pv.reads[0].indices;
    const std::string t = pv.reduction_indices()[0];
    const std::string n = pv.write.indices.back();
    if (ei.size() != w.size() || ei.back() != t) return std::nullopt;
    const std::vector<std::string> pb(ei.begin(), ei.end() - 2);
    const auto v_layout = layout_of(pv.reads[1], pb, t, n);
    if (!v_layout) return std::nullopt;
    a.v_layout = *v_layout;
    // P's (or O's) indices: e's but t, and n last, in any order
    const auto p_layout = layout_of(pv.write, pb, ei[ei.size() - 2], n);
    if (!p_layout) return std::nullopt;
    a.out_layout = *p_layout;
    if (divided && (pv.reads[2].tensor != z || pv.reads[2].indices != without_last(ei))) return std::nullopt;
  }
  a.product = pv.id;
  a.v = pv.reads[1].tensor;
  if (divided) {
    a.out = pv.write.tensor;
  } else {
    internal.push_back(pv.write.tensor);
    // O(b.., s, n) = P(b.., s, n) / z(b.., s)
    if (i >= st.size()) return std::nullopt;
    const Statement& dv = *st[i++];
    if (dv.kind != StatementKind::assign || dv.reads.size() != 2 || !is_binary(dv.expr, BinaryOp::div) ||
        dv.reads[0].tensor != pv.write.tensor || dv.reads[1].tensor != z)
      return std::nullopt;
    // P's indices as this statement names them; their names in e's order (b.., s)
    const std::vector<std::string>& pi = dv.reads[0].indices;
    const std::vector<int> p_layout = a.out_layout;
    if (pi.size() != p_layout.size() + 1 || dv.write.indices.size() != pi.size()) return std::nullopt;
    std::vector<std::string> ordered(p_layout.size());
    for (std::size_t k = 0; k < p_layout.size(); ++k)
      ordered[p_layout[k] == attention_row ? ordered.size() - 1 : static_cast<std::size_t>(p_layout[k])] = pi[k];
    const auto out_layout = layout_of(dv.write, without_last(ordered), ordered.back(), pi.back());
    if (!out_layout || dv.reads[1].indices != ordered) return std::nullopt;
    a.out_layout = *out_layout;
    a.division = dv.id;
    a.out = dv.write.tensor;
  }
  if (i != st.size()) return std::nullopt;

  a.on_chip = internal;
  // The walk may stop at the causal mask's last key tile only when no score it keeps can come near
  // the masked value: f16 operands (|Q·Kᵀ| <= 128 * 65504^2 at the widest head), scaled by constants
  // only before the mask (|scale| <= 1e6): every kept score is above -1e18, the masked one at most
  // -1e20, so exp(masked - max) is 0 whatever the row's maximum.
  if (!a.score_steps.empty()) {
    double scale = 1;
    bool bounded = program.find_tensor(a.q)->type == ElementType::f16;
    if (a.scale) {
      const auto c = constant_value(*a.scale);
      bounded &= c && *c != 0;
      if (bounded) scale *= a.scale_divides ? 1 / std::fabs(*c) : std::fabs(*c);
    }
    for (std::size_t k = 0; k + 1 < a.score_steps.size() && bounded; ++k) {
      const auto c = scale_factor(program.find_statement(a.score_steps[k])->expr);
      bounded &= c.has_value();
      if (bounded) scale *= *c;
    }
    if (bounded && scale <= 1e6) a.causal_reach = causal_reach_of(*program.find_statement(a.score_steps.back()));
  }
  // The form matches: now the rules of the one kernel.
  for (const std::string& tensor : internal) {
    if (program.find_tensor(tensor)->role != TensorRole::temporary)
      return fmt::format("{} is an output of the def: the attention kernel keeps it on chip", tensor);
    for (const Statement& s : program.statements)
      if (std::find(ids.begin(), ids.end(), s.id) == ids.end() && accessed_by(s, tensor))
        return fmt::format("{} accesses {}, which the attention kernel keeps on chip", s.id, tensor);
  }
  for (const std::string& tensor : {a.q, a.k, a.v})
    for (const Statement* s : st)
      if (s->write.tensor == tensor) return fmt::format("{} writes {}, an operand of the attention", s->id, tensor);
  const Tensor& q = *program.find_tensor(a.q);
  const Tensor& k = *program.find_tensor(a.k);
  const Tensor& v = *program.find_tensor(a.v);
  a.operand_type = q.type;
  if (!is_16_bit(q.type) || k.type != q.type || v.type != q.type)
    return fmt::format("{}, {} and {} are {}, {} and {}: the attention kernel takes one 16-bit type", a.q, a.k, a.v,
                       to_string(q.type), to_string(k.type), to_string(v.type));
  const ElementType out_type = program.find_tensor(a.out)->type;
  if (!is_16_bit(out_type) && out_type != ElementType::f32)
    return fmt::format("{} is {}: the attention kernel stores f16, bf16 or f32", a.out, to_string(out_type));
  const ElementType e_type = program.find_tensor(a.e)->type;
  if (is_16_bit(e_type)) {
    if (e_type != q.type)
      return fmt::format("{} is {} and {} is {}: the attention kernel multiplies them as one type", a.e,
                         to_string(e_type), a.v, to_string(v.type));
    a.rounded_e = true;
  } else if (e_type == ElementType::f32) {
    if (a.division.empty())
      return fmt::format("{} is f32 and {} keeps the division in its sum (not a matmul's or a contraction's terms): its "
                         "products are f32's, the attention kernel would round {} to f16 (declare it f16 to accept that: "
                         "`{}(...) = f16(exp(...))`)",
                         a.e, a.product, a.e, a.e);
    if (q.type != ElementType::f16)
      return fmt::format("{} is f32 and {} is bf16: the attention kernel would round {} to bf16's 8 significant bits "
                         "(declare it bf16 to accept that: `{}(...) = bf16(exp(...))`)",
                         a.e, a.v, a.e, a.e);
    if (f32 != F32Matmul::tf32)
      return fmt::format("{} is f32 and --f32-matmul={} asks for f32 products: the attention kernel rounds {} to f16 "
                         "(11 significant bits, TF32's)",
                         a.e, to_string(f32), a.e);
  } else {
    return fmt::format("{} is {}", a.e, to_string(e_type));
  }
  const auto extent = [&](const Statement& statement, const std::string& index) -> Size {
    for (const IterationIndex& i : statement.indices)
      if (i.name == index) return bound_size(program, i.extent);
    return Size{index, 0};
  };
  std::vector<Size> sizes;
  for (const std::string& index : w) sizes.push_back(extent(sc, index));
  sizes.push_back(extent(sc, d));
  sizes.push_back(extent(pv, pv.write.indices.back()));
  for (const Size& size : sizes)
    if (size.is_symbolic()) return fmt::format("size {} is not bound", size.symbol);
  for (std::size_t b = 0; b < batch.size(); ++b) a.batch_extents.push_back(sizes[b].value);
  a.rows = sizes[w.size() - 2].value;
  a.keys = sizes[w.size() - 1].value;
  a.head = sizes[w.size()].value;
  a.value_cols = sizes[w.size() + 1].value;
  for (const std::string& id : a.score_steps)
    for (const Access& r : program.find_statement(id)->reads)
      if (r.tensor != a.on_chip[0] && std::find(a.on_chip.begin(), a.on_chip.end(), r.tensor) == a.on_chip.end() &&
          is_fp8(program.find_tensor(r.tensor)->type))
        return fmt::format("{} reads {}, an FP8 tensor: the attention kernel reads 16- and 32-bit steps' operands", id, r.tensor);
  if (a.head > max_attention_head || a.value_cols > max_attention_head)
    return fmt::format("the head has {} columns and {} {}: the attention kernel keeps at most {} (a warp's 16 rows of "
                       "scores and output in registers)",
                       a.head, a.v, a.value_cols, max_attention_head);
  if (a.batch() > 65535)
    return fmt::format("{} batch slices: the attention kernel runs one per blockIdx.y (at most 65535)", a.batch());
  return a;
}

std::string describe(const Attention& a) {
  const std::int64_t tiles = (a.keys + 63) / 64;
  std::string names;
  for (std::size_t i = 0; i < a.on_chip.size(); ++i)
    names += (i == 0 ? "" : i + 1 == a.on_chip.size() ? " and " : ", ") + a.on_chip[i];
  return fmt::format(
      "attention in one kernel (FlashAttention's scheme): a block takes 64 of the {} queries (16 a warp; on sm_90a "
      "64 a warpgroup, 128 a block above 64) and walks the "
      "{} keys in {} tile{} of 64 through a ring of shared stages of {} and {}; per tile the scores on tensor cores "
      "(mma.sync; wgmma on sm_90a){}, "
      "an online softmax on the accumulator fragments (each row's max and sum so far; the sum and the output rescaled "
      "when the max grows), then {} ({}) times {} on tensor cores; / the row sums at the end. {} never reach memory",
      a.rows, a.keys, tiles, tiles == 1 ? "" : "s", a.k, a.v,
      a.score_steps.empty() ? "" : fmt::format(" with the step{} on them", a.score_steps.size() == 1 ? "" : "s"), a.e,
      a.rounded_e ? fmt::format("{} as the program says", to_string(a.operand_type))
                  : fmt::format("rounded to {}: 11 significant bits, TF32's", to_string(a.operand_type)),
      a.v, names);
}

std::vector<AttentionRun> attention_runs(const Program& program, F32Matmul f32) {
  std::vector<AttentionRun> runs;
  const std::size_t n = program.statements.size();
  for (std::size_t first = 0; first < n;) {
    std::optional<std::variant<Attention, std::string>> found;
    std::vector<std::string> ids;
    for (std::size_t i = first; i < n && !found; ++i) {
      ids.push_back(program.statements[i].id);
      if (ids.size() >= 5) found = attention_of(program, ids, f32);
    }
    if (!found) {
      ++first;
      continue;
    }
    const std::string* why = std::get_if<std::string>(&*found);
    runs.push_back(AttentionRun{ids, why ? *why : ""});
    first += ids.size();
  }
  return runs;
}

}  // namespace polyfuse
