// The `polyfuse` command line: parses arguments, runs the selected subcommand, and turns
// every error into a message and an exit code (never an uncaught exception).
#include <CLI/CLI.hpp>

#include <iostream>
#include <stdexcept>
#include <string_view>
#include <new>

#include "frontend/diagnostics.h"
#include "polyfuse/errors.h"
#include "tools/cli_spelling.h"
#include "tools/command.h"

int main(int argc, char** argv) {
  using namespace polyfuse;
  using namespace polyfuse::tools;
  try {
    CLI::App app{"polyfuse: a polyhedral compiler from tensor comprehensions (.tc) to fused "
                 "tensor-core CUDA kernels and BRGEMM-based CPU code."};
    app.name("polyfuse");
    app.footer(exit_codes_help);
    app.require_subcommand(1);
    std::vector<Command> commands;
    commands.push_back(add_compile_command(app));
    commands.push_back(add_run_command(app));
    commands.push_back(add_cache_command(app));
    try {
      app.parse(argc, argv);
    } catch (const CLI::ParseError& error) {
      if (error.get_exit_code() == 0) return app.exit(error);  // --help
      std::cerr << "polyfuse: error: " << error.what() << "\n"
                << "Run 'polyfuse --help' for usage.\n";
      return exit_user_error;
    }
    for (const Command& command : commands)
      if (command.app->parsed()) return command.run();
    std::cerr << "polyfuse: error: no command given\n";
    return exit_user_error;
  } catch (const UserError& error) {
    std::cerr << render_diagnostics(error.diagnostics(), "", cli_spelling);
    return exit_user_error;
  } catch (const NoDeviceNeeded& error) {
    std::cerr << "polyfuse: error: " << error.what() << "\n";
    return exit_no_device;
  } catch (const polyfuse::CompileError& error) {
    std::cerr << error.what() << "\n";
    return exit_user_error;
  } catch (const polyfuse::EmulatorError& error) {
    std::cerr << "polyfuse: error: " << error.what() << "\n";
    return exit_check_failed;
  } catch (const std::out_of_range& error) {
    // A gather's index tensor held a position outside its dimension: the data's fault, reported
    // by the CPU target's code (polyfuse/cpu/integers.h) and by the reference.
    const bool gather = std::string_view(error.what()).find("gather out of range") != std::string_view::npos;
    std::cerr << "polyfuse: " << (gather ? "error: " : "internal error: ") << error.what() << "\n";
    return gather ? exit_check_failed : exit_internal_error;
  } catch (const InternalError& error) {
    std::cerr << "polyfuse: internal error: " << error.what() << "\n";
    return exit_internal_error;
  } catch (const std::bad_alloc&) {
    std::cerr << "polyfuse: internal error: out of memory\n";
    return exit_internal_error;
  } catch (const std::exception& error) {
    std::cerr << "polyfuse: internal error: " << error.what() << "\n";
    return exit_internal_error;
  } catch (...) {
    std::cerr << "polyfuse: internal error: unknown exception\n";
    return exit_internal_error;
  }
}
