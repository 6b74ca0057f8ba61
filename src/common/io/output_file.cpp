#include "common/io/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>

#include <fmt/format.h>

#include "common/usage_error.hpp"

namespace fs = std::filesystem;

namespace ompref {
namespace {

// The temporary file being written, for remove_pending_output().
char pending[4096] = {};
volatile std::sig_atomic_t pending_set = 0;

[[noreturn]] void fail(const std::string& what, const std::string& path, const std::string& why) {
  throw UsageError(fmt::format("{} {}: {}", what, path, why));
}

}  // namespace

std::string resolve_output_path(const std::string& path) {
  fs::path p = path;
  std::error_code ec;
  for (int hops = 0; hops < 40 && fs::is_symlink(fs::symlink_status(p, ec)); ++hops) {
    fs::path target = fs::read_symlink(p, ec);
    if (ec) break;
    p = target.is_absolute() ? target : p.parent_path() / target;
  }
  return p.string();
}

void check_output_path(const std::string& path, const std::string& option) {
  if (path == "-") return;
  if (path.empty()) fail(option, "''", "empty path (accepted: a file path, or - for standard output)");
  const fs::path target = resolve_output_path(path);
  std::error_code ec;
  if (fs::is_symlink(fs::symlink_status(target, ec)))
    fail(option, path, "a loop of symbolic links (accepted: a file path, or -)");
  const fs::file_status st = fs::status(target, ec);
  if (fs::exists(st)) {
    if (!fs::is_regular_file(st))
      fail(option, path, "not a regular file (a directory, FIFO or device); accepted: a file path, or -");
    // Opened for appending (nothing truncated): what root may not write either.
    const int fd = open(target.c_str(), O_WRONLY | O_APPEND | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) fail(option, path, fmt::format("cannot write this file ({})", std::strerror(errno)));
    close(fd);
  }
  const fs::path dir = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  if (!fs::is_directory(dir, ec)) fail(option, path, fmt::format("the directory {} does not exist", dir.string()));
  // The temporary file of the final write must be possible there.
  std::string probe = (dir / ".ompref-probe.XXXXXX").string();
  const int fd = mkstemp(probe.data());
  if (fd < 0) fail(option, path, fmt::format("cannot create files in {} ({})", dir.string(), std::strerror(errno)));
  close(fd);
  unlink(probe.c_str());
}

bool same_output(const std::string& a, const std::string& b) {
  if (a.empty() || b.empty() || a == "-" || b == "-") return false;
  const fs::path ra = resolve_output_path(a), rb = resolve_output_path(b);
  std::error_code ec;
  if (fs::exists(ra, ec) && fs::exists(rb, ec)) return fs::equivalent(ra, rb, ec);
  // Not there yet: compared as absolute, normal paths ("x.json" is "./x.json").
  const auto normal = [&](const fs::path& p) { return fs::weakly_canonical(fs::absolute(p, ec), ec).lexically_normal(); };
  return normal(ra) == normal(rb);
}

void write_output(const std::string& path, const std::string& text, const std::string& what) {
  if (path == "-") {
    if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0)
      fail(what, path, "cannot write to standard output");
    return;
  }
  const fs::path target = resolve_output_path(path);
  const fs::path dir = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  std::string temp = (dir / ("." + target.filename().string() + ".tmp.XXXXXX")).string();
  if (temp.size() >= sizeof pending) fail(what, path, "path too long");
  pending_set = 0;
  std::memcpy(pending, temp.c_str(), temp.size() + 1);
  // Marked before it exists: an interrupt while mkstemp creates it removes it
  // (or finds nothing to remove), never leaves it behind.
  pending_set = 1;
  const int fd = mkstemp(pending);
  if (fd < 0) {
    pending_set = 0;
    fail(what, path, fmt::format("cannot create a temporary file in {}: {}", dir.string(), std::strerror(errno)));
  }
  temp = pending;
  auto give_up = [&](const char* step) {
    const std::string why = fmt::format("{}: {}", step, std::strerror(errno));
    pending_set = 0;
    unlink(temp.c_str());
    fail(what, path, why + " (the previous file, if any, is unchanged)");
  };
  // The replaced file's permissions, or those a plain create would give
  // (mkstemp makes 0600).
  const mode_t mask = umask(0);
  umask(mask);
  struct stat old_file {};
  const mode_t mode = stat(target.c_str(), &old_file) == 0 ? (old_file.st_mode & 07777) : (0666 & ~mask);
  if (fchmod(fd, mode) != 0) {
    close(fd);
    give_up("cannot set permissions");
  }
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      close(fd);
      give_up("write failed");
    }
    done += std::size_t(n);
  }
  if (fsync(fd) != 0) {
    close(fd);
    give_up("sync failed");
  }
  if (close(fd) != 0) give_up("close failed");
  if (std::rename(temp.c_str(), target.c_str()) != 0) give_up("rename failed");
  pending_set = 0;
}

void remove_pending_output() noexcept {
  if (pending_set) unlink(pending);
}

}  // namespace ompref
