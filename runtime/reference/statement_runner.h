// The interpreter both reference evaluators share: one statement over its whole domain
// (statement_walk.h), its right-hand side as postfix code, with the arithmetic of a
// Semantics policy: f32 (evaluate.cc) or f64 values with error bounds (evaluate_exact.cc).
//
// A Semantics, made for one statement, provides
//   using Value; using Storage;          (one element; one tensor's elements)
//   Value load(const Storage&, std::size_t) const;
//   void store(Storage&, std::size_t, Value) const;      (rounding to the written type)
//   Value constant(double) const; Value negate(Value) const;
//   Value binary(BinaryOp, Value, Value) const; Value call(Function, Value, Value) const;
//   Value index(std::int64_t) const;                   (an index variable's value)
//   Value compare(Comparison, Value, Value) const;      (a condition, held as a Value)
//   Value logical(ExprKind, Value, Value) const;        (logical_and, logical_or; logical_not ignores the second)
//   Value select(Value condition, Value if_true, Value if_false) const;
//   void final_product(Value& left, Value& right) const;  (the factors of a top-level *)
//   Value identity(ReductionOp) const;           (where `op=!` starts: 0, 1, -inf, +inf)
//   std::int64_t position(Value) const;          (an index tensor's element as a position)
//   Accumulator reduction(ReductionOp, Value initial) const;  (add(Value), Value finish() const)
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "frontend/diagnostics.h"
#include "runtime/reference/statement_walk.h"

namespace polyfuse::reference {

template <typename Semantics>
class StatementRunner {
 public:
  using Value = typename Semantics::Value;
  using Storage = typename Semantics::Storage;

  StatementRunner(const Program& program, const Statement& statement, std::map<std::string, Storage>& tensors,
                  Semantics semantics)
      : file_(program.file),
        statement_(statement),
        walk_(program, statement),
        code_(postfix_code(statement)),
        semantics_(std::move(semantics)) {
    out_ = &tensors.at(statement.write.tensor);
    for (const Access& access : statement.reads) reads_.push_back(&tensors.at(access.tensor));
  }

  // Every written element in lexicographic order: `=` stores the right-hand side, `op=!`
  // and `op=` reduce it over the element's reduction points (from the operator's identity
  // or the element).
  void run() {
    if (walk_.empty()) return;
    std::vector<Value> stack(code_.size() + 1);
    do {
      const std::size_t at = static_cast<std::size_t>(walk_.write_offset());
      if (statement_.kind == StatementKind::assign) {
        semantics_.store(*out_, at, evaluate(stack));
        continue;
      }
      const ReductionOp op = statement_.reduction;
      auto accumulator = semantics_.reduction(
          op, statement_.kind == StatementKind::reduce ? semantics_.load(*out_, at) : semantics_.identity(op));
      do accumulator.add(evaluate(stack));
      while (walk_.next_reduction_point());
      semantics_.store(*out_, at, accumulator.finish());
    } while (walk_.next_written_element());
  }

 private:
  Value evaluate(std::vector<Value>& stack) const {
    std::size_t top = 0;
    for (std::size_t i = 0; i < code_.size(); ++i) {
      const Instruction& instruction = code_[i];
      switch (instruction.kind) {
        case ExprKind::constant: stack[top++] = semantics_.constant(instruction.value); break;
        case ExprKind::read:
          if (!walk_.read_inside(instruction.read))  // the value outside the tensor (padding)
            stack[top++] = semantics_.constant(*statement_.reads[static_cast<std::size_t>(instruction.read)].outside_value);
          else
            stack[top++] = semantics_.load(*reads_[static_cast<std::size_t>(instruction.read)],
                                           static_cast<std::size_t>(read_offset(instruction.read)));
          break;
        case ExprKind::negate: stack[top - 1] = semantics_.negate(stack[top - 1]); break;
        case ExprKind::binary:
          --top;
          if (i + 1 == code_.size() && instruction.op == BinaryOp::mul)
            semantics_.final_product(stack[top - 1], stack[top]);
          stack[top - 1] = semantics_.binary(instruction.op, stack[top - 1], stack[top]);
          break;
        case ExprKind::call:
          if (arity(instruction.function) == 2) --top;
          stack[top - 1] = semantics_.call(instruction.function, stack[top - 1],
                                           arity(instruction.function) == 2 ? stack[top] : Value{});
          break;
        case ExprKind::index: stack[top++] = semantics_.index(walk_.index_value(instruction.index)); break;
        case ExprKind::compare:
          --top;
          stack[top - 1] = semantics_.compare(instruction.comparison, stack[top - 1], stack[top]);
          break;
        case ExprKind::logical_and:
        case ExprKind::logical_or:
          --top;
          stack[top - 1] = semantics_.logical(instruction.kind, stack[top - 1], stack[top]);
          break;
        case ExprKind::logical_not: stack[top - 1] = semantics_.logical(instruction.kind, stack[top - 1], Value{}); break;
        case ExprKind::select:
          top -= 2;
          stack[top - 1] = semantics_.select(stack[top - 1], stack[top], stack[top + 1]);
          break;
      }
    }
    return stack[0];
  }

  // The offset of read `read` with its gathered positions (the index tensors' values at the
  // current point); a position outside its dimension is an error naming the read and the point.
  std::int64_t read_offset(int read) const {
    std::int64_t offset = walk_.read_offset(read);
    if (!walk_.has_gathers(read)) return offset;
    for (const StatementWalk::Gather& gather : walk_.gathers(read)) {
      const auto index_read = static_cast<std::size_t>(gather.index_read);
      const std::int64_t value =
          semantics_.position(semantics_.load(*reads_[index_read], static_cast<std::size_t>(walk_.read_offset(gather.index_read))));
      const std::int64_t position = gather.affine + value;
      if (position < 0 || position >= gather.extent) {
        const Access& access = statement_.reads[static_cast<std::size_t>(read)];
        throw std::out_of_range(file_ + ":" + std::to_string(access.location.line) + ":" +
                                std::to_string(access.location.col) + ": gather out of range: " + statement_.id + " reads " +
                                access.tensor + " at position " + std::to_string(position) + " of dimension " +
                                std::to_string(gather.dim + 1) + ", which holds 0.." + std::to_string(gather.extent - 1) +
                                " (" + statement_.reads[index_read].tensor + " holds " + std::to_string(value) + " at " +
                                walk_.point_text() + ")");
      }
      offset += gather.stride * value;
    }
    return offset;
  }

  std::string file_;
  const Statement& statement_;
  StatementWalk walk_;
  std::vector<Instruction> code_;
  Semantics semantics_;
  Storage* out_ = nullptr;
  std::vector<const Storage*> reads_;
};

}  // namespace polyfuse::reference
