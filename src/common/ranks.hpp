#pragma once
// MPI ranks, one device each, as OpenMP offload codes run on nodes of several
// GPUs and on clusters (the SPEChpc model; docs/mpi.md). Every rank runs the
// same variants in step on the device numbered (local rank mod devices); rank
// 0 prints and writes the results. Built without MPI (cmake/MPI.cmake) the
// program is one rank of one: ranks.cpp, which calls nothing of MPI; with MPI
// the same functions are src/mpi/ranks_mpi.cpp's. The framework calls only
// these; a decomposed variant (src/mpi/) calls MPI itself.
#include <functional>
#include <string>
#include <vector>

#include "common/usage_error.hpp"

namespace ompref {

// Where this process stands: rank 0 of 1 without MPI.
struct RankPlace {
  int rank = 0;
  int count = 1;
  int local_rank = 0;     // rank among the ranks of this node
  int local_count = 1;    // ranks on this node (they share its host memory)
  std::string host;       // this node's hostname
};
const RankPlace& rank_place();
inline bool is_root() { return rank_place().rank == 0; }
inline bool several_ranks() { return rank_place().count > 1; }

// Initialises MPI (threads: funneled) and finalises it at the end of main;
// sets the default OpenMP device to (local rank mod devices) and sends every
// rank's output but rank 0's to /dev/null (report_error still reaches the
// terminal). Nothing without MPI.
class RankScope {
 public:
  RankScope(int& argc, char**& argv);
  ~RankScope();
  RankScope(const RankScope&) = delete;
  RankScope& operator=(const RankScope&) = delete;
};

// Collectives over every rank (the identity with one).
bool all_ranks(bool mine);                                        // logical and
std::vector<std::string> gather_to_root(const std::string& mine);  // rank order on rank 0; empty elsewhere

// A UsageError every rank threw together (agree): rank 0 prints it, every
// rank exits 2 normally.
struct AgreedUsageError : UsageError {
  explicit AgreedUsageError(const std::string& what) : UsageError(what) {}
};
// Runs `step` on every rank; when it throws UsageError on any rank, every rank
// throws AgreedUsageError with the lowest failing rank's message, so that no
// rank waits in a later collective for one that has left.
void agree(const std::function<void()>& step);

// Every rank must hold the same `text` (the command line, the plan): compared
// by a 64-bit digest before any other collective depends on it. When they
// differ, every rank throws AgreedUsageError naming `what` and the lowest rank
// that differs from rank 0 (rank 0 prints it, every rank exits 2). Nothing with
// one rank.
void agree_on(const std::string& what, const std::string& text);

// The end of the command on an error: the line `text` goes to stderr (from
// rank 0 alone when the error is `agreed` by every rank; otherwise from the
// failing rank, naming it). With several ranks and an error not agreed, the
// job ends here with MPI_Abort(status): no rank hangs waiting for this one.
int report_error(const std::string& text, int status, bool agreed);

}  // namespace ompref
