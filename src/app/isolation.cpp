#include "app/isolation.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <deque>
#include <optional>

#include <fmt/format.h>

#include "app/result_files.hpp"
#include "common/enum_names.hpp"
#include "common/usage_error.hpp"

extern char** environ;

namespace ompref {

namespace {

const std::pair<Isolation, const char*> isolation_names[] = {
    {Isolation::off, "off"}, {Isolation::process, "process"}, {Isolation::resume, "resume"}};

}  // namespace

Isolation isolation_from_name(const std::string& name) { return enum_from_name(name, isolation_names); }

const char* isolation_name(Isolation mode) { return enum_name(mode, isolation_names); }

bool isolation_supported() { return !OMPREF_MPI_BUILD; }

Isolation default_check_isolation() { return isolation_supported() ? Isolation::resume : Isolation::off; }

std::string plan_digest(const std::string& plan_text) {
  return fmt::format("{:016x}", std::hash<std::string>{}(plan_text));
}

WorkerOrder parse_worker_order(const std::string& text) {
  // FD:FIRST:COUNT:DIGEST, written by run_isolated.
  WorkerOrder order;
  char digest[64] = {};
  unsigned long first = 0, count = 0;
  if (std::sscanf(text.c_str(), "%d:%lu:%lu:%63s", &order.fd, &first, &count, digest) != 4 || order.fd < 3 ||
      fcntl(order.fd, F_GETFD) == -1)
    throw UsageError(fmt::format("{} {}: not an order of an ompref process (an internal option)", worker_option, text));
  order.first = first;
  order.count = count;
  order.digest = digest;
  return order;
}

void end_with_parent() {
  const pid_t parent = getppid();
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(1);  // the parent ended before the line above
}

// ---- the worker's side

void ParentChannel::send(const nlohmann::json& event) {
  const std::string line = json_text(event, -1) + "\n";
  for (std::size_t done = 0; done < line.size();) {
    const ssize_t n = write(fd_, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) _exit(1);  // the parent has gone
    done += std::size_t(n);
  }
}

void ParentChannel::preparing(std::size_t run) { send({{"event", "preparing"}, {"run", run}}); }

void ParentChannel::started(std::size_t run, const std::string& ran_on, bool on_device, const nlohmann::json& params) {
  send({{"event", "started"}, {"run", run}, {"ran_on", ran_on}, {"on_device", on_device}, {"params", params}});
}

void ParentChannel::repetition(int done, int total) { send({{"event", "repetition"}, {"done", done}, {"total", total}}); }

void ParentChannel::validating() { send({{"event", "validating"}}); }

void ParentChannel::finished(std::size_t run, const RunResult& result) {
  nlohmann::json r = run_to_json(result);
  r["kernel"] = result.kernel;  // what the result file does not hold (run_from_json)
  r["on_device"] = result.on_device;
  send({{"event", "finished"}, {"run", run}, {"result", r}});
}

// ---- the parent's side

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// A descriptor above the standard ones and the worker's (3), closed on exec.
int high_descriptor(int fd) {
  const int high = fcntl(fd, F_DUPFD_CLOEXEC, 10);
  close(fd);
  if (high < 0) throw std::runtime_error(fmt::format("cannot start a process: {}", std::strerror(errno)));
  return high;
}

struct Worker {
  pid_t pid = -1;
  int events = -1, errors = -1;  // the read ends
};

Worker spawn_worker(const IsolationSettings& settings, std::size_t first, std::size_t count) {
  int events[2], errors[2];
  if (pipe2(events, O_CLOEXEC) != 0 || pipe2(errors, O_CLOEXEC) != 0)
    throw std::runtime_error(fmt::format("cannot start a process: {}", std::strerror(errno)));
  for (int* fd : {&events[0], &events[1], &errors[0], &errors[1]}) *fd = high_descriptor(*fd);
  constexpr int worker_fd = 3;
  std::vector<std::string> args;
  args.push_back("ompref");
  args.insert(args.end(), settings.arguments.begin(), settings.arguments.end());
  args.push_back(worker_option);
  args.push_back(fmt::format("{}:{}:{}:{}", worker_fd, first, count, settings.plan_digest));
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, errors[1], STDERR_FILENO);
  posix_spawn_file_actions_adddup2(&actions, events[1], worker_fd);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  // Its own process group (a timeout ends it and anything it started), no
  // signal blocked, every signal's disposition the default.
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  posix_spawnattr_setpgroup(&attributes, 0);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setsigdefault(&attributes, &all);
  Worker w;
  const int error = posix_spawn(&w.pid, "/proc/self/exe", &actions, &attributes, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  close(events[1]);
  close(errors[1]);
  if (error != 0) {
    close(events[0]);
    close(errors[0]);
    throw std::runtime_error(fmt::format("cannot start a process: {}", std::strerror(error)));
  }
  kill_on_interrupt(w.pid);  // its process group: the worker's pid
  w.events = events[0];
  w.errors = errors[0];
  return w;
}

std::string signal_text(int sig) {
  const char* abbreviation = sigabbrev_np(sig);
  const char* description = sigdescr_np(sig);
  return fmt::format("SIG{} ({})", abbreviation ? abbreviation : std::to_string(sig).c_str(),
                     description ? description : "unknown signal");
}

// The complete lines of `buffer` after `more` is added; a partial last line stays.
std::vector<std::string> take_lines(std::string& buffer, const char* more, std::size_t n) {
  buffer.append(more, n);
  std::vector<std::string> lines;
  std::size_t start = 0;
  for (std::size_t nl; (nl = buffer.find('\n', start)) != std::string::npos; start = nl + 1)
    lines.push_back(buffer.substr(start, nl - start));
  buffer.erase(0, start);
  return lines;
}

constexpr std::size_t kept_error_lines = 12;

// What the parent knows of one worker while it runs: the run under way,
// the last lines of its standard error, whether its time ran out.
struct WorkerState {
  const std::vector<PlannedRun>& runs;
  const IsolationSettings& settings;
  const IsolationEvents& events;
  std::size_t next;                    // the first run not yet reported
  std::optional<std::size_t> current;  // the run under way (started, not finished)
  std::string ran_on;
  bool on_device = false;
  nlohmann::json params = nlohmann::json::object();
  Clock::time_point phase_start = Clock::now(), run_start = phase_start;
  bool timed_out = false;
  std::deque<std::string> error_lines;  // since the current run (or the process) started
  // Lines before the worker's first event are held: a worker that refuses
  // its order (exit 2) leaves its one line to this process's refusal.
  bool heard = false;
  std::vector<std::string> held;

