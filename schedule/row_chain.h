// A row chain: row reductions and the pointwise statements around them, over the same rows,
// run as one memory-bound kernel of a plan (schedule/program_plan.h) in which one warp (rows
// of at most 1024 terms) or one block of 8 warps (longer rows) owns a row.
//
// The first reduction `W(r..) op=! f(r.., c..)` fixes the rows (its written indices r..) and
// the columns (its reduced indices c..). Every statement of the chain is one of
//   - a reduction over the same rows and columns (`s(m) +=! e(m, n)`),
//   - an element statement over (r.., c..)   (`e(m, n) = exp(X(m, n) - mx(m))`),
//   - a row statement over (r..)             (`lse(m) = mx(m) + log(s(m))`),
// reading with plain indices only; a tensor the chain writes is written once, read afterwards
// only by later statements and at the indices it was written (an element at the element, a
// row value at the row), never read before. The kernel reads each row once: when each
// thread's share of the row fits in registers (at most `row_register_limit` floats for all the
// row arrays the kernel keeps: the inputs it reads more than once and the element values
// later loops read) it keeps it there, else each loop over the row re-reads the inputs from
// global memory and recomputes the element values it needs. 128-bit loads and stores carry
// `vector` consecutive terms when every row starts 16-byte aligned (the column count a multiple
// of it), else each term is one access.
//
//   std::variant<RowChain, std::string> chain = row_chain_of(program, {"S1", "S2", "S3"});
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "frontend/program.h"

namespace polyfuse {

// Each thread keeps at most this many floats of the rows (in registers) for the whole chain.
constexpr std::int64_t row_register_limit = 64;

// One step of a chain, in order: a loop over the row's terms (element statements and
// reductions, the reductions' results combined across the row's threads after it) or one row
// statement (every thread of the row computes it).
struct RowStep {
  bool loop = true;
  std::vector<std::string> statements;  // ids, program order
};

struct RowChain {
  std::vector<std::string> statements;  // ids, program order
  std::vector<RowStep> steps;           // a new loop starts where a statement reads a reduction of the open one
  std::vector<std::string> rows;        // the row indices (r..), outermost first
  std::vector<std::string> columns;     // the column indices (c..)
  std::vector<std::int64_t> row_extents, column_extents;
  std::int64_t row_count = 1;           // product of the rows' extents
  std::int64_t column_count = 1;        // terms of a row
  bool by_block = false;                // a block of 8 warps a row (more than 1024 terms), else a warp
  int threads_per_row = 32;             // 32 or 256
  int vector = 1;                       // consecutive terms a thread loads together (128-bit accesses), or 1
  std::int64_t chunks = 1;              // vectors of terms a thread handles in a row
  std::vector<std::string> kept;        // tensors whose row the threads keep (inputs read twice, element values)
  bool in_registers = true;             // the kept rows fit row_register_limit; else re-read and recomputed

  // The floats of the row each thread holds per kept tensor (chunks * vector).
  std::int64_t items() const { return chunks * vector; }
  // "one warp per row (64 rows of 128 terms), 128-bit accesses of 8 terms, the row kept in registers (...)".
  std::string describe() const;
};

// The chain of `ids` (statements of `program`, every size bound, program order), or why they
// are not one: the first statement that breaks a rule above, and the rule.
std::variant<RowChain, std::string> row_chain_of(const Program& program, const std::vector<std::string>& ids);

// Whether `access` (of statement `s` of `chain`) moves a whole row of its tensor contiguously:
// at the element indices, over a tensor whose extents are theirs (the row starts at
// row * column_count, the term at its column offset).
bool is_contiguous_row_access(const Program& program, const RowChain& chain, const Statement& s, const Access& access);

// Whether `s` is an element statement of `chain` (over the rows and the columns; else a row
// statement or a reduction).
bool is_element_statement(const RowChain& chain, const Statement& s);

}  // namespace polyfuse
