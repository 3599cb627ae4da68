#include "frontend/dependences.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <sstream>

#include "frontend/diagnostics.h"

namespace polyfuse {

Dependences::Dependences(const IslContextHandle& context)
    : context_(context),
      raw(isl::union_map::empty(context.ctx())),
      war(isl::union_map::empty(context.ctx())),
      waw(isl::union_map::empty(context.ctx())),
      keep_alive_(context) {}

isl::union_map Dependences::all() const { return raw.unite(war).unite(waw); }

isl::union_map reads_with_accumulators(const Program& program) {
  isl::union_map reads = program.reads();
  for (const Statement& statement : program.statements) {
    if (statement.kind == StatementKind::assign) continue;
    isl::map accumulator = statement.write.relation;
    if (statement.kind == StatementKind::reduce_init) {
      // The first instance updating each element starts from zero: it reads nothing.
      isl::set first = accumulator.reverse().lexmin().range();
      accumulator = accumulator.intersect_domain(statement.domain.subtract(first));
    }
    reads = reads.unite(isl::union_map(accumulator));
  }
  return reads;
}

namespace {

// The exact last-writer dataflow (read after write) on the program order.
isl::union_map flow_dependences(const isl::union_map& schedule, const isl::union_map& writes,
                                const isl::union_map& reads) {
  return isl::union_access_info(reads)
      .set_must_source(writes)
      .set_schedule_map(schedule)
      .compute_flow()
      .get_may_dependence()
      .coalesce();
}

std::string isl_failure(const Program& program, const isl::exception& e) {
  return fmt::format("dependence analysis of def {}: isl: {}", quote_name(program.name), e.what());
}

}  // namespace

Dependences compute_dependences(const Program& program) {
  Dependences result(program.context());
  try {
    isl::union_map schedule = program.program_order();
    isl::union_map writes = program.writes();
    isl::union_map reads = reads_with_accumulators(program);
    result.raw = flow_dependences(schedule, writes, reads);
    result.war = isl::union_access_info(writes)
                     .set_may_source(reads)
                     .set_kill(writes)
                     .set_schedule_map(schedule)
                     .compute_flow()
                     .get_may_dependence()
                     .coalesce();
    result.waw = isl::union_access_info(writes)
                     .set_must_source(writes)
                     .set_schedule_map(schedule)
                     .compute_flow()
                     .get_may_dependence()
                     .coalesce();
    isl::set assumptions = program.assumptions();
    result.raw = result.raw.gist_params(assumptions);
    result.war = result.war.gist_params(assumptions);
    result.waw = result.waw.gist_params(assumptions);
  } catch (const isl::exception& e) {
    throw InternalError(isl_failure(program, e));
  }
  return result;
}

std::vector<std::pair<std::string, std::string>> flow_statement_pairs(const Program& program) {
  static std::mutex mutex;
  static std::map<std::string, std::vector<std::pair<std::string, std::string>>> known;
  constexpr std::size_t kMostRemembered = 4096;  // then forgotten all at once
  try {
    isl::union_map schedule = program.program_order();
    isl::union_map writes = program.writes();
    isl::union_map reads = reads_with_accumulators(program);
    isl::set assumptions = program.assumptions();
    std::ostringstream inputs;
    inputs << schedule << '\n' << writes << '\n' << reads << '\n' << assumptions;
    for (const Statement& statement : program.statements) inputs << '\n' << statement.id;
    std::string key = inputs.str();
    {
      std::lock_guard lock(mutex);
      if (auto it = known.find(key); it != known.end()) return it->second;
    }
    auto pairs = statement_pairs(program, flow_dependences(schedule, writes, reads).gist_params(assumptions));
    std::lock_guard lock(mutex);
    if (known.size() >= kMostRemembered) known.clear();
    known.emplace(std::move(key), pairs);
    return pairs;
  } catch (const isl::exception& e) {
    throw InternalError(isl_failure(program, e));
  }
}

std::vector<std::pair<std::string, std::string>> statement_pairs(const Program& program,
                                                                 const isl::union_map& relation,
                                                                 bool include_self) {
  std::vector<std::pair<int, int>> pairs;
  isl::map_list maps = relation.map_list();
  for (unsigned i = 0; i < maps.size(); ++i) {
    isl::map map = maps.at(static_cast<int>(i));
    int source = program.statement_index(map.domain_tuple_id().name());
    int sink = program.statement_index(map.range_tuple_id().name());
    PF_INTERNAL_CHECK(source >= 0 && sink >= 0, "dependence between unknown statements");
    if (source == sink && !include_self) continue;
    pairs.emplace_back(source, sink);
  }
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  std::vector<std::pair<std::string, std::string>> named;
  for (auto [source, sink] : pairs)
    named.emplace_back(program.statements[static_cast<std::size_t>(source)].id,
                       program.statements[static_cast<std::size_t>(sink)].id);
  return named;
}

}  // namespace polyfuse
