#include "frontend/diagnostics.h"

#include <fmt/format.h>

namespace polyfuse {

std::string api_spelling(std::string_view name) {
  if (name == "sizes") return "TensorProgram::bind";
  return std::string(name);
}

std::string spell_options(std::string_view message, OptionSpelling spell) {
  std::string text;
  for (std::size_t at = 0; at < message.size();) {
    const std::size_t open = message.find('`', at);
    const std::size_t close = open == std::string_view::npos ? open : message.find('`', open + 1);
    if (close == std::string_view::npos) {
      text += message.substr(at);
      break;
    }
    text += message.substr(at, open - at);
    const std::string_view option = message.substr(open + 1, close - open - 1);
    const std::size_t equals = option.find('=');
    text += spell(option.substr(0, equals));
    if (equals != std::string_view::npos) {
      text += '=';
      text += option.substr(equals + 1);
    }
    at = close + 1;
  }
  return text;
}

UserError::UserError(std::vector<Diagnostic> diagnostics)
    : std::runtime_error(diagnostics.empty() ? std::string("error")
                                             : spell_options(diagnostics.front().message, api_spelling)),
      diagnostics_(std::move(diagnostics)) {
  if (diagnostics_.empty()) diagnostics_.push_back(Diagnostic{"", 0, 0, "error"});
}

UserError::UserError(std::string message)
    : UserError(std::vector<Diagnostic>{Diagnostic{"", 0, 0, std::move(message)}}) {}

void internal_check_failed(const char* condition, std::string_view message, const char* file,
                           int line) {
  throw InternalError(fmt::format("{} (check '{}' failed at {}:{})", message, condition, file, line));
}

void DiagnosticSink::error(SourceLocation where, std::string message) {
  if (full()) return;
  ++error_count_;
  diagnostics_.push_back(Diagnostic{file_, where.line, where.col, std::move(message)});
  if (full()) {
    diagnostics_.push_back(Diagnostic{file_, 0, 0,
                                      fmt::format("too many errors ({}); stopping here",
                                                  max_reported_errors)});
  }
}

void DiagnosticSink::warning(SourceLocation where, std::string message) {
  diagnostics_.push_back(
      Diagnostic{file_, where.line, where.col, std::move(message), Severity::warning});
}

std::vector<Diagnostic> DiagnosticSink::warnings() const {
  std::vector<Diagnostic> result;
  for (const Diagnostic& d : diagnostics_)
    if (d.severity == Severity::warning) result.push_back(d);
  return result;
}

void DiagnosticSink::throw_if_errors() const {
  if (has_errors()) throw UserError(diagnostics_);
}

// Line `line` (1-based) of `source`, without its newline; false if there is no such line.
static bool find_line(std::string_view source, int line, std::string_view& out) {
  std::size_t start = 0;
  for (int current = 1; current < line; ++current) {
    std::size_t newline = source.find('\n', start);
    if (newline == std::string_view::npos) return false;
    start = newline + 1;
  }
  if (start > source.size()) return false;
  std::size_t end = source.find('\n', start);
  if (end == std::string_view::npos) end = source.size();
  out = source.substr(start, end - start);
  if (!out.empty() && out.back() == '\r') out.remove_suffix(1);
  return true;
}

static char printable(char c) {
  unsigned char u = static_cast<unsigned char>(c);
  if (c == '\t') return '\t';
  return (u < 0x20 || u >= 0x7f) ? '?' : c;
}

std::string render_diagnostic(const Diagnostic& diagnostic, std::string_view source, OptionSpelling spell) {
  Diagnostic d = diagnostic;
  d.message = spell_options(d.message, spell);
  const char* kind = d.severity == Severity::error ? "error" : "warning";
  if (d.line <= 0) {
    if (d.file.empty()) return fmt::format("polyfuse: {}: {}\n", kind, d.message);
    return fmt::format("{}: {}: {}\n", d.file, kind, d.message);
  }
  std::string text = fmt::format("{}:{}:{}: {}: {}\n", d.file, d.line, d.col, kind, d.message);
  std::string_view line;
  if (!find_line(source, d.line, line)) return text;
  // Long lines are shown as a window around the column.
  constexpr std::size_t window = 120;
  std::size_t col = d.col > 0 ? static_cast<std::size_t>(d.col - 1) : 0;
  if (col > line.size()) col = line.size();
  std::size_t first = 0;
  std::string prefix;
  if (line.size() > window) {
    first = col > window / 2 ? col - window / 2 : 0;
    if (first > 0) prefix = "...";
    line = line.substr(first, window);
  }
  std::string shown = prefix, caret(prefix.size(), ' ');
  for (char c : line) shown += printable(c);
  for (std::size_t i = first; i < col && i - first < line.size(); ++i)
    caret += line[i - first] == '\t' ? '\t' : ' ';
  text += shown + "\n" + caret + "^\n";
  return text;
}

std::string render_diagnostics(const std::vector<Diagnostic>& diagnostics,
                               std::string_view source, OptionSpelling spell) {
  std::string text;
  for (const Diagnostic& d : diagnostics) text += render_diagnostic(d, source, spell);
  return text;
}

std::string quote_name(std::string_view name) {
  constexpr std::size_t limit = 64;
  std::string text = "'";
  for (std::size_t i = 0; i < name.size() && i < limit; ++i) text += printable(name[i]) == '\t' ? '?' : printable(name[i]);
  if (name.size() > limit) text += "...";
  return text + "'";
}

}  // namespace polyfuse
