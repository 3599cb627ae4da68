#include "schedule/cpu_roles.h"

#include "frontend/diagnostics.h"

namespace polyfuse {

CpuAccess access_for(const std::string& tensor, const std::vector<std::string>& indices, const Roles& roles) {
  CpuAccess access;
  access.tensor = tensor;
  for (const std::string& index : indices) {
    const auto found = roles.find(index);
    PF_INTERNAL_CHECK(found != roles.end(), "cpu plan: index without a role: " + index);
    access.dims.push_back(found->second.first);
    access.batch_positions.push_back(found->second.second);
  }
  return access;
}

Roles pointwise_roles(const std::vector<std::string>& names) {
  Roles roles;
  const std::size_t rank = names.size();
  for (std::size_t i = 0; i < rank; ++i) {
    if (i + 1 == rank) roles[names[i]] = {CpuDim::n, -1};
    else if (i + 2 == rank) roles[names[i]] = {CpuDim::m, -1};
    else roles[names[i]] = {CpuDim::batch, static_cast<int>(i)};
  }
  return roles;
}

bool same_element(const CpuAccess& x, const CpuAccess& y) {
  return x.dims == y.dims && x.batch_positions == y.batch_positions;
}

}  // namespace polyfuse
