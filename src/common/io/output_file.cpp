#include "common/io/output_file.hpp"

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <system_error>

#include <fmt/format.h>

#include "common/io/io_error.hpp"

namespace fs = std::filesystem;

namespace ompref {
namespace {

// The temporary files written and not yet renamed, for remove_pending_output().
constexpr int max_pending = 8;
char pending[max_pending][4096] = {};
volatile std::sig_atomic_t pending_set[max_pending] = {};

[[noreturn]] void fail(const std::string& what, const std::string& path, const std::string& why) {
  throw IoError(fmt::format("{} {}: {}", what, path, why));
}

// File systems of the kernel's own objects (statfs's f_type, linux/magic.h):
// they hold no files of ours, and writing into some of them acts on the system.
const char* pseudo_file_system(const fs::path& dir) {
  struct statfs st {};
  if (statfs(dir.c_str(), &st) != 0) return nullptr;
  switch (static_cast<unsigned long>(st.f_type)) {
    case 0x9fa0: return "proc";
    case 0x62656572: return "sysfs";
    case 0x27e0eb: return "cgroup";
    case 0x63677270: return "cgroup2";
    case 0x64626720: return "debugfs";
    case 0x74726163: return "tracefs";
    case 0x73636673: return "securityfs";
    case 0x1cd1: return "devpts";
    case 0xcafe4a11: return "bpf";
    case 0x62656570: return "configfs";
    case 0x6165676c: return "pstore";
    case 0xde5e81e4: return "efivarfs";
    case 0x65735543: return "fusectl";
    default: return nullptr;
  }
}

void refuse_pseudo(const fs::path& dir, const std::string& option, const std::string& path) {
  if (const char* kind = pseudo_file_system(dir))
    fail(option, path, fmt::format("{} is on the {} file system, which holds no files (accepted: a path on a disk)",
                                   dir.string(), kind));
}

// The longest file name the file system of `dir` takes.
std::size_t name_max(const fs::path& dir) {
  const long n = pathconf(dir.c_str(), _PC_NAME_MAX);
  return n > 0 ? std::size_t(n) : std::size_t(NAME_MAX);
}

}  // namespace

std::string temporary_name(const std::string& file_name) { return "." + file_name + ".tmp.XXXXXX"; }

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
  refuse_pseudo(dir, option, path);
  // The temporary file of the final write must be possible there, its name
  // included (12 characters longer than the file's).
  const std::string temp_name = temporary_name(target.filename().string());
  if (temp_name.size() > name_max(dir))
    fail(option, path, fmt::format("the name is too long for this file system (accepted: at most {} characters, "
                                   "the written file's temporary name taking 12 more)",
                                   name_max(dir) - 12));
  std::string probe = (dir / temp_name).string();
  if (probe.size() >= PATH_MAX) fail(option, path, fmt::format("the path is longer than {} characters", PATH_MAX - 1));
  const int fd = mkstemp(probe.data());
  if (fd < 0) fail(option, path, fmt::format("cannot create files in {} ({})", dir.string(), std::strerror(errno)));
  close(fd);
  unlink(probe.c_str());
}

