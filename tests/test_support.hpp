#pragma once
// Helpers shared by the test suites: run a variant in-process, or run the
// `ompref` command and capture its exit status and output.
#include <algorithm>
#include <array>
#include <cstdio>
#include <memory>
#include <cstdlib>
#include <string>
#include <vector>
#include <sys/wait.h>
#include <sys/resource.h>
#include <fcntl.h>
#include <unistd.h>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "common/device.hpp"
#include "common/registry.hpp"
#include "common/runner.hpp"

namespace ompref::testing {

// The `ompref` processes the tests start keep no results folder and print no
// progress line, unless a test asks for them (its own environment first).
inline const bool quiet_children = [] {
  setenv("OMPREF_RESULTS", "none", 0);
  setenv("OMPREF_QUIET", "1", 0);
  return true;
}();

inline MemoryLimits test_limits() {
  MemoryLimits limits;
  limits.host_bytes = host_info().available_bytes;
  return limits;
}

// The variants of `workload` that can run here: native (CUDA) variants only
// where CUDA device 0 is usable (the runner leaves them out otherwise).
inline std::vector<const Variant*> runnable_variants(const std::string& workload) {
  std::vector<const Variant*> out;
  const bool native = native_unusable({0}).empty();
  for (const Variant* v : registry().variants(workload))
    if (v->kind != Kind::native || native) out.push_back(v);
  return out;
}

// Sets up `workload` at `size` and runs one variant through the runner.
inline RunResult run_one(Instance& instance, const std::string& workload, const std::string& variant,
                         const std::string& size, int reps = 2, int warmup = 1) {
  const Variant* v = registry().variant(workload, variant);
  EXPECT_NE(v, nullptr) << workload << " " << variant;
  if (!v) return {};
  return run_variant(*v, instance, size, RunSettings{reps, warmup, 0, {}}, 0, {0});
}

struct CommandResult {
  int status = -1;
  std::string output;  // stdout and stderr together (without runtime_notes)
  std::string stderr_text;  // what the program wrote itself on stderr
  std::string runtime_notes;  // the OpenMP runtime's own warnings and hints
};

// LLVM's OpenMP runtime writes warnings and hints of its own on stderr, each
// line starting "OMP: Warning" or "OMP: Hint" (on a host of two processors, a
// target region's thread_limit(512) on the virtual device gives "OMP: Warning
// #96: Cannot form a team with 512 threads, using 2 instead"). They depend on
// the machine, not on ompref: set apart from what the program wrote itself.
inline void set_runtime_notes_apart(CommandResult& r) {
  std::string own;
  for (std::size_t at = 0; at < r.stderr_text.size();) {
    const std::size_t end = std::min(r.stderr_text.find('\n', at), r.stderr_text.size() - 1) + 1;
    const std::string line = r.stderr_text.substr(at, end - at);  // with its newline, if it has one
    const bool note = line.rfind("OMP: Warning", 0) == 0 || line.rfind("OMP: Hint", 0) == 0;
    (note ? r.runtime_notes : own) += line;
    at = end;
  }
  r.stderr_text = own;
}

// Runs `ompref <args>` through the shell; stderr is captured separately.
inline CommandResult run_ompref(const std::string& args, const std::string& env = "") {
  char err_path[] = "/tmp/ompref_test_stderr_XXXXXX";
  int fd = mkstemp(err_path);
  if (fd >= 0) close(fd);
  std::string cmd = env + " " + OMPREF_BIN + " " + args + " 2>" + err_path;
  CommandResult r;
  std::FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return r;
  std::array<char, 4096> buf;
  std::size_t got;
  while ((got = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) r.output.append(buf.data(), got);
  int raw = pclose(pipe);
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  if (std::FILE* f = std::fopen(err_path, "r")) {
    while ((got = std::fread(buf.data(), 1, buf.size(), f)) > 0) r.stderr_text.append(buf.data(), got);
    std::fclose(f);
  }
  std::remove(err_path);
  set_runtime_notes_apart(r);
  r.output += r.stderr_text;
  return r;
}

// `ompref report` refused for want of matplotlib (python3-matplotlib): the
// caller skips, `if (lacks_matplotlib(r)) GTEST_SKIP() << r.stderr_text;`.
inline bool lacks_matplotlib(const CommandResult& r) {
  return r.status == 2 && r.stderr_text.find("python3-matplotlib") != std::string::npos;
}

// What a shell command line writes on standard output ("" when it cannot
// start); the script redirects its own standard error where it wants it.
inline std::string shell_text(const std::string& script) {
  std::string text;
  std::FILE* pipe = popen(script.c_str(), "r");
  if (!pipe) return text;
  std::array<char, 4096> buf;
  std::size_t got;
  while ((got = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) text.append(buf.data(), got);
  pclose(pipe);
  return text;
}

// A fresh directory under the temporary directory, removed with everything in it.
// A file's whole content ("" when it cannot be read).
inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

struct ScratchDir {
  std::filesystem::path path;
  ScratchDir() {
    std::string t = (std::filesystem::temp_directory_path() / "ompref_test_XXXXXX").string();
    path = mkdtemp(t.data());
  }
  ~ScratchDir() { std::filesystem::remove_all(path); }
};

// Runs `ompref` with `args` (no shell) and measures it: wall seconds and the
// peak resident memory of that one process (wait4's rusage).
struct MeasuredRun {
  int status = -1;
  double seconds = 0;
  double max_rss_bytes = 0;
};
inline MeasuredRun run_measured(const std::vector<std::string>& args) {
  std::vector<char*> argv{const_cast<char*>(OMPREF_BIN)};
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  MeasuredRun m;
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    const int null = open("/dev/null", O_WRONLY);
    dup2(null, STDOUT_FILENO);
    dup2(null, STDERR_FILENO);
    execv(OMPREF_BIN, argv.data());
    _exit(127);
  }
  int raw = 0;
  struct rusage usage {};
  if (pid < 0 || wait4(pid, &raw, 0, &usage) != pid) return m;
  m.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  m.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  m.max_rss_bytes = double(usage.ru_maxrss) * 1024;
  return m;
}

inline int count_lines(const std::string& text) {
  int n = 0;
  for (char c : text) n += c == '\n';
  return n;
}

// A command line ompref must refuse, with what its one line must mention: the
// case of a parameterised test (PrintTo names it in gtest's output).
struct BadArgs {
  const char* args;
  const char* must_mention;  // what was wrong or what is accepted
};
inline void PrintTo(const BadArgs& c, std::ostream* os) { *os << "ompref " << c.args; }

// Command lines ompref must refuse, each exit 2 with one line that mentions
// its must_mention: a test file instantiates the suite with its cases,
// INSTANTIATE_TEST_SUITE_P(Name, RefusedCommand, ::testing::Values(BadArgs{...}, ...));
// the test itself is test_cli.cpp's.
class RefusedCommand : public ::testing::TestWithParam<BadArgs> {};

// `<env> ompref <args>` refused: exit 2 and one line on stderr that mentions
// `why`. Returns the run, for what a caller checks beyond that.
inline CommandResult expect_one_line_refusal(const std::string& args, const std::string& why,
                                             const std::string& env = "") {
  const std::string shown = env.empty() ? args : env + " ompref " + args;
  CommandResult r = run_ompref(args, env);
  EXPECT_EQ(r.status, 2) << shown << "\n" << r.output;
  EXPECT_EQ(count_lines(r.stderr_text), 1) << shown << "\n" << r.stderr_text;
  EXPECT_NE(r.stderr_text.find(why), std::string::npos) << shown << "\n" << r.stderr_text;
  return r;
}

}  // namespace ompref::testing
