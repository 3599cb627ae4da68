#include "runtime/reference/evaluate.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "frontend/diagnostics.h"
#include "runtime/reference/element_rounding.h"

namespace polyfuse::reference {
namespace {

// One instruction of a right-hand side in postfix order.
struct Instruction {
  ExprKind kind = ExprKind::constant;
  float value = 0;      // constant
  int read = -1;        // read: index into the statement's reads
  BinaryOp op = BinaryOp::add;
  Function function = Function::relu;
};

void flatten(const Expr& expr, std::vector<Instruction>& code) {
  for (const Expr& operand : expr.operands) flatten(operand, code);
  Instruction instruction;
  instruction.kind = expr.kind;
  instruction.value = static_cast<float>(expr.value);
  instruction.read = expr.read;
  instruction.op = expr.op;
  instruction.function = expr.function;
  code.push_back(instruction);
}

float call(Function function, float x, float y) {
  switch (function) {
    case Function::relu: return x > 0.0f ? x : 0.0f;
    case Function::sigmoid: return 1.0f / (1.0f + std::exp(-x));
    case Function::tanh: return std::tanh(x);
    case Function::gelu: return 0.5f * x * (1.0f + std::erf(x * 0.70710678118654752f));
    case Function::exp: return std::exp(x);
    case Function::max: return std::max(x, y);
    case Function::min: return std::min(x, y);
  }
  return 0.0f;
}

float binary(BinaryOp op, float x, float y) {
  switch (op) {
    case BinaryOp::add: return x + y;
    case BinaryOp::sub: return x - y;
    case BinaryOp::mul: return x * y;
    case BinaryOp::div: return x / y;
  }
  return 0.0f;
}

// A tensor access compiled to a linear function of the domain point.
struct LinearAccess {
  std::vector<float>* data = nullptr;
  std::vector<std::int64_t> coefficients;  // per domain dimension, in elements
  std::int64_t offset = 0;                 // at the current point
};

LinearAccess linearize(const Program& program, const Statement& statement,
                       const Access& access, TensorData& tensors) {
  const Tensor* tensor = program.find_tensor(access.tensor);
  PF_INTERNAL_CHECK(tensor != nullptr, "reference: unknown tensor " + access.tensor);
  const std::vector<std::int64_t> shape = bound_shape(program, *tensor);
  LinearAccess linear;
  linear.data = &tensors.at(access.tensor);
  linear.coefficients.assign(statement.indices.size(), 0);
  std::int64_t stride = 1;
  for (std::size_t dim = shape.size(); dim-- > 0;) {
    const auto& names = statement.indices;
    const auto found = std::find_if(names.begin(), names.end(), [&](const IterationIndex& index) {
      return index.name == access.indices[dim];
    });
    PF_INTERNAL_CHECK(found != names.end(), "reference: index " + access.indices[dim] +
                                                " of " + access.tensor + " not in " + statement.id);
    linear.coefficients[found - names.begin()] += stride;
    stride *= shape[dim];
  }
  return linear;
}

class StatementRunner {
 public:
  StatementRunner(const Program& program, const Statement& statement, TensorData& tensors)
      : statement_(statement) {
    const Tensor* written = program.find_tensor(statement.write.tensor);
    PF_INTERNAL_CHECK(written != nullptr, "reference: unknown tensor " + statement.write.tensor);
    written_type_ = written->type;
    write_ = linearize(program, statement, statement.write, tensors);
    for (const Access& access : statement.reads)
      reads_.push_back(linearize(program, statement, access, tensors));
    flatten(statement.expr, code_);
    for (const IterationIndex& index : statement.indices) {
      extents_.push_back(bound_extent(program, index.extent));
      if (index.is_reduction) ++reduction_rank_;
      else PF_INTERNAL_CHECK(reduction_rank_ == 0, "reference: reduction index before " + index.name);
    }
  }

