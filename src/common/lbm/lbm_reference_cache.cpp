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

// FNV-1a over 8-byte words, per block of 2^20 words in parallel, then the
// blocks' hashes in order: the same value on any number of threads.
std::uint64_t checksum(const double* data, std::int64_t n) {
  constexpr std::int64_t block = std::int64_t(1) << 20;
  const std::int64_t blocks = (n + block - 1) / block;
  std::vector<std::uint64_t> part(static_cast<std::size_t>(blocks));
#pragma omp parallel for schedule(static)
  for (std::int64_t b = 0; b < blocks; ++b) {
    std::uint64_t h = fnv_offset;
    for (std::int64_t i = b * block; i < std::min(n, (b + 1) * block); ++i) {
      std::uint64_t w;
      std::memcpy(&w, data + i, sizeof w);
      h = (h ^ w) * fnv_prime;
    }
    part[std::size_t(b)] = h;
  }
  return fnv(fnv_offset, reinterpret_cast<const unsigned char*>(part.data()), part.size() * sizeof(std::uint64_t));
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
  overwritten = ok;
  ok = ok && std::fread(pop, sizeof(double), std::size_t(n), f) == std::size_t(n) &&
       std::fread(&sum, sizeof sum, 1, f) == 1 && sum == checksum(pop, n);
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
  std::FILE* f = fd >= 0 ? fdopen(fd, "wb") : nullptr;
  const std::uint64_t key_bytes = key.size(), count = std::uint64_t(n), sum = checksum(pop, n);
  bool ok = f && std::fwrite(magic, 1, sizeof magic - 1, f) == sizeof magic - 1 &&
            std::fwrite(&key_bytes, sizeof key_bytes, 1, f) == 1 &&
            std::fwrite(key.data(), 1, key.size(), f) == key.size() && std::fwrite(&count, sizeof count, 1, f) == 1 &&
            std::fwrite(pop, sizeof(double), std::size_t(n), f) == std::size_t(n) &&
            std::fwrite(&sum, sizeof sum, 1, f) == 1;
  if (f) ok = std::fclose(f) == 0 && ok;
  else if (fd >= 0) close(fd);
  if (ok) std::filesystem::rename(temp, path, ec);
  if (!ok || ec) {
    std::filesystem::remove(temp, ec);
    fmt::print(stderr, "ompref: OMPREF_CACHE {}: could not write {}; the reference state is not kept\n", dir,
               path.string());
  }
}

}  // namespace ompref::lbm
