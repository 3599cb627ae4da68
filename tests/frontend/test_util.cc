#include "test_util.h"

#include <fmt/format.h>

namespace polyfuse::testing {

std::vector<std::string> errors_of(std::string_view source, const SizeBindings& sizes) {
  try {
    compile_source(SourceFile{"test.tc", std::string(source)}, sizes);
  } catch (const UserError& error) {
    std::vector<std::string> lines;
    for (const Diagnostic& d : error.diagnostics())
      lines.push_back(fmt::format("{}:{}: {}: {}", d.line, d.col,
                                  d.severity == Severity::error ? "error" : "warning", d.message));
    return lines;
  }
  return {};
}

std::string first_error(std::string_view source, const SizeBindings& sizes) {
  std::vector<std::string> errors = errors_of(source, sizes);
  return errors.empty() ? "" : errors.front();
}

Program compile_one(std::string_view source, const SizeBindings& sizes) {
  return compile_source(SourceFile{"test.tc", std::string(source)}, sizes).programs.at(0);
}

}  // namespace polyfuse::testing