void check_output_folder(const std::string& path, const std::string& option, const std::vector<std::string>& entries) {
  if (path.empty()) fail(option, "''", "empty path (accepted: a directory)");
  std::error_code ec;
  const fs::path folder = resolve_output_path(path);
  // The deepest ancestor that exists, and the names to create below it.
  fs::path existing = folder;
  std::vector<std::string> created;
  while (!existing.empty() && !fs::exists(fs::symlink_status(existing, ec))) {
    if (existing.filename().empty() || existing.filename() == "." || existing.filename() == "..") {
      existing = existing.parent_path();
      continue;
    }
    created.insert(created.begin(), existing.filename().string());
    existing = existing.parent_path();
  }
  if (existing.empty()) existing = ".";
  if (!fs::is_directory(existing, ec))
    fail(option, path, fmt::format("{} is not a directory (accepted: a directory, created if missing)",
                                   existing.string()));
  refuse_pseudo(existing, option, path);
  std::vector<std::string> names = created;
  names.insert(names.end(), entries.begin(), entries.end());
  std::size_t length = fs::absolute(existing, ec).string().size();
  for (const std::string& name : names) {
    if (name.size() > name_max(existing))
      fail(option, path, fmt::format("'{}' is longer than the {} characters a name may have here", name,
                                     name_max(existing)));
    length += 1 + name.size();
  }
  if (length >= PATH_MAX)
    fail(option, path, fmt::format("the paths written there would be longer than {} characters", PATH_MAX - 1));
  // A probe: a folder (when one is to be created) and a file in it, removed again.
  if (names.empty()) return;
  if (names.size() == 1) {
    std::string probe = (existing / ".ompref-probe.XXXXXX").string();
    const int fd = mkstemp(probe.data());
    if (fd < 0)
      fail(option, path, fmt::format("cannot create files in {} ({})", existing.string(), std::strerror(errno)));
    close(fd);
    unlink(probe.c_str());
    return;
  }
  std::string probe_dir = (existing / ".ompref-probe.XXXXXX").string();
  if (mkdtemp(probe_dir.data()) == nullptr)
    fail(option, path, fmt::format("cannot create a folder in {} ({})", existing.string(), std::strerror(errno)));
  std::string probe_file = probe_dir + "/probe.XXXXXX";
  const int fd = mkstemp(probe_file.data());
  const int error = errno;
  if (fd >= 0) {
    close(fd);
    unlink(probe_file.c_str());
  }
  rmdir(probe_dir.c_str());
  if (fd < 0)
    fail(option, path, fmt::format("cannot create files in a new folder in {} ({})", existing.string(),
                                   std::strerror(error)));
}

