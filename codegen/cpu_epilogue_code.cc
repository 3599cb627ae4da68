#include "codegen/cpu_epilogue_code.h"

#include <vector>

#include "codegen/cpu_names.h"
#include "frontend/diagnostics.h"

namespace polyfuse {

CpuEpilogueCode cpu_epilogue_code(const CpuEpilogue& epilogue, const CpuOperandView* bias, const CpuOperandView* addend,
                                  const CpuOperandView* separate_output) {
  CpuEpilogueCode code;
  std::vector<std::string> fields, args;
  if (epilogue.bias) {
    PF_INTERNAL_CHECK(bias != nullptr && bias->ld == "1", "cpu block: an epilogue's bias must be contiguous");
    const std::string along = bias->broadcast == "Broadcast::row_vector" ? "n" : "m";
    fields.push_back(".bias = BiasAlong::" + along);
    args.push_back(".bias = " + bias->pointer);
    code.what += "+ " + epilogue.bias->tensor + " along " + along + ", ";
  }
  if (epilogue.addend) {
    PF_INTERNAL_CHECK(addend != nullptr && addend->layout == "Layout::row_major" && addend->broadcast == "Broadcast::matrix",
                      "cpu block: an epilogue's addend must be a row-major block");
    fields.push_back(".addend = true");
    args.push_back(".addend = " + addend->pointer + ", .ld_addend = " + addend->ld);
    code.what += "+ " + epilogue.addend->tensor + ", ";
  }
  const std::string post = epilogue.post ? cpu_op_name(*epilogue.post) : "identity";
  if (epilogue.post) fields.push_back(".post = UnaryOp::" + post);
  code.what += post;
  if (separate_output) args.push_back(".d = " + separate_output->pointer + ", .ld_d = " + separate_output->ld);
  const auto join = [](const std::vector<std::string>& items) {
    std::string text;
    for (const std::string& item : items) text += (text.empty() ? "" : ", ") + item;
    return text;
  };
  code.config = ", .epilogue = {" + join(fields) + "}";
  if (!args.empty()) code.args = "EpilogueArgs{" + join(args) + "}";
  return code;
}

}  // namespace polyfuse
