// lbm's reference states kept across processes (lbm_reference_cache.hpp).
// An entry: a header line, the key (JSON text, compared whole on reading),
// the lattice's doubles as they are in memory, and their checksum.
#include "common/lbm/lbm_reference_cache.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <system_error>
#include <vector>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/device.hpp"
#include "common/io/output_file.hpp"
#include "common/lbm/lbm.hpp"
#include "common/usage_error.hpp"

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

// What makes a file or folder of the cache untrusted, as ssh judges the
// files it reads: an owner other than this user (or root, for a folder
// above the cache), or write permission for the group or others (above the
// cache a sticky folder, such as /tmp, is fine: others may not rename what
// is in it). Empty when trusted.
std::string untrusted(const struct stat& st, bool above) {
  const uid_t me = geteuid();
  if (st.st_uid != me && !(above && st.st_uid == 0)) return fmt::format("owned by user {}, not by you", st.st_uid);
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0 && !(above && (st.st_mode & S_ISVTX) != 0))
    return fmt::format("writable by {} (mode {:04o})", (st.st_mode & S_IWOTH) ? "others" : "its group",
                       st.st_mode & 07777);
  return {};
}

// Why the cache folder (its symbolic links followed) and the folders above
// it are not to be trusted; empty when they are, or when it does not exist yet.
std::string untrusted_folder(const std::string& dir) {
  std::error_code ec;
  const std::filesystem::path real = std::filesystem::weakly_canonical(std::filesystem::absolute(dir, ec), ec);
  if (ec) return fmt::format("cannot be resolved ({})", ec.message());
  struct stat st {};
  bool leaf = true;
  for (std::filesystem::path p = real;; p = p.parent_path()) {
    if (stat(p.c_str(), &st) == 0) {
      if (!S_ISDIR(st.st_mode)) return fmt::format("{} is not a folder", p.string());
      if (const std::string why = untrusted(st, !leaf); !why.empty())
        return p == real ? why : fmt::format("the folder above it, {}, is {}", p.string(), why);
      leaf = false;
    } else if (errno != ENOENT) {
      return fmt::format("{}: {}", p.string(), std::strerror(errno));
    }
    if (p == p.parent_path()) break;
  }
  return {};
}

// One line for a cache that is not used, the first time only.
void say_once(const std::string& line) {
  static bool said = false;
  if (said) return;
  said = true;
  fmt::print(stderr, "ompref: {}\n", line);
}

}  // namespace

std::string reference_cache_dir() {
  const char* dir = std::getenv("OMPREF_CACHE");
  return dir && *dir && std::string(dir) != "none" ? std::string(dir) : std::string();
}

void check_reference_cache() {
  const std::string dir = reference_cache_dir();
  if (dir.empty()) return;
  if (const std::string why = untrusted_folder(dir); !why.empty())
    throw UsageError(fmt::format("OMPREF_CACHE {}: {} (accepted: a folder that only you can write, below folders "
                                 "that only you or root can write, or sticky ones; or unset)",
                                 dir, why));
}

