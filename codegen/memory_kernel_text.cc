#include "codegen/memory_kernel_text.h"

#include <fmt/format.h>

#include <set>

namespace polyfuse {

std::string memory_kernel_tensor_id(const std::string& name) {
  static const std::set<std::string> reserved = {"lane",  "warp",  "row",  "term", "element",  "offset", "w",
                                                 "acc",   "partial", "smem", "pf", "blockIdx", "threadIdx", "gridDim",
                                                 "first", "j",     "v"};
  const bool prefixed = name.rfind("i_", 0) == 0 || name.rfind("v_", 0) == 0 || name.rfind("t_", 0) == 0 ||
                        name.rfind("x_", 0) == 0 || name.rfind("o_", 0) == 0 || name.rfind("c_", 0) == 0;
  return reserved.count(name) || prefixed ? "t_" + name : name;
}

std::string reduction_combine(ReductionOp op, const std::string& a, const std::string& b) {
  switch (op) {
    case ReductionOp::sum: return fmt::format("{} + {}", a, b);
    case ReductionOp::product: return fmt::format("{} * {}", a, b);
    case ReductionOp::max: return fmt::format("fmaxf({}, {})", a, b);
    case ReductionOp::min: return fmt::format("fminf({}, {})", a, b);
  }
  return "";
}

std::string reduction_identity(ReductionOp op) {
  switch (op) {
    case ReductionOp::sum: return "0.f";
    case ReductionOp::product: return "1.f";
    case ReductionOp::max: return "__uint_as_float(0xff800000u) /* -infinity */";
    case ReductionOp::min: return "__uint_as_float(0x7f800000u) /* +infinity */";
  }
  return "";
}

}  // namespace polyfuse
