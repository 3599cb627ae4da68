// How the reference evaluators (evaluate.h in f32, evaluate_exact.h in f64 with error
// bounds) walk one statement: its right-hand side as postfix code, and its iteration
// domain in lexicographic order with the flat offset of every access at the current
// point. One written element at a time: all of its reduction points (the reduction
// indices are the innermost domain dimensions), then the next written element.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "frontend/program.h"

namespace polyfuse::reference {

// One instruction of a right-hand side in postfix order.
struct Instruction {
  ExprKind kind = ExprKind::constant;
  double value = 0;     // constant, as written
  int read = -1;        // read: index into the statement's reads
  BinaryOp op = BinaryOp::add;
  Function function = Function::relu;
  Comparison comparison = Comparison::lt;
  int index = -1;       // index: the domain dimension (Statement::indices) whose value it is
};

// `statement.expr` in postfix order (operands left to right, then the node).
std::vector<Instruction> postfix_code(const Statement& statement);

// The odometer over one statement's domain, with the element offsets (row-major, in
// elements) of the written access and of every read at the current point.
class StatementWalk {
 public:
  // Every size of `program` must be bound (bound_extent throws UserError otherwise).
  StatementWalk(const Program& program, const Statement& statement);

  // True when some extent is 0: the statement has no instance.
  bool empty() const;
  // Offset of the written element at the current point.
  std::int64_t write_offset() const { return write_.offset; }
  // Offset of read `read` (Statement::reads) at the current point; valid only where
  // read_inside(read) (a read with an outside value may leave its tensor).
  std::int64_t read_offset(int read) const { return reads_[static_cast<std::size_t>(read)].offset; }
  // False where read `read` is outside its tensor at the current point (only reads with
  // an outside value, `where I = 0 outside`, can be).
  bool read_inside(int read) const {
    const LinearAccess& access = reads_[static_cast<std::size_t>(read)];
    return access.subscripts.empty() || subscripts_inside(access);
  }
  // One gathered subscript of a read (AffineIndex::gather) at the current point: the
  // element's position in `dim` is `affine` plus the value of read `index_read`.
  struct Gather {
    int index_read = -1;          // the index tensor's read (Statement::reads)
    std::size_t dim = 0;          // the gathered dimension of the read tensor
    std::int64_t affine = 0;      // the subscript's affine part at the current point
    std::int64_t extent = 0;      // the dimension's size
    std::int64_t stride = 0;      // its row-major stride, in elements
  };
  // The gathered subscripts of read `read` at the current point (none for most reads);
  // read_offset(read) leaves their index values out.
  std::vector<Gather> gathers(int read) const;
  bool has_gathers(int read) const { return !reads_[static_cast<std::size_t>(read)].gathered.empty(); }
  // "b = 1, r_l = 2": the current point, for messages.
  std::string point_text() const;
  // The value of domain dimension `dim` (Statement::indices) at the current point.
  std::int64_t index_value(int dim) const { return point_[static_cast<std::size_t>(dim)]; }
  // Number of points per written element (the product of the reduction extents; 1 for `=`).
  std::int64_t reduction_points() const;
  // The next reduction point of the current written element; false (and back at its
  // first one) after the last.
  bool next_reduction_point() { return advance(outer_rank_, extents_.size()); }
  // The first point of the next written element; false after the last one.
  bool next_written_element() { return advance(0, outer_rank_); }

 private:
  // One subscript of a read that may leave its tensor, followed along the walk.
  struct Subscript {
    std::vector<std::int64_t> coefficients;  // per domain dimension
    std::int64_t value = 0;                  // at the current point
    std::int64_t extent = 0;                 // the tensor dimension's size
  };
  struct GatheredSubscript {
    Subscript affine;  // the affine part, followed along the walk
    int index_read = -1;
    std::size_t dim = 0;
    std::int64_t stride = 0;
  };
  struct LinearAccess {
    std::vector<std::int64_t> coefficients;  // per domain dimension, in elements
    std::int64_t offset = 0;                 // at the current point
    std::vector<Subscript> subscripts;       // for a read with an outside value only
    std::vector<GatheredSubscript> gathered; // the gathered dimensions (their index values not in offset)
  };
  static LinearAccess linearize(const Program& program, const Statement& statement, const Access& access);
  static bool subscripts_inside(const LinearAccess& access);
  bool advance(std::size_t first, std::size_t last);
  void shift(std::size_t dim, std::int64_t steps);

  std::vector<std::string> names_;  // of the domain dimensions
  LinearAccess write_;
  std::vector<LinearAccess> reads_;
  std::vector<std::int64_t> extents_;
  std::vector<std::int64_t> point_;
  std::size_t outer_rank_ = 0;
};

}  // namespace polyfuse::reference
