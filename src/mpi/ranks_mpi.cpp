// MPI ranks (cmake/MPI.cmake): the functions of common/ranks.hpp over
// MPI_COMM_WORLD. Device choice: local rank mod devices, the usual rule for
// one rank per GPU (the node's ranks found with MPI_Comm_split_type).
#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include <mpi.h>
#include <omp.h>

#include "common/ranks.hpp"

namespace ompref {
namespace {

RankPlace& place() {
  static RankPlace p;
  return p;
}
int terminal_stderr = STDERR_FILENO;  // rank 0's stderr, or a copy kept before /dev/null
// Until the first collective of the command, an error comes from the
// arguments, which every rank has the same: every rank meets it.
bool collectives_begun = false;

}  // namespace

const RankPlace& rank_place() { return place(); }

RankScope::RankScope(int& argc, char**& argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  RankPlace& p = place();
  MPI_Comm_rank(MPI_COMM_WORLD, &p.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p.count);
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, p.rank, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &p.local_rank);
  MPI_Comm_size(node, &p.local_count);
  MPI_Comm_free(&node);
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  MPI_Get_processor_name(name, &length);
  p.host.assign(name, std::size_t(length));
  const int devices = omp_get_num_devices();
  if (devices > 0) omp_set_default_device(p.local_rank % devices);
  if (p.rank != 0) {
    // Rank 0 prints the table, the progress and the files; the others' lines
    // would repeat them.
    std::fflush(stdout);
    std::fflush(stderr);
    terminal_stderr = dup(STDERR_FILENO);
    const int null = open("/dev/null", O_WRONLY);
    dup2(null, STDOUT_FILENO);
    dup2(null, STDERR_FILENO);
    close(null);
  }
}

RankScope::~RankScope() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

bool all_ranks(bool mine) {
  collectives_begun = true;
  int in = mine ? 1 : 0, out = 0;
  MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  return out != 0;
}

std::vector<std::string> gather_to_root(const std::string& mine) {
  collectives_begun = true;
  const RankPlace& p = place();
  int length = int(mine.size());
  std::vector<int> lengths(p.count), offsets(p.count);
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::string all;
  if (p.rank == 0) {
    int total = 0;
    for (int r = 0; r < p.count; ++r) offsets[r] = total, total += lengths[r];
    all.resize(std::size_t(total));
  }
  MPI_Gatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, 0, MPI_COMM_WORLD);
  std::vector<std::string> out;
  if (p.rank == 0)
    for (int r = 0; r < p.count; ++r) out.push_back(all.substr(std::size_t(offsets[r]), std::size_t(lengths[r])));
  return out;
}

void agree(const std::function<void()>& step) {
  collectives_begun = true;
  std::string message;
  bool failed = false;
  try {
    step();
  } catch (const UsageError& e) {
    failed = true;
    message = e.what();
  }
  const RankPlace& p = place();
  // The lowest failing rank's message goes to every rank.
  int mine = failed ? p.rank : p.count, first = p.count;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (first == p.count) return;
  int length = int(message.size());
  MPI_Bcast(&length, 1, MPI_INT, first, MPI_COMM_WORLD);
  message.resize(std::size_t(length));
  MPI_Bcast(message.data(), length, MPI_CHAR, first, MPI_COMM_WORLD);
  throw AgreedUsageError(message);
}

void agree_on(const std::string& what, const std::string& text) {
  // FNV-1a, 64 bits: a digest, not a secret.
  std::uint64_t digest = 14695981039346656037ull;
  for (unsigned char c : text) digest = (digest ^ c) * 1099511628211ull;
  const RankPlace& p = place();
  std::uint64_t root = digest;
  MPI_Bcast(&root, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  int mine = root == digest ? p.count : p.rank, first = p.count;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (first == p.count) return;
  throw AgreedUsageError("the ranks were given different " + what + ": rank " + std::to_string(first) +
                         "'s differs from rank 0's (every rank needs the same; docs/mpi.md)");
}

int report_error(const std::string& text, int status, bool agreed) {
  const RankPlace& p = place();
  if (agreed || !collectives_begun || p.count == 1) {
    if (p.rank == 0) std::fputs((text + "\n").c_str(), stderr);
    return status;
  }
  const std::string line = text + " (rank " + std::to_string(p.rank) + " of " + std::to_string(p.count) + ", " +
                           p.host + ")\n";
  [[maybe_unused]] ssize_t n = write(terminal_stderr, line.data(), line.size());
  MPI_Abort(MPI_COMM_WORLD, status);
  return status;
}

}  // namespace ompref
