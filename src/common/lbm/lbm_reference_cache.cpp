// lbm's reference states kept across processes (lbm_reference_cache.hpp).
// An entry: a header line, the key (JSON text, compared whole on reading),
// the lattice's doubles as they are in memory, and their checksum.
#include "common/lbm/lbm_reference_cache.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <system_error>
#include <vector>
#include <unistd.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/device.hpp"
#include "common/lbm/lbm.hpp"

namespace ompref::lbm {
namespace {

constexpr char magic[] = "ompref lbm reference state 1\n";
constexpr std::uint64_t fnv_offset = 14695981039346656037ull, fnv_prime = 1099511628211ull;

std::uint64_t fnv(std::uint64_t h, const unsigned char* p, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) h = (h ^ p[i]) * fnv_prime;
  return h;
}

// The payload in blocks of 2^20 words (8 MB), each read or written with its
// own positional calls by the thread that hashes it (FNV-1a over its 8-byte
// words), in parallel: at the paper size the payload is 10 GB, which one
// thread reading into untouched memory (a page fault every 4 kB) loaded in
// about 6 s more than a validation takes.
// The blocks' hashes, in order, hashed again: the checksum, the same value on
// any number of threads.
constexpr std::int64_t block_words = std::int64_t(1) << 20, word_bytes = sizeof(double);

std::uint64_t block_hash(const double* data, std::int64_t n) {
  std::uint64_t h = fnv_offset;
  for (std::int64_t i = 0; i < n; ++i) {
    std::uint64_t w;
    std::memcpy(&w, data + i, sizeof w);
    h = (h ^ w) * fnv_prime;
  }
  return h;
}

// The checksum of `n` doubles at `data`, block by block in parallel, each
// block first moved by `io(first word, words)` (a read into it or a write
// from it); nothing where a move failed.
template <class Io>
std::optional<std::uint64_t> moved_checksum(const double* data, std::int64_t n, const Io& io) {
  const std::int64_t blocks = (n + block_words - 1) / block_words;
  std::vector<std::uint64_t> part(static_cast<std::size_t>(blocks));
  int failed = 0;
#pragma omp parallel for schedule(static) reduction(| : failed)
  for (std::int64_t b = 0; b < blocks; ++b) {
    const std::int64_t first = b * block_words, words = std::min(n, first + block_words) - first;
    if (!io(first, words)) failed = 1;
    else part[std::size_t(b)] = block_hash(data + first, words);
  }
  if (failed) return std::nullopt;
  return fnv(fnv_offset, reinterpret_cast<const unsigned char*>(part.data()), part.size() * sizeof(std::uint64_t));
}

// `bytes` at `data` read from (pread) or written to (pwrite) the file at
// `offset`, whatever the number of calls it takes.
template <class Call>
bool positional(Call call, int fd, std::int64_t offset, std::int64_t bytes) {
  std::int64_t done = 0;
  while (done < bytes) {
    const ssize_t moved = call(fd, done, std::size_t(bytes - done), offset + done);
    if (moved <= 0) return false;
    done += moved;
  }
  return true;
}

// A whole buffer written at the descriptor's position.
bool write_all(int fd, const void* data, std::size_t bytes) {
  const char* p = static_cast<const char*>(data);
  while (bytes > 0) {
    const ssize_t put = ::write(fd, p, bytes);
    if (put <= 0) return false;
    p += put;
    bytes -= std::size_t(put);
  }
  return true;
}

// This binary's bytes, hashed once: a rebuilt or changed reference is a new key.
const std::string& binary_identity() {
  static const std::string id = [] {
    std::ifstream in("/proc/self/exe", std::ios::binary);
    std::uint64_t h = fnv_offset, bytes = 0;
    std::vector<char> buf(1 << 20);
    while (in.read(buf.data(), std::streamsize(buf.size())) || in.gcount() > 0) {
      h = fnv(h, reinterpret_cast<const unsigned char*>(buf.data()), std::size_t(in.gcount()));
      bytes += std::uint64_t(in.gcount());
    }
    return bytes > 0 ? fmt::format("{:016x}-{}", h, bytes) : std::string();
  }();
  return id;
}

// Everything the state depends on; empty when the binary cannot be read (no entry then).
std::string key_of(const LbmInstance& s, long steps) {
  if (binary_identity().empty()) return {};
  const nlohmann::json key = {{"binary", binary_identity()}, {"cpu", host_info().cpu}, {"params", s.params()},
                              {"steps", steps},           {"stride", s.grid.stride}};
  return key.dump();
}

std::filesystem::path entry_path(const std::string& key) {
  return std::filesystem::path(reference_cache_dir()) /
         fmt::format("lbm-{:016x}.state", fnv(fnv_offset, reinterpret_cast<const unsigned char*>(key.data()), key.size()));
}

}  // namespace