void check_outputs_spare_inputs(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs) {
  for (const NamedPath& out : outputs) {
    if (out.path.empty() || out.path == "-") continue;
    for (const NamedPath& in : inputs) {
      if (in.path.empty() || in.path == "-") continue;
      // The output itself, then each folder above it.
      for (fs::path p = fs::path(out.path).lexically_normal(); !p.empty(); p = p.parent_path()) {
        if (same_output(p.string(), in.path))
          throw IoError(p == fs::path(out.path).lexically_normal()
                               ? fmt::format("{} {}: this is the file {} {} reads (accepted: an output path that "
                                             "names no input)",
                                             out.option, out.path, in.option, in.path)
                               : fmt::format("{} {}: inside {} {}, a file that is read (accepted: an output path "
                                             "outside every input)",
                                             out.option, out.path, in.option, in.path));
        if (p == p.parent_path()) break;
      }
    }
  }
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

int create_pending_file(std::string& name_template, int& slot) {
  slot = -1;
  if (name_template.size() >= sizeof pending[0]) {
    errno = ENAMETOOLONG;
    return -1;
  }
  int free_slot = 0;
  while (free_slot < max_pending && pending_set[free_slot]) ++free_slot;
  if (free_slot == max_pending) {
    errno = EMFILE;
    return -1;
  }
  std::memcpy(pending[free_slot], name_template.c_str(), name_template.size() + 1);
  // Marked before it exists: an interrupt while mkstemp creates it removes it
  // (or finds nothing to remove), never leaves it behind.
  pending_set[free_slot] = 1;
  const int fd = mkstemp(pending[free_slot]);
  if (fd < 0) {
    const int error = errno;
    pending_set[free_slot] = 0;
    errno = error;
    return -1;
  }
  name_template = pending[free_slot];
  slot = free_slot;
  return fd;
}

void release_pending_file(int slot) noexcept {
  if (slot >= 0 && slot < max_pending) pending_set[slot] = 0;
}

StagedOutput stage_output(const std::string& path, const std::string& text, const std::string& what) {
  const fs::path target = resolve_output_path(path);
  const fs::path dir = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  std::string temp = (dir / temporary_name(target.filename().string())).string();
  if (temp.size() >= sizeof pending[0]) fail(what, path, "path too long");
  int slot = -1;
  const int fd = create_pending_file(temp, slot);
  if (fd < 0)
    fail(what, path, fmt::format("cannot create a temporary file in {}: {}", dir.string(), std::strerror(errno)));
  auto give_up = [&](const char* step) {
    const std::string why = fmt::format("{}: {}", step, std::strerror(errno));
    unlink(temp.c_str());
    pending_set[slot] = 0;
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
  return StagedOutput{slot, temp, target.string(), what, path};
}

void commit_output(const StagedOutput& staged) {
  if (std::rename(staged.temp.c_str(), staged.target.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    discard_output(staged);
    fail(staged.what, staged.path, "rename failed: " + why + " (the previous file, if any, is unchanged)");
  }
  pending_set[staged.slot] = 0;
}

void discard_output(const StagedOutput& staged) noexcept {
  unlink(staged.temp.c_str());
  pending_set[staged.slot] = 0;
}

void write_output(const std::string& path, const std::string& text, const std::string& what) {
  if (path == "-") {
    if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0)
      fail(what, path, "cannot write to standard output");
    return;
  }
  commit_output(stage_output(path, text, what));
}

void write_stderr_now(const char* text) noexcept {
  [[maybe_unused]] const ssize_t n = write(STDERR_FILENO, text, std::strlen(text));
}

void remove_pending_output() noexcept {
  for (int slot = 0; slot < max_pending; ++slot)
    if (pending_set[slot]) unlink(pending[slot]);
}

namespace {

extern "C" void remove_pending_and_end(int sig);

extern "C" void pending_file_size(int sig, siginfo_t* info, void*) {
  if (!file_size_limit(info)) remove_pending_and_end(sig);
}

extern "C" void remove_pending_and_end(int sig) {
  remove_pending_output();
  // The signal again, with its default action: the process ends as it would have.
  struct sigaction act {};
  act.sa_handler = SIG_DFL;
  sigemptyset(&act.sa_mask);
  sigaction(sig, &act, nullptr);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  sigprocmask(SIG_UNBLOCK, &set, nullptr);
  raise(sig);
}

}  // namespace

bool file_size_limit(const siginfo_t* info) {
  return info != nullptr && info->si_code == SI_USER && info->si_pid == getpid();
}

void remove_pending_output_on_signals() {
  struct sigaction on_file_size {};
  on_file_size.sa_sigaction = pending_file_size;
  on_file_size.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&on_file_size.sa_mask);
  sigaction(SIGXFSZ, &on_file_size, nullptr);
  struct sigaction act {};
  act.sa_handler = remove_pending_and_end;
  sigemptyset(&act.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGALRM, SIGUSR1, SIGUSR2, SIGXCPU, SIGVTALRM, SIGPROF, SIGQUIT}) {
    struct sigaction old {};
    // A signal the caller's parent ignores (nohup's SIGHUP) stays ignored.
    if (sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    sigaction(sig, &act, nullptr);
  }
}

namespace {

std::FILE* unguarded_stdout = nullptr;  // the stream std::cout writes through
volatile int stdout_error = 0;

extern "C" ssize_t guarded_write(void*, const char* data, size_t bytes) {
  for (size_t done = 0; stdout_error == 0 && done < bytes;) {
    const ssize_t n = write(STDOUT_FILENO, data + done, bytes - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      stdout_error = n < 0 ? errno : EIO;
      break;
    }
    done += size_t(n);
  }
  return ssize_t(bytes);  // taken: after an error, dropped
}

}  // namespace

void guard_standard_output() {
  if (unguarded_stdout != nullptr) return;
  cookie_io_functions_t io{};
  io.write = guarded_write;
  std::FILE* guarded = fopencookie(nullptr, "w", io);
  if (guarded == nullptr) return;
  // Buffered as standard output was: by lines on a terminal, in blocks elsewhere.
  std::setvbuf(guarded, nullptr, isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF, BUFSIZ);
  std::fflush(stdout);
  unguarded_stdout = stdout;
  stdout = guarded;  // glibc's stdout is a variable that a program may set
}

int standard_output_error() {
  std::fflush(stdout);
  // Help text goes through std::cout, which writes to the original stream.
  std::FILE* original = unguarded_stdout != nullptr ? unguarded_stdout : stdout;
  errno = 0;
  std::cout.flush();
  if (std::fflush(original) != 0 && stdout_error == 0) stdout_error = errno != 0 ? errno : EIO;
  if ((std::ferror(original) != 0 || !std::cout.good()) && stdout_error == 0) stdout_error = errno != 0 ? errno : EIO;
  return stdout_error;
}

}  // namespace ompref