  WorkerState(const std::vector<PlannedRun>& runs_, const IsolationSettings& settings_,
              const IsolationEvents& events_, std::size_t first)
      : runs(runs_), settings(settings_), events(events_), next(first) {}

  void write_through(const std::string& line) const {
    if (events.before_output) events.before_output();
    const std::string text = line + "\n";
    for (std::size_t done = 0; done < text.size();) {
      const ssize_t n = write(STDERR_FILENO, text.data() + done, text.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      done += std::size_t(n);
    }
  }

  void pass_through(const std::string& line) {
    if (heard) write_through(line);
    else held.push_back(line);
    error_lines.push_back(line);
    if (error_lines.size() > kept_error_lines) error_lines.pop_front();
  }

  // One line of the event pipe.
  void handle(const std::string& line) {
    const nlohmann::json e = nlohmann::json::parse(line, nullptr, false);
    if (!e.is_object() || !e.contains("event")) return;  // not an event: the run ends unreported (a crash)
    if (!heard) {
      heard = true;
      for (const std::string& held_line : held) write_through(held_line);
      held.clear();
    }
    const std::string kind = e.value("event", std::string());
    const std::size_t run = e.value("run", std::size_t(0));
    if (kind == "preparing" && run < runs.size()) {
      phase_start = Clock::now();
      if (events.preparing) events.preparing(run);
    } else if (kind == "started" && run == next) {
      current = run;
      ran_on = e.value("ran_on", std::string());
      on_device = e.value("on_device", false);
      params = e.value("params", nlohmann::json::object());
      run_start = phase_start = Clock::now();
      error_lines.clear();
      if (events.started) events.started(run);
    } else if (kind == "repetition") {
      if (events.repetition) events.repetition(e.value("done", 0), e.value("total", 0));
    } else if (kind == "validating") {
      if (events.validating) events.validating();
    } else if (kind == "finished" && run == next && e.contains("result")) {
      finished(run, e.at("result"));
    }
  }

  void finished(std::size_t run, const nlohmann::json& result) {
    RunResult r;
    try {
      r = run_from_json(result);
    } catch (const nlohmann::json::exception&) {
      return;  // unreadable: the run ends unreported
    }
    current.reset();
    ++next;
    phase_start = Clock::now();
    error_lines.clear();
    events.finished(run, std::move(r));
  }

  // Both pipes read until the worker closes them; past the time limit of
  // its phase the worker's process group is killed.
  void watch(const Worker& worker) {
    int fds[2] = {worker.events, worker.errors};
    std::string event_buffer, error_buffer;
    while (fds[0] >= 0 || fds[1] >= 0) {
      int timeout_ms = -1;
      if (settings.time_limit_s > 0 && !timed_out) {
        const double left = settings.time_limit_s - seconds_since(phase_start);
        timeout_ms = left <= 0 ? 0 : int(std::min(left * 1000 + 1, 3.6e6));
      }
      struct pollfd p[2] = {{fds[0], POLLIN, 0}, {fds[1], POLLIN, 0}};
      const int ready = poll(p, 2, timeout_ms);
      if (ready < 0 && errno == EINTR) continue;
      // Checked whatever woke the poll: a hung run may still write to stderr.
      if (!timed_out && settings.time_limit_s > 0 && seconds_since(phase_start) >= settings.time_limit_s) {
        timed_out = true;
        kill(-worker.pid, SIGKILL);
        continue;
      }
      for (int k = 0; k < 2; ++k) {
        if (fds[k] < 0 || (p[k].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
        char buffer[1 << 16];
        const ssize_t n = read(fds[k], buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
          if (k == 1 && !error_buffer.empty()) pass_through(error_buffer);
          close(fds[k]);
          fds[k] = -1;
          continue;
        }
        for (const std::string& line : take_lines(k == 0 ? event_buffer : error_buffer, buffer, std::size_t(n)))
          k == 0 ? handle(line) : pass_through(line);
      }
    }
  }

  // The result of the run the worker was in (or about to begin) when it
  // ended `how`.
  RunResult failed_run(const std::string& how) const {
    const PlannedRun& p = runs[next];
    RunResult r;
    r.workload = p.workload->name();
    r.variant = p.variant->name;
    r.kind = p.variant->kind;
    r.kernel = p.variant->kernel;
    r.size = p.size;
    r.reps_requested = settings.reps_requested;
    if (p.variant->kind != Kind::host) r.device = p.device;
    if (current) {
      r.ran_on = ran_on;
      r.on_device = on_device;
      r.params = params;
    } else {
      r.ran_on = p.variant->kind == Kind::host ? "host" : fmt::format("device {}", p.device);
      r.params = nlohmann::json::object();
    }
    // The time it ran before it ended (never 0: result files hold times > 0).
    const double ran_s = std::max(seconds_since(current ? run_start : phase_start), 1e-9);
    r.time_s = {ran_s, ran_s, ran_s};
    r.wall_s = ran_s;
    r.check.valid = false;
    r.check.max_rel_error = INFINITY;
    r.failure_kind = timed_out ? FailureKind::timeout : FailureKind::crash;
    std::string last;
    for (auto line = error_lines.rbegin(); line != error_lines.rend() && last.empty(); ++line)
      if (line->find_first_not_of(" \t\r") != std::string::npos) last = *line;
    r.check.detail = fmt::format("{} {}{}", how,
                                 current ? "during the run"
                                         : "before the run began (starting the process or the device, or preparing "
                                           "the problem)",
                                 timed_out       ? ", killed"
                                 : last.empty()  ? ""
                                                 : fmt::format("; its last line: {}", last));
    r.failure_log.assign(error_lines.begin(), error_lines.end());
    return r;
  }
};

// One worker from spawn to its end: its events passed on, its standard error
// passed through; returns the index after the last run it accounted for
// (reported, or failed here).
std::size_t run_worker(const std::vector<PlannedRun>& runs, const IsolationSettings& settings,
                       const IsolationEvents& events, std::size_t first, std::size_t count) {
  const Worker worker = spawn_worker(settings, first, count);
  const std::size_t end = first + count;
  WorkerState w(runs, settings, events, first);
  w.watch(worker);
  int status = 0;
  while (waitpid(worker.pid, &status, 0) < 0 && errno == EINTR) {
  }
  kill_on_interrupt(0);
  // A worker that refused its order (exit 2 before any event) refuses for
  // every run: this command is refused, with the worker's line alone.
  if (!w.timed_out && !w.heard && first == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 2)
    throw UsageError(w.error_lines.empty()
                         ? "a process of this command refused its runs (exit status 2)"
                         : w.error_lines.back().substr(w.error_lines.back().rfind("ompref: ") == 0 ? 8 : 0));
  for (const std::string& held_line : w.held) w.write_through(held_line);
  if (!w.timed_out && WIFEXITED(status) && WEXITSTATUS(status) == 0 && w.next == end) return end;
  const std::string how = w.timed_out ? fmt::format("still running after {:g} s (--time-limit)", settings.time_limit_s)
                          : WIFSIGNALED(status) ? fmt::format("killed by {}", signal_text(WTERMSIG(status)))
                                                : fmt::format("exit status {}", WEXITSTATUS(status));
  if (w.next == end) {  // every run reported: the process failed after them (a runtime's end)
    if (events.before_output) events.before_output();
    fmt::print(stderr, "ompref: note: the process that ran {} {} failed after reporting it: {}{}\n",
               runs[end - 1].workload->name(), runs[end - 1].variant->name, how, w.timed_out ? ", killed" : "");
    return end;
  }
  // The run it was in (or about to begin) failed.
  if (!w.current && events.started) events.started(w.next);
  events.finished(w.next, w.failed_run(how));
  return w.next + 1;
}

}  // namespace

void run_isolated(const std::vector<PlannedRun>& runs, const IsolationSettings& settings,
                  const IsolationEvents& events) {
  for (std::size_t next = 0; next < runs.size();)
    next = run_worker(runs, settings, events, next, settings.mode == Isolation::process ? 1 : runs.size() - next);
}

}  // namespace ompref
