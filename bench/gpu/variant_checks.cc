#include "bench/gpu/variant_checks.h"

#include <utility>

namespace polyfuse::bench {

VariantChecks::VariantChecks(DeviceProblem& device, Stream& stream, Timer& timer, AgainstReference reference,
                             AgainstVariant variant)
    : device_(device), stream_(stream), timer_(timer), reference_(std::move(reference)), variant_(std::move(variant)) {}

bool VariantChecks::verify(const std::string& name, const Enqueue& enqueue) {
  device_.poison_output(stream_.get());
  enqueue(stream_.get());
  stream_.synchronize();
  std::vector<std::uint16_t> bits = device_.download_output();
  const CheckOutcome against_reference = reference_(bits);
  if (!against_reference.ok) {
    failures_.push_back(name + " vs host reference: " + against_reference.to_string());
    return false;
  }
  if (anchor_) {
    const CheckOutcome against_anchor = variant_(bits, *anchor_);
    if (!against_anchor.ok) {
      failures_.push_back(name + " vs " + anchor_name_ + ": " + against_anchor.to_string());
      return false;
    }
  } else {
    anchor_ = std::move(bits);
    anchor_name_ = name;
  }
  return true;
}

std::optional<double> VariantChecks::measure(const std::string& name, const Enqueue& enqueue) {
  if (!verify(name, enqueue)) return std::nullopt;
  return timer_.median_ms(enqueue);
}

std::string join_notes(const std::vector<std::string>& parts) {
  std::string text;
  for (const std::string& part : parts) {
    if (!text.empty()) text += "; ";
    text += part;
  }
  return text;
}

}  // namespace polyfuse::bench
