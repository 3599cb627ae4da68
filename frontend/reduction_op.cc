#include "frontend/reduction_op.h"

#include <limits>

namespace polyfuse {

std::string_view to_string(ReductionOp op) {
  switch (op) {
    case ReductionOp::sum: return "sum";
    case ReductionOp::product: return "product";
    case ReductionOp::max: return "max";
    case ReductionOp::min: return "min";
  }
  return "?";
}

std::string_view operator_prefix(ReductionOp op) {
  switch (op) {
    case ReductionOp::sum: return "+";
    case ReductionOp::product: return "*";
    case ReductionOp::max: return "max";
    case ReductionOp::min: return "min";
  }
  return "?";
}

double identity_value(ReductionOp op) {
  switch (op) {
    case ReductionOp::sum: return 0;
    case ReductionOp::product: return 1;
    case ReductionOp::max: return -std::numeric_limits<double>::infinity();
    case ReductionOp::min: return std::numeric_limits<double>::infinity();
  }
  return 0;
}

}  // namespace polyfuse
