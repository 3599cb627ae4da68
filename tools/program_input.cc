#include "tools/program_input.h"

#include <iostream>

#include "runtime/api/generate.h"
#include "tools/cli_spelling.h"

namespace polyfuse::tools {

ProgramInput::ProgramInput(const std::string& path, const std::vector<std::string>& defines) {
  for (const std::string& define : defines) add_size_binding(sizes_, define);
  source_ = read_source_file(path);
}

std::vector<const Program*> ProgramInput::defs(const std::string& def) {
  if (!compiled_) {
    result_ = compile_source(source_, sizes_);
    compiled_ = true;
    std::cerr << render_diagnostics(result_.warnings, source_.text, cli_spelling);
  }
  if (!def.empty()) return {&api::select_def(result_, def, source_.name)};
  std::vector<const Program*> all;
  for (const Program& program : result_.programs) all.push_back(&program);
  return all;
}

void ProgramInput::print(const UserError& error) const {
  std::cerr << render_diagnostics(error.diagnostics(), source_.text, cli_spelling);
}

}  // namespace polyfuse::tools
