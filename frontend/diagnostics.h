// Diagnostics: located user errors (`UserError`), warnings, and internal checks.
//
// A user mistake (bad syntax, an undeclared tensor, a bad -D) is a `Diagnostic` with a
// file, line and column; several are collected in a `DiagnosticSink` and thrown together
// as one `UserError`. Rendered, a diagnostic reads
//
//   gemm.tc:3:20: error: undeclared tensor 'X'
//     C(m, n) +=! X(m, k) * B(k, n)
//                 ^
//
// A compiler bug is not the user's fault: `PF_INTERNAL_CHECK(cond, message)` throws
// `InternalError`, which the CLI reports as `internal error: ...`.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace polyfuse {

// A position in a source file: 1-based line and 1-based byte column (0 = unknown).
struct SourceLocation {
  int line = 0;  // 1-based line number, 0 when the diagnostic has no place in a file
  int col = 0;   // 1-based byte column within the line

  // True when the location names a place in a file.
  bool known() const { return line > 0; }
};

// How serious a diagnostic is.
enum class Severity { error, warning };

// Options in messages. A message about an option names it in backticks by its name in the
// C++ API — `arch`, `block`, `warp`, `mma`, `split_k`, `stages`, `dump_after`, `target`,
// `sizes` (the size bindings) — alone or with a value (`mma=m16n8k16`). Each front end
// spells them its way when it renders the message: the API as written (api_spelling), the
// command line as its flags (`split_k` -> --split-k, `sizes` -> -D). Inner layers never
// name a command-line flag.
using OptionSpelling = std::string (*)(std::string_view name);

// The C++ API's spelling: the name itself; `sizes` is TensorProgram::bind.
std::string api_spelling(std::string_view name);

// `message` with every `name` or `name=value` spelled by `spell` (the value kept after '=').
std::string spell_options(std::string_view message, OptionSpelling spell);

// One message about the user's input, with its place.
struct Diagnostic {
  std::string file;  // file name as given by the user ("" for command-line problems)
  int line = 0;      // 1-based line, 0 if the message has no place in the file
  int col = 0;       // 1-based byte column
  std::string message;  // what is wrong, without the "error:" prefix
  Severity severity = Severity::error;
};

// The user's input is wrong: carries every diagnostic found (at least one).
class UserError : public std::runtime_error {
 public:
  // Wraps one or more diagnostics; the what() text is the first message, its options
  // spelled as the C++ API names them.
  explicit UserError(std::vector<Diagnostic> diagnostics);
  // A single error without a location (command-line problems, unreadable files).
  explicit UserError(std::string message);

  // All diagnostics, in the order they were found.
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }

 private:
  std::vector<Diagnostic> diagnostics_;
};

// A bug in polyfuse (a broken invariant), never the user's fault.
class InternalError : public std::logic_error {
 public:
  // `message` says which invariant failed and where.
  explicit InternalError(const std::string& message) : std::logic_error(message) {}
};

// Throws InternalError naming the failed condition and the source position.
[[noreturn]] void internal_check_failed(const char* condition, std::string_view message,
                                        const char* file, int line);

// Checks an invariant of the compiler; throws InternalError when it does not hold.
#define PF_INTERNAL_CHECK(cond, msg)                                              \
  do {                                                                            \
    if (!(cond)) ::polyfuse::internal_check_failed(#cond, (msg), __FILE__, __LINE__); \
  } while (0)

// Most errors reported for one input; past this the sink stops collecting.
inline constexpr std::size_t max_reported_errors = 20;

// Collects the diagnostics of one file, capped at max_reported_errors errors.
class DiagnosticSink {
 public:
  // `file` is the name put into every diagnostic of this sink.
  explicit DiagnosticSink(std::string file) : file_(std::move(file)) {}

  // Records an error at `where`; ignored once too many errors were recorded.
  void error(SourceLocation where, std::string message);
  // Records a warning at `where`.
  void warning(SourceLocation where, std::string message);

  // True once at least one error was recorded.
  bool has_errors() const { return error_count_ > 0; }
  // True once the error cap is reached (callers may stop early).
  bool full() const { return error_count_ >= max_reported_errors; }
  // Number of errors recorded so far.
  std::size_t error_count() const { return error_count_; }
  // Everything recorded so far, in order.
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }
  // Only the warnings recorded so far.
  std::vector<Diagnostic> warnings() const;
  // Throws UserError with every diagnostic if any error was recorded.
  void throw_if_errors() const;
  // The file name of this sink.
  const std::string& file() const { return file_; }

 private:
  std::string file_;
  std::vector<Diagnostic> diagnostics_;
  std::size_t error_count_ = 0;
};

// Renders one diagnostic: "file:line:col: error: message", then the source line and a
// caret under the column when `source` holds that line. Location-less diagnostics render
// as "polyfuse: error: message". Options in the message are spelled by `spell`. Ends with
// a newline.
std::string render_diagnostic(const Diagnostic& diagnostic, std::string_view source,
                              OptionSpelling spell = api_spelling);

// Renders all diagnostics of `error` against `source` (see render_diagnostic).
std::string render_diagnostics(const std::vector<Diagnostic>& diagnostics,
                               std::string_view source, OptionSpelling spell = api_spelling);

// `name` in single quotes for messages, shortened with "..." past 64 bytes and with
// non-printable bytes shown as '?'.
std::string quote_name(std::string_view name);

}  // namespace polyfuse
