// Where an access comes from, for error messages. A host hook takes its return address (the
// call inside the helper, inlined into the kernel) and interns it per launch as a 16-bit
// site; only when an error is reported is a site turned into source lines, by addr2line on
// the object that holds it (run-time builds carry line tables, g++ -g1), e.g.
//   "at /.../kernel-1f2e.cu:57 in gemm_bias_relu (pf::cp_async_tile → pf::cp_async16)".
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace polyfuse::emu {

class AccessSites {
 public:
  // Forgets every site (a new launch).
  void clear();
  // The site of code address `pc` (0: unknown, or the table is full); `async`: the write
  // of a cp.async issued there, made when its wait completed it.
  std::uint16_t intern(const void* pc, bool async = false);
  bool is_async(std::uint16_t site) const { return site && site < pcs_.size() && async_[site]; }
  // " at FILE:LINE in FUNCTION (helper → helper)", or " at OBJECT+0xOFFSET" without line
  // information, or "" for site 0.
  std::string describe(std::uint16_t site) const;

 private:
  std::vector<const void*> pcs_{nullptr};
  std::vector<bool> async_{false};
  std::unordered_map<std::uintptr_t, std::uint16_t> index_;  // key: 2 * pc + async
  struct CacheEntry {
    std::uintptr_t key = 0;
    std::uint16_t site = 0;
  };
  CacheEntry cache_[256];
};

// The description of a return address `pc` as AccessSites::describe gives it.
std::string describe_code_address(const void* pc);

}  // namespace polyfuse::emu
