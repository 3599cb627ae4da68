#include "codegen/tensor_identifiers.h"

#include <cctype>
#include <set>
#include <vector>

#include "frontend/diagnostics.h"
#include "frontend/isl_helpers.h"

namespace polyfuse {
namespace {

bool identifier_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The end of the literal opened by the quote at `i`.
std::size_t literal_end(std::string_view code, std::size_t i) {
  const char quote = code[i];
  for (++i; i < code.size() && code[i] != quote; ++i)
    if (code[i] == '\\') ++i;
  return i + 1;
}

// The source without the first occurrence of `part` (the embedded helpers).
std::string_view kernel_code(std::string_view source, const std::string& part, std::string& buffer) {
  const std::size_t at = part.empty() ? std::string_view::npos : source.find(part);
  if (at == std::string_view::npos) return source;
  buffer = std::string(source.substr(0, at)).append(source.substr(at + part.size()));
  return buffer;
}

}  // namespace

std::map<std::string, int> code_identifier_counts(std::string_view code) {
  std::map<std::string, int> counts;
  bool line_start = true;
  std::size_t i = 0;
  while (i < code.size()) {
    const char c = code[i];
    if (c == '\n') {
      line_start = true;
      ++i;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (line_start && c == '#') {  // a preprocessor line (with its continuations)
      while (i < code.size() && code[i] != '\n') i += code[i] == '\\' ? 2 : 1;
    } else if (code.substr(i, 2) == "//") {
      i = code.find('\n', i);
      if (i == std::string_view::npos) i = code.size();
    } else if (code.substr(i, 2) == "/*") {
      const std::size_t end = code.find("*/", i + 2);
      i = end == std::string_view::npos ? code.size() : end + 2;
    } else if (c == '"' || c == '\'') {
      line_start = false;
      i = literal_end(code, i);
    } else if (std::isdigit(static_cast<unsigned char>(c))) {  // a number, suffixes and exponents included
      line_start = false;
      while (i < code.size() && (identifier_char(code[i]) || code[i] == '.')) ++i;
    } else if (identifier_start(c)) {
      line_start = false;
      std::size_t end = i;
      while (end < code.size() && identifier_char(code[end])) ++end;
      std::size_t before = i;
      while (before > 0 && (code[before - 1] == ' ' || code[before - 1] == '\t')) --before;
      const bool qualified = before > 0 && (code[before - 1] == '.' || code[before - 1] == ':' ||
                                            (before > 1 && code.substr(before - 2, 2) == "->"));
      if (!qualified) ++counts[std::string(code.substr(i, end - i))];
      i = end;
    } else {
      line_start = false;
      ++i;
    }
  }
  return counts;
}

Program with_tensor_names(const Program& program, const std::map<std::string, std::string>& names) {
  Program renamed = program;
  const auto rename = [&names](std::string& name) {
    const auto it = names.find(name);
    if (it == names.end()) return false;
    name = it->second;
    return true;
  };
  const auto rename_access = [&rename](Access& access) {
    if (rename(access.tensor) && !access.relation.is_null())
      access.relation = access.relation.set_range_tuple(access.tensor);
  };
  for (Tensor& tensor : renamed.tensors)
    if (rename(tensor.name) && !tensor.extent.is_null()) tensor.extent = with_tuple_name(tensor.extent, tensor.name);
  for (Statement& statement : renamed.statements) {
    rename_access(statement.write);
    for (Access& read : statement.reads) rename_access(read);
  }
  return renamed;
}

EmittedKernel emit_with_distinct_tensor_names(const Program& program, const std::string& helpers,
                                              const std::function<EmittedKernel(const Program&)>& emit) {
  EmittedKernel kernel = emit(program);
  std::string buffer;
  std::map<std::string, int> counts = code_identifier_counts(kernel_code(kernel.source, helpers, buffer));

  // The placeholders: names no generator writes and no identifier of this kernel has.
  std::map<std::string, std::string> placeholders;
  std::set<std::string> taken;
  for (const Tensor& tensor : program.tensors) taken.insert(tensor.name);
  for (std::size_t t = 0; t < program.tensors.size(); ++t) {
    std::string name = "pf_tensor" + std::to_string(t) + "_";
    while (counts.count(name) || taken.count(name)) name += "_";
    placeholders[program.tensors[t].name] = name;
  }
  const EmittedKernel probe = emit(with_tensor_names(program, placeholders));
  const std::map<std::string, int> expected = code_identifier_counts(kernel_code(probe.source, helpers, buffer));
  const auto occurrences = [](const std::map<std::string, int>& in, const std::string& name) {
    const auto it = in.find(name);
    return it == in.end() ? 0 : it->second;
  };

  std::map<std::string, std::string> names;  // original -> the kernel's spelling, where they differ
  for (int attempt = 0;; ++attempt) {
    bool clash = false;
    for (const Tensor& tensor : program.tensors) {
      const auto spelled = names.find(tensor.name);
      const std::string current = spelled == names.end() ? tensor.name : spelled->second;
      const int wanted = occurrences(expected, placeholders.at(tensor.name));
      // absent from the code (kept in registers, or named by the plan's view): nothing to clash with
      if (wanted == 0 || occurrences(counts, current) == wanted) continue;
      clash = true;
      std::string next = current + "_";
      while (counts.count(next) || taken.count(next)) next += "_";
      taken.insert(next);
      names[tensor.name] = next;
    }
    if (!clash) break;
    PF_INTERNAL_CHECK(attempt < 8, "tensor names of def '" + program.name + "' keep clashing with the kernel's identifiers");
    kernel = emit(with_tensor_names(program, names));
    counts = code_identifier_counts(kernel_code(kernel.source, helpers, buffer));
  }
  for (KernelParameter& parameter : kernel.metadata.parameters)
    for (const auto& [original, spelled] : names)
      if (parameter.kind != KernelParameter::Kind::size && parameter.name == spelled) parameter.name = original;
  return kernel;
}

}  // namespace polyfuse
