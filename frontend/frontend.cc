#include "frontend/frontend.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "frontend/isl_context.h"
#include "frontend/limits.h"
#include "frontend/dead_statements.h"
#include "frontend/matmul_factors.h"
#include "frontend/parser.h"
#include "frontend/polyhedral_model.h"
#include "frontend/sema.h"

namespace polyfuse {

SourceFile read_source_file(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code error;
  fs::file_status status = fs::status(path, error);
  if (error || !fs::exists(status))
    throw UserError(fmt::format("cannot read {}: no such file", quote_name(path)));
  if (!fs::is_regular_file(status))
    throw UserError(fmt::format("cannot read {}: not a regular file", quote_name(path)));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError(fmt::format("cannot read {}: {}", quote_name(path), std::strerror(errno)));
  std::string text;
  char buffer[65536];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    text.append(buffer, static_cast<std::size_t>(in.gcount()));
    if (text.size() > limits::max_source_bytes)
      throw UserError(fmt::format("{}: file is too large (the limit is {} bytes)", path,
                                  limits::max_source_bytes));
  }
  return SourceFile{path, std::move(text)};
}

FrontendResult compile_source(const SourceFile& source, const SizeBindings& sizes) {
  DiagnosticSink sink(source.name);
  if (source.text.size() > limits::max_source_bytes)
    throw UserError(fmt::format("{}: file is too large (the limit is {} bytes)", source.name,
                                limits::max_source_bytes));
  ast::File file = parse(source.text, sink);
  sink.throw_if_errors();
  if (file.defs.empty()) {
    sink.error(SourceLocation{1, 1}, "no 'def' in this file");
    sink.throw_if_errors();
  }
  std::map<std::string, SourceLocation> def_names;
  FrontendResult result;
  IslContextHandle context = make_isl_context();
  for (const ast::Def& def : file.defs) {
    auto [it, inserted] = def_names.emplace(def.name, def.location);
    if (!inserted) {
      sink.error(def.location, fmt::format("duplicate def name {} (first defined at {}:{})",
                                           quote_name(def.name), it->second.line, it->second.col));
      continue;
    }
    try {
      result.programs.push_back(analyze_def(def, sizes, context, sink));
    } catch (const isl::exception& e) {
      throw InternalError(fmt::format("building the polyhedral model of def {}: isl: {}",
                                      quote_name(def.name), e.what()));
    }
  }
  sink.throw_if_errors();
  // A matmul's terms times a value along the sum: the matmul, then the factor (matmul_factors.h).
  for (Program& program : result.programs) program = factor_matmul_scales(program);

  std::set<std::string> used;
  for (const Program& program : result.programs)
    for (const Tensor& tensor : program.tensors)
      for (const Size& size : tensor.dims)
        if (size.is_symbolic()) used.insert(size.symbol);
  for (const auto& [name, value] : sizes)
    if (!used.count(name))
      sink.warning(SourceLocation{}, fmt::format("`sizes` {}={}: no def in this file has a size named {}",
                                                 name, value, quote_name(name)));
  // Statements nothing returned depends on (dead_statements.h), after the sizes they use counted.
  for (Program& program : result.programs) program = drop_dead_statements(program, sink);
  result.warnings = sink.warnings();

  return result;
}

}  // namespace polyfuse
