// One process, one rank (a build without MPI: cmake/MPI.cmake). The MPI
// build replaces this file with src/mpi/ranks_mpi.cpp.
#include "common/ranks.hpp"

#include <cstdio>

namespace ompref {

const RankPlace& rank_place() {
  static const RankPlace place;
  return place;
}

RankScope::RankScope(int&, char**&) {}
RankScope::~RankScope() = default;

bool all_ranks(bool mine) { return mine; }
std::vector<std::string> gather_to_root(const std::string& mine) { return {mine}; }

void agree(const std::function<void()>& step) { step(); }
void agree_on(const std::string&, const std::string&) {}

int report_error(const std::string& text, int status, bool) {
  std::fputs((text + "\n").c_str(), stderr);
  return status;
}

}  // namespace ompref
