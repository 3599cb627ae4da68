// Subcommands of the `polyfuse` command line.
//
// Each subcommand lives in its own file (compile_command.cc, ...) and registers itself
// on the top-level CLI11 app through an `add_<name>_command` function that returns a
// Command. main.cc parses the arguments and runs the command that was selected.
// Exit codes (exit_codes_help): 0 success, 1 the input or the arguments are wrong
// (diagnostics on stderr), 2 a check failed (a wrong result), 3 no CUDA device where one
// was required, 4 a bug in polyfuse (internal error).
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <stdexcept>

namespace polyfuse::tools {

// Exit code of a successful run.
inline constexpr int exit_success = 0;
// Exit code when the user's input or arguments are wrong.
inline constexpr int exit_user_error = 1;
// Exit code when a run's check failed: the code computed a wrong result.
inline constexpr int exit_check_failed = 2;
// Exit code when a CUDA device was required (--backend=cuda) and there is none.
inline constexpr int exit_no_device = 3;
// Exit code for a bug in polyfuse.
inline constexpr int exit_internal_error = 4;

// The exit codes, for --help.
inline constexpr const char* exit_codes_help =
    "Exit codes: 0 success, 1 the input or the arguments are wrong, 2 a check failed (wrong result), "
    "3 no CUDA device where one was required, 4 internal error (a bug in polyfuse).";

// There is no CUDA device and the command needed one (exit_no_device).
class NoDeviceNeeded : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A registered subcommand: its CLI11 app and what to do when it was selected.
struct Command {
  CLI::App* app = nullptr;    // owned by the parent app
  std::function<int()> run;   // runs the command after parsing; returns the exit code
};

// `polyfuse compile FILE.tc [-D NAME=VALUE ...] [--emit=ir] [-o OUT] [--def NAME]`.
Command add_compile_command(CLI::App& parent);

// `polyfuse run FILE.tc -D ... [--backend=auto|cuda|emu] [--seed N] [--stats] [tile options]`.
Command add_run_command(CLI::App& parent);

// `polyfuse cache info|clear`.
Command add_cache_command(CLI::App& parent);

}  // namespace polyfuse::tools
