#include "schedule/cpu_pointwise.h"

#include "frontend/diagnostics.h"
#include "frontend/ir_printer.h"
#include "schedule/cpu_roles.h"

namespace polyfuse {

void refuse_on_cpu(const Program& program, const Statement& statement, const std::string& reason) {
  throw UserError({Diagnostic{program.file, statement.location.line, statement.location.col,
                              "the CPU target does not support statement " + statement.id + " '" +
                                  print_statement_source(statement) + "': " + reason}});
}

bool read_in_the_block(const CpuAccess& access) {
  int m = 0, n = 0;
  for (CpuDim dim : access.dims) {
    m += dim == CpuDim::m;
    n += dim == CpuDim::n;
  }
  if (m > 1 || n > 1) return false;
  if (m == 1 && n == 1) {  // a matrix: its contiguous dimension must be m or n
    const CpuDim last = access.dims.back();
    if (last != CpuDim::m && last != CpuDim::n) return false;
  }
  return true;
}

std::string read_outside_the_block(const Statement& statement) {
  const Roles roles = pointwise_roles(statement.write.indices);
  for (const Access& read : statement.reads)
    if (!read_in_the_block(access_for(read.tensor, read.indices, roles))) return read.tensor;
  return "";
}

CpuPointwise pointwise_of(const Program& program, const Statement& statement, const std::vector<std::string>* names) {
  CpuPointwise pointwise;
  pointwise.statement = statement.id;
  pointwise.source = print_statement_source(statement);
  const Roles roles = pointwise_roles(names ? *names : statement.write.indices);
  pointwise.write = access_for(statement.write.tensor, statement.write.indices, roles);
  for (const Access& read : statement.reads) pointwise.reads.push_back(access_for(read.tensor, read.indices, roles));
  pointwise.expr = statement.expr;
  if (statement.kind == StatementKind::reduce) {  // `+=` without reduction index
    pointwise.reads.push_back(pointwise.write);
    pointwise.expr = Expr::binary_node(BinaryOp::add,
                                       Expr::read_node(static_cast<int>(pointwise.reads.size()) - 1, statement.location),
                                       statement.expr, statement.location);
  }
  for (const CpuAccess& read : pointwise.reads) {
    if (!read_in_the_block(read))
      refuse_on_cpu(program, statement,
                    "its read of " + quote_name(read.tensor) +
                        " is not an element, a row, a column or a scalar of the block it writes");
    if (read.tensor == pointwise.write.tensor && !same_element(read, pointwise.write))
      refuse_on_cpu(program, statement, "it reads the tensor it writes at other elements");
  }
  return pointwise;
}

}  // namespace polyfuse