bool load_reference_state(const LbmInstance& s, long steps, double* pop, bool& overwritten) {
  overwritten = false;
  if (reference_cache_dir().empty()) return false;
  const std::string key = key_of(s, steps);
  if (key.empty()) return false;
  const std::string dir = reference_cache_dir();
  if (const std::string why = untrusted_folder(dir); !why.empty()) {
    say_once(fmt::format("OMPREF_CACHE {}: {}; the cache is not used", dir, why));
    return false;
  }
  // Opened without following a link or waiting on a FIFO, then judged by
  // what was opened: a regular file of this user that only this user writes.
  const std::filesystem::path path = entry_path(key);
  const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    if (errno != ENOENT)
      say_once(fmt::format("OMPREF_CACHE {}: {} cannot be read ({}); the reference state is computed", dir,
                           path.string(), errno == ELOOP ? "a symbolic link" : std::strerror(errno)));
    return false;
  }
  struct stat st {};
  std::string why = fstat(fd, &st) != 0 ? std::string(std::strerror(errno))
                    : !S_ISREG(st.st_mode) ? std::string("not a regular file")
                                           : untrusted(st, false);
  if (!why.empty()) {
    close(fd);
    say_once(fmt::format("OMPREF_CACHE {}: {} is {}; it is not read, the reference state is computed", dir,
                         path.string(), why));
    return false;
  }
  const std::int64_t n = std::int64_t(Q) * s.grid.stride;
  std::string head(sizeof magic - 1, '\0'), text(key.size(), '\0');
  std::uint64_t key_bytes = 0, count = 0, sum = 0;
  std::int64_t at = 0;
  const auto read_at = [&](void* into, std::size_t bytes) {
    const bool got = positional([into](int d, std::int64_t done, std::size_t b, std::int64_t off) {
                                  return pread(d, static_cast<char*>(into) + done, b, off);
                                }, fd, at, std::int64_t(bytes));
    at += std::int64_t(bytes);
    return got;
  };
  bool ok = read_at(head.data(), head.size()) && head == magic && read_at(&key_bytes, sizeof key_bytes) &&
            key_bytes == key.size() && read_at(text.data(), text.size()) && text == key &&
            read_at(&count, sizeof count) && count == std::uint64_t(n);
  // The payload follows the header: the header's bytes are its offset.
  const std::int64_t payload = std::int64_t(head.size() + sizeof key_bytes + text.size() + sizeof count);
  overwritten = ok;
  if (ok) {
    const std::optional<std::uint64_t> read = moved_checksum(pop, n, [&](std::int64_t first, std::int64_t words) {
      char* into = reinterpret_cast<char*>(pop + first);
      return positional([into](int d, std::int64_t done, std::size_t bytes, std::int64_t at) {
                          return pread(d, into + done, bytes, at);
                        }, fd, payload + first * word_bytes, words * word_bytes);
    });
    ok = read && pread(fd, &sum, sizeof sum, payload + n * word_bytes) == ssize_t(sizeof sum) &&
         sum == *read;
  }
  close(fd);
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
  // Missing folders made for this user alone (what the check above requires).
  std::vector<std::filesystem::path> missing;
  for (std::filesystem::path p = std::filesystem::absolute(dir, ec); !p.empty() && !std::filesystem::exists(p, ec);
       p = p.parent_path()) {
    missing.push_back(p);
    if (p == p.parent_path()) break;
  }
  for (auto p = missing.rbegin(); p != missing.rend(); ++p) mkdir(p->c_str(), 0700);
  if (const std::string why = untrusted_folder(dir); !why.empty()) {
    say_once(fmt::format("OMPREF_CACHE {}: {}; the cache is not used", dir, why));
    return;
  }
  const auto space = std::filesystem::space(dir, ec);
  const double bytes = double(n) * sizeof(double) + double(key.size()) + 64;
  if (ec || double(space.available) < 2 * bytes) {
    fmt::print(stderr, "ompref: OMPREF_CACHE {}: {}; the reference state is not kept\n", dir,
               ec ? ec.message() : fmt::format("{:.1f} GB free, {:.1f} GB needed", space.available / 1e9, 2 * bytes / 1e9));
    return;
  }
  // Pending until renamed: a signal that ends the run removes it.
  std::string temp = (std::filesystem::path(dir) / ".lbm-state-XXXXXX").string();
  int slot = -1;
  const int fd = create_pending_file(temp, slot);
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
  const bool kept = ok && !ec;
  if (fd >= 0 && !kept) std::filesystem::remove(temp, ec);
  release_pending_file(slot);
  if (!kept) {
    fmt::print(stderr, "ompref: OMPREF_CACHE {}: could not write {}; the reference state is not kept\n", dir,
               path.string());
  }
}

}  // namespace ompref::lbm
