// Subcommands of the `polyfuse` command line.
//
// Each subcommand lives in its own file (compile_command.cc, ...) and registers itself
// on the top-level CLI11 app through an `add_<name>_command` function that returns a
// Command. main.cc parses the arguments and runs the command that was selected.
// Exit codes: 0 success, 1 user error (diagnostics on stderr), 2 internal error.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

namespace polyfuse::tools {

// Exit code of a successful run.
inline constexpr int exit_success = 0;
// Exit code when the user's input or arguments are wrong.
inline constexpr int exit_user_error = 1;
// Exit code for a bug in polyfuse.
inline constexpr int exit_internal_error = 2;

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
