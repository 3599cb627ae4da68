// `polyfuse compile`: runs the compiler on a .tc file and prints the requested stage.
#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "frontend/dependences.h"
#include "frontend/diagnostics.h"
#include "frontend/frontend.h"
#include "frontend/idioms.h"
#include "frontend/ir_printer.h"
#include "tools/command.h"

namespace polyfuse::tools {
namespace {

// Every stage --emit documents; only those in `implemented` work yet.
const std::vector<std::string> emit_stages = {"ir", "schedule", "ast", "cuda", "cpu"};
const std::vector<std::string> implemented = {"ir"};

struct CompileOptions {
  std::string input;
  std::vector<std::string> defines;
  std::string emit = "ir";
  std::string output;
  std::string def;
};

// The text of the selected defs at the `ir` stage.
std::string emit_ir(const FrontendResult& result, const CompileOptions& options) {
  std::string text;
  for (const Program& program : result.programs) {
    if (!options.def.empty() && program.name != options.def) continue;
    if (!text.empty()) text += "\n";
    text += print_program(program);
  }
  return text;
}

int run_compile(const CompileOptions& options) {
  if (std::find(implemented.begin(), implemented.end(), options.emit) == implemented.end())
    throw UserError(fmt::format("--emit={} is not implemented yet (available: ir)", options.emit));
  SizeBindings sizes;
  for (const std::string& define : options.defines) add_size_binding(sizes, define);
  SourceFile source = read_source_file(options.input);
  FrontendResult result;
  try {
    result = compile_source(source, sizes);
  } catch (const UserError& error) {
    std::cerr << render_diagnostics(error.diagnostics(), source.text);
    return exit_user_error;
  }
  std::cerr << render_diagnostics(result.warnings, source.text);
  if (!options.def.empty()) {
    std::vector<std::string> names;
    for (const Program& program : result.programs) names.push_back(program.name);
    if (std::find(names.begin(), names.end(), options.def) == names.end())
      throw UserError(fmt::format("--def {}: {} has no def of that name (it has: {})",
                                  options.def, source.name, fmt::join(names, ", ")));
  }
  std::string text = emit_ir(result, options);
  if (options.output.empty() || options.output == "-") {
    std::cout << text << std::flush;
    return exit_success;
  }
  std::ofstream out(options.output, std::ios::binary);
  out << text;
  out.close();
  if (!out) throw UserError(fmt::format("cannot write {}", quote_name(options.output)));
  return exit_success;
}

}  // namespace

Command add_compile_command(CLI::App& parent) {
  auto options = std::make_shared<CompileOptions>();
  CLI::App* app = parent.add_subcommand(
      "compile", "Compile a .tc file and print the result of a stage (--emit).");
  app->add_option("file", options->input, "The .tc source file")->required();
  app->add_option("-D,--define", options->defines,
                  "Bind a size: -D NAME=VALUE (VALUE an integer >= 1). Repeat for several "
                  "sizes; unbound sizes stay symbolic (isl parameters). A size that no def "
                  "uses gets a warning.")
      ->allow_extra_args(false)
      ->type_name("NAME=VALUE");
  app->add_option("--emit", options->emit,
                  "Stage to print: ir (polyhedral IR: domains, accesses, expression trees, "
                  "dependences, idioms). Documented for later: schedule, ast, cuda, cpu (not "
                  "implemented yet).")
      ->check(CLI::IsMember(emit_stages))
      ->capture_default_str();
  app->add_option("-o,--output", options->output, "Write the output to this file instead of stdout");
  app->add_option("--def", options->def,
                  "Print only the def with this name (default: every def of the file, in order)");
  return Command{app, [options] { return run_compile(*options); }};
}

}  // namespace polyfuse::tools