  void run() {
    for (std::int64_t extent : extents_)
      if (extent <= 0) return;
    const std::size_t outer_rank = extents_.size() - reduction_rank_;
    std::vector<std::int64_t> point(extents_.size(), 0);
    std::vector<float> stack(code_.size() + 1);
    while (true) {
      // One written element: all reduction points of it, in lexicographic order.
      std::vector<float>& out = *write_.data;
      float accumulator = statement_.kind == StatementKind::reduce ? out[write_.offset] : 0.0f;
      do {
        const float value = evaluate(stack);
        accumulator = statement_.kind == StatementKind::assign ? value : accumulator + value;
      } while (advance(point, outer_rank, point.size()));
      out[write_.offset] = round_to(written_type_, accumulator);
      if (!advance(point, 0, outer_rank)) return;
    }
  }

 private:
  // Moves `point` to the next point of dimensions [first, last) (an odometer), with every
  // access offset; false (and those dimensions at 0 again) after the last one.
  bool advance(std::vector<std::int64_t>& point, std::size_t first, std::size_t last) {
    for (std::size_t dim = last; dim-- > first;) {
      if (point[dim] + 1 < extents_[dim]) {
        ++point[dim];
        shift(dim, 1);
        return true;
      }
      shift(dim, -point[dim]);
      point[dim] = 0;
    }
    return false;
  }

  void shift(std::size_t dim, std::int64_t steps) {
    write_.offset += steps * write_.coefficients[dim];
    for (LinearAccess& read : reads_) read.offset += steps * read.coefficients[dim];
  }

  float evaluate(std::vector<float>& stack) const {
    std::size_t top = 0;
    for (const Instruction& instruction : code_) {
      switch (instruction.kind) {
        case ExprKind::constant: stack[top++] = instruction.value; break;
        case ExprKind::read: {
          const LinearAccess& read = reads_[instruction.read];
          stack[top++] = (*read.data)[read.offset];
          break;
        }
        case ExprKind::negate: stack[top - 1] = -stack[top - 1]; break;
        case ExprKind::binary:
          --top;
          stack[top - 1] = binary(instruction.op, stack[top - 1], stack[top]);
          break;
        case ExprKind::call:
          if (arity(instruction.function) == 2) {
            --top;
            stack[top - 1] = call(instruction.function, stack[top - 1], stack[top]);
          } else {
            stack[top - 1] = call(instruction.function, stack[top - 1], 0.0f);
          }
          break;
      }
    }
    return stack[0];
  }

  const Statement& statement_;
  ElementType written_type_ = ElementType::f32;
  LinearAccess write_;
  std::vector<LinearAccess> reads_;
  std::vector<Instruction> code_;
  std::vector<std::int64_t> extents_;
  std::size_t reduction_rank_ = 0;
};

}  // namespace

void evaluate(const Program& program, TensorData& tensors) {
  // Sizes first: an unbound size is the user's error, whatever buffers were passed.
  std::vector<std::size_t> counts;
  for (const Tensor& tensor : program.tensors)
    counts.push_back(static_cast<std::size_t>(element_count(program, tensor)));
  for (std::size_t i = 0; i < program.tensors.size(); ++i) {
    const Tensor& tensor = program.tensors[i];
    const std::size_t count = counts[i];
    if (tensor.role == TensorRole::temporary) {
      tensors[tensor.name].assign(count, 0.0f);
      continue;
    }
    const auto found = tensors.find(tensor.name);
    if (found == tensors.end())
      throw std::invalid_argument("reference::evaluate: no buffer for " + std::string(to_string(tensor.role)) +
                                  " '" + tensor.name + "'");
    if (found->second.size() != count)
      throw std::invalid_argument("reference::evaluate: buffer of '" + tensor.name + "' has " +
                                  std::to_string(found->second.size()) + " elements, expected " +
                                  std::to_string(count));
  }
  for (const Statement& statement : program.statements) StatementRunner(program, statement, tensors).run();
}

}  // namespace polyfuse::reference
