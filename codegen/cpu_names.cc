#include "codegen/cpu_names.h"

#include <cstdio>
#include <cstdlib>
#include <set>

#include "frontend/diagnostics.h"

namespace polyfuse {
namespace {

const std::set<std::string>& reserved() {
  static const std::set<std::string> names = {
      // C++ keywords and alternative tokens
      "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break",
      "case", "catch", "char", "char8_t", "char16_t", "char32_t", "class", "compl", "concept",
      "const", "consteval", "constexpr", "constinit", "const_cast", "continue", "co_await",
      "co_return", "co_yield", "decltype", "default", "delete", "do", "double",
      "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false", "float", "for",
      "friend", "goto", "if", "inline", "int", "long", "mutable", "namespace", "new",
      "noexcept", "not", "not_eq", "nullptr", "operator", "or", "or_eq", "private",
      "protected", "public", "register", "reinterpret_cast", "requires", "return", "short",
      "signed", "sizeof", "static", "static_assert", "static_cast", "struct", "switch",
      "template", "this", "thread_local", "throw", "true", "try", "typedef", "typeid",
      "typename", "union", "unsigned", "using", "virtual", "void", "volatile", "wchar_t",
      "while", "xor", "xor_eq",
      // names the generated code uses
      "rows", "cols", "buffers", "std", "polyfuse", "int64_t", "uint16_t", "size_t", "main",
      "Brgemm", "Unary", "Binary", "Layout", "DType", "Broadcast", "UnaryOp", "BinaryOp",
      "Operand", "BrgemmConfig", "UnaryConfig", "BinaryConfig", "reduce_terms", "RowReduction", "reduce_row",
      "f16_to_f32_inline", "f16_to_f32_lanes", "f16_to_f32", "bf16_to_f32", "f32_to_f16", "f32_to_bf16",
      "e4m3_to_f32", "e5m2_to_f32", "f32_to_e4m3", "f32_to_e5m2", "apply", "binary_max", "binary_min", "unary_abs",
      "all_finite",
      "EpilogueArgs", "BiasAlong", "Packing", "PackedB", "PackBuffer", "uint8_t", "uint32_t", "int32_t", "uintptr_t",
      "omp_get_thread_num", "omp_get_num_threads", "INFINITY", "NAN",
      // the helpers the generated code defines (cpu_emit.cc)
      "line_aligned", "kept", "FilterPanel", "ConstantPanels", "PackedFrom", "finite_outside"};
  return names;
}

// Identifiers the generated code makes from statement ids ("S0_main", "stage0_block").
bool generated_pattern(const std::string& name) {
  if (name.rfind("stage", 0) == 0) return true;
  return name.size() >= 2 && name[0] == 'S' && name[1] >= '0' && name[1] <= '9';
}

}  // namespace

CpuNames::CpuNames(const CpuPlan& plan) {
  for (const CpuTensor& tensor : plan.tensors) {
    // Synthetic prologue results are named after their statement ("S0_A") on purpose; a
    // tensor of the def named like them ("S10", "stage1") gets a prefix (a suffix would keep
    // the pattern).
    std::string name = !tensor.synthetic && generated_pattern(tensor.name) ? "t_" + tensor.name : tensor.name;
    while (reserved().count(name) || taken(name)) name += "_";
    tensors_[tensor.name] = name;
  }
}

const std::string& CpuNames::tensor(const std::string& tensor) const {
  const auto found = tensors_.find(tensor);
  PF_INTERNAL_CHECK(found != tensors_.end(), "cpu names: unknown tensor " + tensor);
  return found->second;
}

bool CpuNames::taken(const std::string& name) const {
  for (const auto& [_, identifier] : tensors_)
    if (identifier == name) return true;
  return false;
}

std::string CpuNames::variable(std::string wanted) const {
  while (reserved().count(wanted) || taken(wanted)) wanted += "_";
  return wanted;
}

std::string CpuNames::loop_variable(const std::string& index) const {
  return variable(generated_pattern(index) ? "i_" + index : index);
}

std::string cxx_element_type(ElementType type) {
  switch (type) {
    case ElementType::f32: return "float";
    case ElementType::f16:
    case ElementType::bf16: return "uint16_t";
    case ElementType::i32: return "int32_t";
    case ElementType::i64: return "int64_t";
    case ElementType::u8:
    case ElementType::e4m3:
    case ElementType::e5m2: return "uint8_t";
  }
  return "float";
}

std::string cxx_dtype(ElementType type) { return "DType::" + std::string(to_string(type)); }

std::string cpu_op_name(Function function) {
  if (function == Function::gelu_erf) return "gelu";
  if (function == Function::to_f16) return "round_f16";
  if (function == Function::to_bf16) return "round_bf16";
  if (function == Function::to_f32) return "identity";
  return std::string(to_string(function));
}

std::string float_literal(double value) {
  // The shortest decimal that reads back as the same float.
  const float target = static_cast<float>(value);
  char text[64];
  for (int digits = 1; digits <= 9; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits, static_cast<double>(target));
    if (std::strtof(text, nullptr) == target) break;
  }
  std::string literal = text;
  if (literal.find_first_of(".en") == std::string::npos) literal += ".0";
  return literal + "f";
}

std::string sum_text(const std::vector<std::string>& terms) {
  std::string text;
  for (const std::string& term : terms) {
    if (term.empty()) continue;
    text += (text.empty() ? "" : " + ") + term;
  }
  return text.empty() ? "0" : text;
}

std::string cpu_omp_for(int threads, int depth, bool in_region) {
  std::string text = in_region ? "#pragma omp for " : "#pragma omp parallel for ";
  if (depth > 1) text += "collapse(" + std::to_string(depth) + ") ";
  if (threads > 0 && !in_region) text += "num_threads(" + std::to_string(threads) + ") ";
  return text + "schedule(static)\n";
}

std::string cpu_omp_for(const CpuPlan& plan, int depth, bool in_region) { return cpu_omp_for(plan.threads, depth, in_region); }

std::string cpu_omp_parallel(const CpuPlan& plan) {
  return "#pragma omp parallel" + (plan.threads > 0 ? " num_threads(" + std::to_string(plan.threads) + ")" : std::string()) + "\n";
}

std::string cpu_threads_line(int threads) {
  if (threads > 0) return "// Threads: " + std::to_string(threads) + " (num_threads clauses)";
  return "// Threads: OpenMP's default (every core, or OMP_NUM_THREADS)";
}

std::string cpu_build_comment() {
  return "// Build (as polyfuse run --target=cpu does): c++ -std=c++20 -O3 -march=native -fopenmp -ffp-contract=off\n"
         "//   [GCC: -fno-tree-loop-if-convert, else GCC 12.2 miscompiles zero-padded reads on AVX-512]\n"
         "//   -shared -fPIC -I<kernels/cpu/include> FILE.cpp libpolyfuse_kernels_cpu.a [-lmvec: x86-64]\n";
}

}  // namespace polyfuse
