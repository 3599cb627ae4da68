// Checks each variant of one problem before it is timed (checks.h): the output poisoned,
// one execution, then the output against the host reference on the sampled elements and,
// in full, against the first variant that passed. A variant that fails is recorded and not
// timed.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "bench/gpu/checks.h"
#include "bench/gpu/device_problem.h"
#include "bench/gpu/timing.h"
#include "bench/gpu/variants.h"

namespace polyfuse::bench {

class VariantChecks {
 public:
  // An output (all of it, as 16-bit patterns) against the host reference.
  using AgainstReference = std::function<CheckOutcome(const std::vector<std::uint16_t>&)>;
  // An output against another variant's.
  using AgainstVariant =
      std::function<CheckOutcome(const std::vector<std::uint16_t>&, const std::vector<std::uint16_t>&)>;

  VariantChecks(DeviceProblem& device, Stream& stream, Timer& timer, AgainstReference reference,
                AgainstVariant variant);

  // Runs `enqueue` once and checks its output; false (and a failure recorded) when it fails.
  bool verify(const std::string& name, const Enqueue& enqueue);
  // verify, then the median time of `enqueue` (nullopt when it failed).
  std::optional<double> measure(const std::string& name, const Enqueue& enqueue);
  // "name vs host reference: FAILED: ...", one per failed variant.
  const std::vector<std::string>& failures() const { return failures_; }

 private:
  DeviceProblem& device_;
  Stream& stream_;
  Timer& timer_;
  AgainstReference reference_;
  AgainstVariant variant_;
  std::optional<std::vector<std::uint16_t>> anchor_;  // the first output that passed
  std::string anchor_name_;
  std::vector<std::string> failures_;
};

// `parts` joined with "; " (a row's check and notes).
std::string join_notes(const std::vector<std::string>& parts);

}  // namespace polyfuse::bench
