#include "schedule/cpu_inline.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace polyfuse {
namespace {

constexpr int kMaxNodes = 5;  // P's right-hand side: `X - mean`, `a * b + c`
constexpr int kMaxReads = 4;  // reads of T in all: a recomputation each

// Whether `expr` is cheap arithmetic: reads, literals, + - * / and negation.
bool cheap(const Expr& expr) {
  if (expr.kind != ExprKind::read && expr.kind != ExprKind::constant && expr.kind != ExprKind::negate &&
      expr.kind != ExprKind::binary)
    return false;
  return std::all_of(expr.operands.begin(), expr.operands.end(), [](const Expr& e) { return cheap(e); });
}

// A plain read with no boundary value and no gather.
bool plain_read(const Access& access) { return access.is_plain() && !access.outside_value && !access.is_index; }

// Whether `statement` is a contraction: a reduction index in the reads of a tensor other than `t`.
bool contracts_beside(const Statement& statement, const std::string& t) {
  for (const std::string& index : statement.reduction_indices())
    for (const Access& read : statement.reads)
      if (read.tensor != t && std::count(read.indices.begin(), read.indices.end(), index) > 0) return true;
  return false;
}

// Whether some statement writing `tensor` is a contraction (a matmul: a reduction index in the
// reads of two tensors), whose epilogue the statement reading it may be.
bool contraction_result(const Program& program, const std::string& tensor) {
  for (const Statement& s : program.statements) {
    if (s.write.tensor != tensor) continue;
    for (const std::string& index : s.reduction_indices()) {
      std::set<std::string> readers;
      for (const Access& read : s.reads)
        if (std::count(read.indices.begin(), read.indices.end(), index) > 0) readers.insert(read.tensor);
      if (readers.size() > 1) return true;
    }
  }
  return false;
}

// The statement writing temporary `t` when it is the only one, else nullptr.
const Statement* only_writer(const Program& program, const std::string& t) {
  const Statement* writer = nullptr;
  for (const Statement& s : program.statements)
    if (s.write.tensor == t) {
      if (writer) return nullptr;
      writer = &s;
    }
  return writer;
}

// Whether `statement`'s reads are its expression's, each once, left to right (no read outside
// the expression, as a gather's index read).
bool reads_in_order(const Statement& statement) {
  const std::vector<int> order = reads_in(statement.expr);
  if (order.size() != statement.reads.size()) return false;
  for (std::size_t i = 0; i < order.size(); ++i)
    if (order[i] != static_cast<int>(i)) return false;
  return true;
}

// Whether P (statement index p) may be inlined into every statement that reads its result.
bool inlinable(const Program& program, std::size_t p) {
  const Statement& producer = program.statements[p];
  const Tensor* t = program.find_tensor(producer.write.tensor);
  if (!t || t->role != TensorRole::temporary || t->type != ElementType::f32 || producer.kind != StatementKind::assign ||
      producer.accumulate_type != ElementType::f32 || only_writer(program, t->name) != &producer ||
      node_count(producer.expr) > kMaxNodes || !cheap(producer.expr) || !plain_read(producer.write) ||
      !reads_in_order(producer))
    return false;
  // the write is T(i, j, ...) with P's indices in order, over T's whole extent
  if (producer.write.indices.size() != producer.indices.size() || t->rank() != producer.indices.size()) return false;
  for (std::size_t d = 0; d < t->rank(); ++d)
    if (producer.write.indices[d] != producer.indices[d].name || !(producer.indices[d].extent == t->dims[d])) return false;
  if (!producer.write.relation.range().is_equal(t->extent)) return false;  // every element (no condition on P's domain)
  std::set<std::string> sources;  // what P reads
  for (const Access& read : producer.reads) {
    const Tensor* source = program.find_tensor(read.tensor);
    if (!plain_read(read) || !source || source->type != ElementType::f32 || read.tensor == t->name ||
        contraction_result(program, read.tensor))
      return false;
    sources.insert(read.tensor);
  }
  int reads = 0;
  bool written_since = false;  // a statement after P wrote what P reads
  for (std::size_t s = p + 1; s < program.statements.size(); ++s) {
    const Statement& reader = program.statements[s];
    const int here = static_cast<int>(std::count_if(reader.reads.begin(), reader.reads.end(),
                                                    [&](const Access& a) { return a.tensor == t->name; }));
    if (here > 0) {
      if (written_since || reader.accumulate_type != ElementType::f32 || sources.count(reader.write.tensor) ||
          contracts_beside(reader, t->name) || !reads_in_order(reader))
        return false;
      for (const Access& read : reader.reads)
        if (read.is_index || (read.tensor == t->name && !plain_read(read))) return false;
      for (const Access& read : reader.reads)
        for (const AffineIndex& subscript : read.subscripts)
          if (subscript.is_gather()) return false;
      reads += here;
    }
    written_since = written_since || sources.count(reader.write.tensor) > 0;
  }
  return reads > 0 && reads <= kMaxReads;
}

// P's expression at `at` (a reader's plain read of P's result): P's reads moved to the reader's
// indices, appended to `reads`.
Expr expression_at(const Statement& producer, const Expr& expr, const Access& at, std::vector<Access>& reads) {
  Expr copy = expr;
  if (expr.kind == ExprKind::read) {
    const Access& source = producer.reads.at(static_cast<std::size_t>(expr.read));
    std::map<std::string, std::string> renamed;  // P's index -> the reader's index at that dimension
    for (std::size_t d = 0; d < producer.write.indices.size(); ++d) renamed[producer.write.indices[d]] = at.indices[d];
    Access moved = source;
    moved.location = at.location;
    for (std::string& index : moved.indices) index = renamed.at(index);
    for (AffineIndex& subscript : moved.subscripts) subscript = AffineIndex::plain(renamed.at(subscript.plain_index()));
    // reader instance -> P's element -> P's instance -> the source's element
    moved.relation = at.relation.apply_range(producer.write.relation.reverse()).apply_range(source.relation);
    copy.read = static_cast<int>(reads.size());
    reads.push_back(std::move(moved));
    return copy;
  }
  for (Expr& operand : copy.operands) operand = expression_at(producer, operand, at, reads);
  return copy;
}

// `reader`'s expression with each read of P's result replaced by P's expression there; its
// reads renumbered left to right into `reads`.
Expr inlined(const Statement& producer, const Statement& reader, const Expr& expr, std::vector<Access>& reads) {
  if (expr.kind == ExprKind::read) {
    const Access& access = reader.reads.at(static_cast<std::size_t>(expr.read));
    if (access.tensor == producer.write.tensor) return expression_at(producer, producer.expr, access, reads);
    Expr copy = expr;
    copy.read = static_cast<int>(reads.size());
    reads.push_back(access);
    return copy;
  }
  Expr copy = expr;
  for (Expr& operand : copy.operands) operand = inlined(producer, reader, operand, reads);
  return copy;
}

}  // namespace

Program inline_cheap_temporaries(const Program& program) {
  Program result = program;
  for (std::size_t p = 0; p < result.statements.size();) {
    if (!inlinable(result, p)) {
      ++p;
      continue;
    }
    const Statement producer = result.statements[p];
    for (std::size_t s = p + 1; s < result.statements.size(); ++s) {
      Statement& reader = result.statements[s];
      if (std::none_of(reader.reads.begin(), reader.reads.end(),
                       [&](const Access& a) { return a.tensor == producer.write.tensor; }))
        continue;
      std::vector<Access> reads;
      reader.expr = inlined(producer, reader, reader.expr, reads);
      reader.reads = std::move(reads);
    }
    result.statements.erase(result.statements.begin() + static_cast<std::ptrdiff_t>(p));
    result.tensors.erase(std::find_if(result.tensors.begin(), result.tensors.end(),
                                      [&](const Tensor& t) { return t.name == producer.write.tensor; }));
  }
  return result;
}

}  // namespace polyfuse
