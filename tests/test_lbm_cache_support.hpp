#pragma once
// Helpers of the suites that use lbm's reference cache (OMPREF_CACHE): a
// cache folder of the test's own, and the tiny problem.
#include <cstdlib>
#include <filesystem>
#include <vector>

#include "common/lbm/lbm.hpp"
#include "test_support.hpp"

namespace ompref::testing {

// OMPREF_CACHE set for one test, unset after it.
struct CacheFolder {
  ScratchDir dir;
  CacheFolder() { setenv("OMPREF_CACHE", dir.path.c_str(), 1); }
  ~CacheFolder() { unsetenv("OMPREF_CACHE"); }
  std::vector<std::filesystem::path> entries() const {
    std::vector<std::filesystem::path> out;
    for (const auto& e : std::filesystem::directory_iterator(dir.path)) out.push_back(e.path());
    return out;
  }
};

// lbm's parameters at size tiny.
inline lbm::Params tiny_lbm() {
  lbm::Params p;
  lbm::size_defaults("tiny", p);
  return p;
}

}  // namespace ompref::testing