std::string reference_cache_dir() {
  const char* dir = std::getenv("OMPREF_CACHE");
  return dir && *dir && std::string(dir) != "none" ? std::string(dir) : std::string();
}

bool load_reference_state(const LbmInstance& s, long steps, double* pop, bool& overwritten) {
  overwritten = false;
  if (reference_cache_dir().empty()) return false;
  const std::string key = key_of(s, steps);
  if (key.empty()) return false;
  std::FILE* f = std::fopen(entry_path(key).c_str(), "rb");
  if (!f) return false;
  const std::int64_t n = std::int64_t(Q) * s.grid.stride;
  std::string head(sizeof magic - 1, '\0'), text(key.size(), '\0');
  std::uint64_t key_bytes = 0, count = 0, sum = 0;
  bool ok = std::fread(head.data(), 1, head.size(), f) == head.size() && head == magic &&
            std::fread(&key_bytes, sizeof key_bytes, 1, f) == 1 && key_bytes == key.size() &&
            std::fread(text.data(), 1, text.size(), f) == text.size() && text == key &&
            std::fread(&count, sizeof count, 1, f) == 1 && count == std::uint64_t(n);
  // The payload follows the header: the header's bytes are its offset.
  const std::int64_t payload = std::int64_t(head.size() + sizeof key_bytes + text.size() + sizeof count);
  overwritten = ok;
  if (ok) {
    const int fd = fileno(f);
    const std::optional<std::uint64_t> read = moved_checksum(pop, n, [&](std::int64_t first, std::int64_t words) {
      char* into = reinterpret_cast<char*>(pop + first);
      return positional([into](int d, std::int64_t done, std::size_t bytes, std::int64_t at) {
                          return pread(d, into + done, bytes, at);
                        }, fd, payload + first * word_bytes, words * word_bytes);
    });
    ok = read && pread(fd, &sum, sizeof sum, payload + n * word_bytes) == ssize_t(sizeof sum) &&
         sum == *read;
  }
  std::fclose(f);
  return ok;
}

void store_reference_state(const LbmInstance& s, long steps, const double* pop) {
  const std::string dir = reference_cache_dir();
  if (dir.empty()) return;
  const std::string key = key_of(s, steps);
  if (key.empty()) return;
  const std::int64_t n = std::int64_t(Q) * s.grid.stride;
  const std::filesystem::path path = entry_path(key);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  const auto space = std::filesystem::space(dir, ec);
  const double bytes = double(n) * sizeof(double) + double(key.size()) + 64;
  if (ec || double(space.available) < 2 * bytes) {
    fmt::print(stderr, "ompref: OMPREF_CACHE {}: {}; the reference state is not kept\n", dir,
               ec ? ec.message() : fmt::format("{:.1f} GB free, {:.1f} GB needed", space.available / 1e9, 2 * bytes / 1e9));
    return;
  }
  std::string temp = (std::filesystem::path(dir) / ".lbm-state-XXXXXX").string();
  const int fd = mkstemp(temp.data());
  const std::uint64_t key_bytes = key.size(), count = std::uint64_t(n);
  const std::int64_t payload = std::int64_t(sizeof magic - 1 + sizeof key_bytes + key.size() + sizeof count);
  bool ok = fd >= 0 && write_all(fd, magic, sizeof magic - 1) && write_all(fd, &key_bytes, sizeof key_bytes) &&
            write_all(fd, key.data(), key.size()) && write_all(fd, &count, sizeof count);
  const std::optional<std::uint64_t> sum =
      ok ? moved_checksum(pop, n, [&](std::int64_t first, std::int64_t words) {
             const char* from = reinterpret_cast<const char*>(pop + first);
             return positional([from](int d, std::int64_t done, std::size_t bytes, std::int64_t at) {
                                 return pwrite(d, from + done, bytes, at);
                               }, fd, payload + first * word_bytes, words * word_bytes);
           })
         : std::nullopt;
  ok = sum && pwrite(fd, &*sum, sizeof *sum, payload + n * word_bytes) == ssize_t(sizeof *sum);
  if (fd >= 0) ok = close(fd) == 0 && ok;
  if (ok) std::filesystem::rename(temp, path, ec);
  if (!ok || ec) {
    std::filesystem::remove(temp, ec);
    fmt::print(stderr, "ompref: OMPREF_CACHE {}: could not write {}; the reference state is not kept\n", dir,
               path.string());
  }
}

}  // namespace ompref::lbm
