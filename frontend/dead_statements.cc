#include "frontend/dead_statements.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <set>

namespace polyfuse {

Program drop_dead_statements(const Program& program, DiagnosticSink& sink) {
  std::set<std::string> needed;  // tensors a kept statement after the current one reads
  for (const Tensor& tensor : program.tensors)
    if (tensor.role == TensorRole::output) needed.insert(tensor.name);
  std::vector<bool> kept(program.statements.size(), false);
  for (std::size_t i = program.statements.size(); i-- > 0;) {
    const Statement& statement = program.statements[i];
    if (!needed.count(statement.write.tensor)) continue;
    kept[i] = true;
    for (const Access& read : statement.reads) needed.insert(read.tensor);
  }
  std::map<std::string, std::vector<std::string>> dropped;  // temporary -> the statements writing it
  Program result = program;
  result.statements.clear();
  std::set<std::string> touched;
  for (std::size_t i = 0; i < program.statements.size(); ++i) {
    const Statement& statement = program.statements[i];
    if (!kept[i]) {
      dropped[statement.write.tensor].push_back(statement.id);
      continue;
    }
    result.statements.push_back(statement);
    touched.insert(statement.write.tensor);
    for (const Access& read : statement.reads) touched.insert(read.tensor);
  }
  if (dropped.empty()) return result;
  result.tensors.clear();
  for (const Tensor& tensor : program.tensors)
    if (tensor.role != TensorRole::temporary || touched.count(tensor.name)) result.tensors.push_back(tensor);
  for (const Tensor& tensor : program.tensors) {
    const auto it = dropped.find(tensor.name);
    if (it == dropped.end()) continue;
    sink.warning(tensor.location,
                 fmt::format("{} is computed but nothing def '{}' returns depends on it: {} dropped", tensor.name,
                             program.name, fmt::join(it->second, ", ")));
  }
  return result;
}

}  // namespace polyfuse
