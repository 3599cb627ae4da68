// The autotuner's report: its text (the ranked table, polyfuse/autotune.h's to_string) and its
// form in the winner cache (JSON, one section of an artefact-cache entry of kind "autotune").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "polyfuse/autotune.h"
#include "schedule/tuning_candidates.h"

namespace polyfuse::api {

// `report` as the JSON text the winner cache stores (everything but `chosen` and `from_cache`).
std::string report_json(const AutotuneReport& report);

// The report stored as `text`, its `chosen` options the winner's applied to `options` and
// `from_cache` set; nullopt when the text is damaged or its winner is not one of `candidates`.
std::optional<AutotuneReport> report_from_json(const std::string& text, const std::vector<TuningCandidate>& candidates,
                                               const CompileOptions& options);

}  // namespace polyfuse::api
