#include "bench/gpu/polyfuse_path.h"

#include <sstream>

namespace polyfuse::bench {

std::string polyfuse_path(const std::string& plan) {
  std::istringstream lines(plan);
  std::string line, head, kinds;
  const std::string plan_prefix = "plan of def ";
  while (std::getline(lines, line)) {
    if (line.rfind(plan_prefix, 0) == 0) {
      const size_t colon = line.find(": ");
      if (colon != std::string::npos) head = line.substr(colon + 2);
    } else if (line.rfind("kernel ", 0) == 0) {  // "kernel 0 NAME (KIND)"
      const size_t open = line.rfind(" (");
      if (open != std::string::npos && line.back() == ')')
        kinds += (kinds.empty() ? "" : ", ") + line.substr(open + 2, line.size() - open - 3);
    }
  }
  if (head.empty()) return "plan unknown";
  // "2 kernels, workspace of N bytes" -> "2 kernels (KINDS), workspace of N bytes"
  const size_t comma = head.find(", ");
  if (kinds.empty() || comma == std::string::npos) return head;
  return head.substr(0, comma) + " (" + kinds + ")" + head.substr(comma);
}

}  // namespace polyfuse::bench
