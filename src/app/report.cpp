// `ompref report FILE... --out DIR [--cuda FILE]`: runs scripts/report.py with
// python3, which writes DIR/index.md and its PNG charts (matplotlib), asking
// this binary for the lesson graph and compare's matching. The script
// is found where `cmake --install` puts it (<prefix>/share/ompref/report.py,
// beside <prefix>/bin/ompref), else in the source tree this binary was built from.
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "app/compare.hpp"
#include "app/result_input.hpp"
#include "common/io/output_file.hpp"
#include "common/usage_error.hpp"

extern char** environ;

namespace ompref {

namespace {

namespace fs = std::filesystem;

#ifdef OMPREF_SOURCE_DIR
const char* const source_dir = OMPREF_SOURCE_DIR;
#else
const char* const source_dir = "";
#endif

std::string find_report_script() {
  std::vector<fs::path> places;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) places.push_back(exe.parent_path() / ".." / "share" / "ompref" / "report.py");
  if (*source_dir) places.push_back(fs::path(source_dir) / "scripts" / "report.py");
  std::vector<std::string> looked;
  for (const fs::path& p : places) {
    if (fs::is_regular_file(p, ec)) return p.lexically_normal().string();
    looked.push_back(p.lexically_normal().string());
  }
  throw UsageError(fmt::format("report: report.py not found (looked for {})", fmt::join(looked, " and ")));
}

// The child being waited for, which a hang-up or termination is passed on to
// (an interrupt from the terminal reaches it directly): it cleans up and exits.
volatile std::sig_atomic_t child_pid = 0;
extern "C" void pass_on(int sig) {
  if (child_pid > 0) kill(pid_t(child_pid), sig);
}

// A --cuda file: a regular file, opened without blocking (a FIFO is refused, not waited on).
void check_readable_file(const std::string& path, const std::string& option) {
  const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  struct stat st {};
  const bool ok = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= (1 << 20);
  if (fd >= 0) close(fd);
  if (!ok)
    throw UsageError(fmt::format("{} {}: not a readable file of at most 1 MiB (accepted: a file with a JSON line "
                                 "holding triad_GBps and fp64_fma_TFLOPs, as a results folder's ceilings.txt)",
                                 option, path));
}

// Runs argv (argv[0] a path) and waits; its exit status, or -1 when it could not start.
// `forward`: the signals that end this process are passed on to the child meanwhile.
int spawn_and_wait(const std::vector<std::string>& argv, bool quiet, bool forward = false) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (quiet) {
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  }
  std::fflush(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return -1;
  struct sigaction old_actions[4] {};
  const int forwarded[4] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
  if (forward) {
    child_pid = pid;
    struct sigaction act {};
    sigemptyset(&act.sa_mask);
    for (int i = 0; i < 4; ++i) {
      // SIGINT from a terminal reaches the child too: not passed on twice.
      act.sa_handler = forwarded[i] == SIGINT ? [](int) {} : pass_on;
      sigaction(forwarded[i], &act, &old_actions[i]);
    }
  }
  int status = 0;
  int waited = 0;
  while ((waited = waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
  }
  if (forward) {
    for (int i = 0; i < 4; ++i) sigaction(forwarded[i], &old_actions[i], nullptr);
    child_pid = 0;
  }
  if (waited < 0) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// A document of scripts/scaling.py (runs over MPI rank counts): report.py
// gives it a section of its own, with the scaling chart.
// Read as a result file is (a FIFO, a device or a file too large is refused
// before any read): one line naming the file.
bool scaling_document(const std::string& path) {
  const nlohmann::json doc = read_result_document(path);
  return doc.is_object() && doc.contains("scaling") && doc.contains("efficiencies") && doc["efficiencies"].is_array();
}

bool executable(const std::string& path) { return !path.empty() && access(path.c_str(), X_OK) == 0; }

// A file's identity: its device and inode (symbolic links followed, or not).
struct Identity {
  dev_t dev = 0;
  ino_t ino = 0;
  bool exists = false;
  bool operator==(const Identity& o) const { return exists && o.exists && dev == o.dev && ino == o.ino; }
};
Identity identity(const fs::path& p, bool follow) {
  struct stat st {};
  if ((follow ? stat(p.c_str(), &st) : lstat(p.c_str(), &st)) != 0) return {};
  return {st.st_dev, st.st_ino, true};
}

// Whether report.py replaces this name in --out: the page and its charts.
bool written_name(const fs::path& name) { return name.filename() == "index.md" || name.extension() == ".png"; }

// No input is a file that the report replaces in --out, by identity: an
// input reached through a symbolic link (or a hard link) to one of them
// would be replaced, whatever it is called.
void check_inputs_not_replaced(const std::vector<std::string>& inputs, const std::string& out) {
  std::error_code ec;
  for (const std::string& input : inputs) {
    const fs::path p = input;
    if (written_name(p) && fs::equivalent(p.parent_path().empty() ? fs::path(".") : p.parent_path(), out, ec))
      throw UsageError(fmt::format("report: --out {} would overwrite {}, an input (accepted: another --out)", out,
                                   input));
  }
  if (!fs::is_directory(out, ec)) return;
  for (const fs::directory_entry& entry : fs::directory_iterator(out, ec)) {
    if (!written_name(entry.path())) continue;
    const Identity replaced = identity(entry.path(), false);  // the name itself is replaced, not what it links to
    for (const std::string& input : inputs)
      if (identity(input, true) == replaced)
        throw UsageError(fmt::format("report: --out {} would replace {}, which is the input {} (accepted: another "
                                     "--out, or a copy of the input)",
                                     out, entry.path().string(), input));
  }
}

// The interpreters to try: $OMPREF_PYTHON alone when set; else python3 from PATH,
// then Debian's /usr/bin/python3 (python3-matplotlib installs for that one; a
// python3 earlier in PATH, from pyenv or a virtual environment, may lack it).
std::vector<std::string> python_candidates(std::string& looked) {
  if (const char* chosen = std::getenv("OMPREF_PYTHON"); chosen && *chosen) {
    looked = fmt::format("OMPREF_PYTHON={}", chosen);
    return executable(chosen) ? std::vector<std::string>{chosen} : std::vector<std::string>{};
  }
  std::vector<std::string> found;
  std::istringstream path(std::getenv("PATH") ? std::getenv("PATH") : "");
  for (std::string dir; std::getline(path, dir, ':');)
    if (!dir.empty() && executable(dir + "/python3")) {
      found.push_back(dir + "/python3");
      break;
    }
  std::error_code ec;
  if (executable("/usr/bin/python3") && (found.empty() || !fs::equivalent(found[0], "/usr/bin/python3", ec)))
    found.push_back("/usr/bin/python3");
  looked = "PATH and /usr/bin/python3";
  return found;
}

// The first interpreter that imports matplotlib; one clear line when there is none.
std::string python_with_matplotlib() {
  std::string looked;
  const std::vector<std::string> candidates = python_candidates(looked);
  if (candidates.empty())
    throw UsageError(fmt::format("report: python3 not found (looked in {}; install the Debian packages python3 and "
                                 "python3-matplotlib)", looked));
  for (const std::string& python : candidates)
    if (spawn_and_wait({python, "-c", "import matplotlib"}, true) == 0) return python;
  throw UsageError(fmt::format("report: matplotlib is missing for {} (install the Debian package python3-matplotlib)",
                               fmt::join(candidates, " and ")));
}

}  // namespace

CLI::App* add_report_command(CLI::App& app, ReportArgs& args) {
  CLI::App* cmd = app.add_subcommand("report", "a Markdown page and PNG charts from result files (scripts/report.py, "
                                               "python3-matplotlib)");
  cmd->add_option("files", args.files, "files written by ompref run --json (with several, the first is the reference) "
                                       "or by scripts/scaling.py (a scaling chart)");
  cmd->add_option("--out", args.out, "the directory for index.md and the charts (created if missing)")->required();
  cmd->add_option("--cuda", args.cuda, "a file whose JSON line gives the CUDA triad and FP64 FMA ceilings measured in the same command "
                  "(triad_GBps, fp64_fma_TFLOPs: a results folder's ceilings.txt)");
  return cmd;
}

int run_report(const ReportArgs& args) {
  if (args.files.empty())
    throw UsageError("report: needs at least one result file (accepted: ompref report FILE... --out DIR [--cuda FILE])");
  // The same refusal as compare's, before python starts: one line naming the file.
  for (const std::string& path : args.files)
    if (!scaling_document(path)) load_result_file(path);
  std::error_code ec;
  if (args.out.empty() || (fs::exists(args.out, ec) && !fs::is_directory(args.out, ec)))
    throw UsageError(fmt::format("report: --out {}: not a directory (accepted: a directory, created if missing)", args.out));
  // The page's staging folder and its files can be made there; no input is a file the report writes.
  check_output_folder(args.out, "report: --out", {".report.tmp.XXXXXXXX", "index.md"});
  std::vector<std::string> inputs = args.files;
  if (!args.cuda.empty()) inputs.push_back(args.cuda);
  check_inputs_not_replaced(inputs, args.out);
  if (!args.cuda.empty()) check_readable_file(args.cuda, "report: --cuda");
  const std::string script = find_report_script();
  std::vector<std::string> argv = {python_with_matplotlib(), script};
  argv.insert(argv.end(), args.files.begin(), args.files.end());
  argv.insert(argv.end(), {"--out", args.out});
  // This binary: report.py asks it for the lesson graph (`list --json`) and
  // for compare's matching (`compare --json -`), so that the rules live once.
  std::error_code self_ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", self_ec);
  if (self_ec) throw UsageError("report: cannot find this program's own path (/proc/self/exe)");
  argv.insert(argv.end(), {"--ompref", self.string()});
  if (!args.cuda.empty()) argv.insert(argv.end(), {"--cuda", args.cuda});
  // The page before: an interpreter that exits 0 has written a new one (report.py renames it into place).
  const fs::path page = fs::path(args.out) / "index.md";
  const Identity before = identity(page, false);
  const int status = spawn_and_wait(argv, false, true);
  if (status < 0) throw UsageError(fmt::format("report: cannot start {}", argv[0]));
  const Identity after = identity(page, false);
  if (status == 0 && (!after.exists || after == before || !fs::is_regular_file(fs::symlink_status(page, ec))))
    throw UsageError(fmt::format("report: {} exited 0 without writing {} (is {} Python running {}?)", argv[0],
                                 page.string(), argv[0], script));
  return status;
}

}  // namespace ompref
