#include "app/result_files.hpp"

#include <unistd.h>

#include <atomic>
#include <csignal>

#include <cstdio>
#include <ctime>
#include <filesystem>
#include <iterator>
#include <set>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/device.hpp"
#include "common/io/output_file.hpp"
#include "common/provenance.hpp"
#include "common/usage_error.hpp"

namespace fs = std::filesystem;

namespace ompref {

namespace {

// idle -> saving -> idle around each save of the folder; an interrupt moves
// idle -> exiting (and exits) or saving -> pending (the save exits when done).
enum State : int { idle, saving, pending, exiting };
std::atomic<int> interrupt_state{idle};
static_assert(std::atomic<int>::is_always_lock_free);

volatile std::sig_atomic_t keeping_folder = 0;

// The results folder's files, and the longest of their names.
constexpr const char* folder_files[] = {"results.json", "results.csv", "table.txt"};
constexpr const char* longest_file_name = "results.json";  // a results folder is planned (not --save none)

volatile std::sig_atomic_t signal_received = SIGINT;
// The process group of an isolated run's process under way (0: none), ended with this one.
volatile std::sig_atomic_t worker_group = 0;

// The signals that end a process by default (signal(7)), the real-time ones too:
// each ends a run as an interrupt does. SIGXFSZ only when another process
// sends it: the kernel's, for a write beyond the file-size limit, is
// passed over (on_file_size), so that the write fails and is reported as a
// write error, the files written before it intact.
const int ending_signals[] = {SIGINT,  SIGTERM, SIGHUP,    SIGPIPE, SIGALRM, SIGUSR1, SIGUSR2, SIGXCPU,
                              SIGXFSZ, SIGVTALRM, SIGPROF, SIGQUIT, SIGPOLL, SIGPWR,  SIGSTKFLT};

[[noreturn]] void exit_interrupted() noexcept {
  if (worker_group > 0) kill(-pid_t(worker_group), SIGKILL);
  remove_pending_output();
  write_stderr_now(keeping_folder ? "\nompref: interrupted; every finished run is in the results folder\n"
                                  : "\nompref: interrupted\n");
  // 130 for an interrupt or a termination (as before), 128 + the signal's number for the others.
  const int sig = signal_received;
  _exit(sig == SIGINT || sig == SIGTERM ? 130 : 128 + sig);
}

extern "C" void on_interrupt(int sig) {
  int expected = idle;
  if (interrupt_state.compare_exchange_strong(expected, exiting)) {
    signal_received = sig;
    exit_interrupted();
  }
  if (expected == saving && interrupt_state.compare_exchange_strong(expected, pending)) {
    signal_received = sig;
    return;
  }
  // Already pending or exiting: the first interrupt finishes the job.
}

extern "C" void on_file_size(int sig, siginfo_t* info, void*) {
  if (!file_size_limit(info)) on_interrupt(sig);
}

}  // namespace

void exit_130_on_interrupt() {
  struct sigaction act {};
  act.sa_handler = on_interrupt;
  sigemptyset(&act.sa_mask);
  // One handler at a time: a second signal waits until the first has set the state.
  for (int sig : ending_signals) sigaddset(&act.sa_mask, sig);
  act.sa_flags = SA_RESTART;
  for (int sig : ending_signals) sigaction(sig, &act, nullptr);
  for (int sig = SIGRTMIN; sig <= SIGRTMAX; ++sig) sigaction(sig, &act, nullptr);
  act.sa_handler = nullptr;
  act.sa_sigaction = on_file_size;
  act.sa_flags = SA_RESTART | SA_SIGINFO;
  sigaction(SIGXFSZ, &act, nullptr);
}

void ending_with_error() {
  int expected = idle;
  interrupt_state.compare_exchange_strong(expected, exiting);
}

void kill_on_interrupt(int process_group) { worker_group = process_group; }

ResultFiles::ResultFiles(OutputPaths paths) : paths_(std::move(paths)) {
  const std::pair<const std::string*, const char*> named[] = {{&paths_.json, "--json"},
                                                              {&paths_.csv, "--csv"},
                                                              {&paths_.junit, "--junit"},
                                                              {&paths_.benchmark, "--benchmark-json"}};
  for (const auto& [path, option] : named)
    if (!path->empty()) check_output_path(*path, option);
  for (std::size_t i = 0; i < std::size(named); ++i)
    for (std::size_t j = i + 1; j < std::size(named); ++j) {
      const std::string &a = *named[i].first, &b = *named[j].first;
      if (same_output(a, b) || (a == "-" && b == "-"))
        throw UsageError(fmt::format("{} and {} name the same file (accepted: two different paths)", named[i].second,
                                     named[j].second));
    }
  if (paths_.save_base.empty()) throw UsageError("--save: empty value (accepted: a directory, or none)");
  if (paths_.save_base != "none") {
    std::error_code ec;
    const fs::path base = paths_.save_base;
    if (fs::exists(base, ec) && !fs::is_directory(base, ec))
      throw UsageError(fmt::format("--save {}: not a directory (accepted: a directory, or none)", paths_.save_base));
    // The folder's name holds the host name: one that is not a file name is
    // known now, before any work, not when the first run is kept.
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    const std::string name = host;
    if (name.find('/') != std::string::npos)
      throw UsageError(fmt::format("--save {}: the host name '{}' cannot be part of the results folder's name "
                                   "<date>-<time>-<host> (accepted: a host name without '/'; or --save none, or "
                                   "OMPREF_RESULTS=none)",
                                   paths_.save_base, name));
    // The folder with its longest suffix (-999), and its longest temporary file.
    check_output_folder(paths_.save_base, "--save",
                        {folder_name() + "-999", temporary_name(std::string(longest_file_name))});
  }
}

std::string ResultFiles::folder_name() {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  char stamp[32] = {};
  std::time_t now = std::time(nullptr);
  std::strftime(stamp, sizeof stamp, "%Y-%m-%d-%H%M%S", std::localtime(&now));
  return fmt::format("{}-{}", stamp, host);
}

void ResultFiles::open_folder() {
  if (paths_.save_base == "none" || !planned_.empty()) return;
  planned_ = (fs::path(paths_.save_base) / folder_name()).string();
  keeping_folder = 1;
}

void ResultFiles::create_folder() {
  std::error_code ec;
  fs::create_directories(paths_.save_base, ec);
  for (int n = 0; n < 1000; ++n) {  // at most -999: what the constructor checked
    const std::string dir = n == 0 ? planned_ : fmt::format("{}-{}", planned_, n);
    if (fs::create_directory(dir, ec)) {
      folder_ = dir;
      return;
    }
    if (ec) break;
  }
  throw UsageError(fmt::format("--save {}: cannot create a results folder there", paths_.save_base));
}

void ResultFiles::save_progress(const std::vector<RunResult>& runs, const nlohmann::json& ceilings) {
  if (planned_.empty()) return;
  int expected = idle;
  if (!interrupt_state.compare_exchange_strong(expected, saving))
    for (;;) pause();  // an interrupt is exiting the process now
  const auto done = [] {
    int was = saving;
    if (!interrupt_state.compare_exchange_strong(was, idle)) exit_interrupted();  // interrupted meanwhile
  };
  try {
    if (folder_.empty()) create_folder();  // with the first run: an earlier interrupt leaves no empty folder
    const fs::path dir = folder_;
    // All three staged, then all three renamed: an error while one is written
    // (a full disk, a file size limit) leaves the three as they were.
    const std::string texts[] = {json_text(report_json(runs, ceilings), 2) + "\n", runs_to_csv(runs), table_text(runs)};
    std::vector<StagedOutput> staged;
    try {
      for (std::size_t i = 0; i < std::size(folder_files); ++i)
        staged.push_back(stage_output((dir / folder_files[i]).string(), texts[i], "results folder"));
    } catch (...) {
      for (const StagedOutput& s : staged) discard_output(s);
      throw;
    }
    for (const StagedOutput& s : staged) commit_output(s);
  } catch (...) {
    done();
    throw;
  }
  done();
}

void ResultFiles::write_named(const std::vector<RunResult>& runs, const nlohmann::json& ceilings,
                              const std::vector<LeftOut>& left_out, bool device_required) {
  if (!paths_.json.empty()) write_output(paths_.json, json_text(report_json(runs, ceilings), 2) + "\n", "--json");
  if (!paths_.csv.empty()) write_output(paths_.csv, runs_to_csv(runs), "--csv");
  if (!paths_.junit.empty()) write_output(paths_.junit, junit_xml(runs, left_out, device_required), "--junit");
  if (!paths_.benchmark.empty())
    write_output(paths_.benchmark, json_text(benchmark_json(runs), 2) + "\n", "--benchmark-json");
}

std::string table_text(const std::vector<RunResult>& runs) {
  char* buffer = nullptr;
  std::size_t size = 0;
  std::FILE* f = open_memstream(&buffer, &size);
  if (!f) return {};
  print_run_table_legend(runs, f);
  print_run_table(runs, f);
  std::fclose(f);
  std::string text(buffer, size);
  std::free(buffer);
  return text;
}

namespace {

std::string xml_escaped(const std::string& s) {
  std::string out;
  for (char c : valid_utf8(s)) switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') ? ' ' : c;
    }
  return out;
}

}  // namespace

namespace {

bool fell_back(const RunResult& r) { return r.kind != Kind::host && !r.on_device; }

// One <testcase>: its name <workload>.<variant>, where and at what size it
// ran as its properties; `inner` its failure, skipped or output element.
std::string junit_case(const RunResult& r, const std::string& inner) {
  return fmt::format("    <testcase classname=\"{0}\" name=\"{0}.{1}\" time=\"{2:.6f}\">\n"
                     "      <properties>\n"
                     "        <property name=\"size\" value=\"{3}\"/>\n"
                     "        <property name=\"ran_on\" value=\"{4}\"/>\n"
                     "        <property name=\"kind\" value=\"{5}\"/>\n"
                     "      </properties>\n{6}    </testcase>\n",
                     xml_escaped(r.workload), xml_escaped(r.variant), r.time_s.median, xml_escaped(r.size),
                     xml_escaped(r.ran_on), kind_name(r.kind), inner);
}

std::string junit_run(const RunResult& r, bool device_required) {
  if (!r.check.valid) {
    // The message is failure_message's (results.hpp); the body says what
    // was compared, or the process's last lines on standard error.
    std::string body = r.failure_kind == FailureKind::validation
                           ? fmt::format("{} (reference: {})", r.check.detail, r.check.reference)
                           : r.check.detail;
    if (!r.failure_log.empty())
      body += fmt::format("\nits last lines on standard error:\n{}", fmt::join(r.failure_log, "\n"));
    return junit_case(r, fmt::format("      <failure message=\"{}\" type=\"{}\">{}</failure>\n",
                                     xml_escaped(failure_message(r)), failure_kind_name(r.failure_kind),
                                     xml_escaped(body)));
  }
  const std::string out =
      fmt::format("      <system-out>{}: {:.6g} {} (median of {}), max relative error {:.3g} (tolerance {:.3g}, "
                  "{})</system-out>\n",
                  xml_escaped(r.variant), r.fom, xml_escaped(r.model.fom_name), r.reps, r.check.max_rel_error,
                  r.check.tolerance, xml_escaped(r.check.reference));
  if (device_required && fell_back(r))
    return junit_case(r, fmt::format("      <skipped message=\"ran on the host fallback, not on an offload device "
                                     "(a device was required: {})\"/>\n{}",
                                     offload_mandatory() ? "OMP_TARGET_OFFLOAD=MANDATORY" : "--device", out));
  return junit_case(r, out);
}

// One <testsuite>: a workload's runs (or "build": the files that did not
// compile) and its totals.
struct Suite {
  std::string name, cases;
  std::set<std::string> places, sizes;
  int tests = 0, failures = 0, skipped = 0;
  double time = 0;
};

// One suite per workload, in the order they ran; a file that did not
// compile without a registration goes to the suite "build".
std::vector<Suite> junit_suites(const std::vector<RunResult>& runs, const std::vector<LeftOut>& left_out,
                                bool device_required) {
  std::vector<Suite> suites;
  auto suite = [&](const std::string& name) -> Suite& {
    for (Suite& s : suites)
      if (s.name == name) return s;
    suites.emplace_back();
    suites.back().name = name;
    return suites.back();
  };
  for (const RunResult& r : runs) {
    Suite& s = suite(r.workload);
    s.sizes.insert(r.size);
    s.places.insert(r.ran_on);
    s.cases += junit_run(r, device_required);
    ++s.tests;
    s.failures += r.check.valid ? 0 : 1;
    s.skipped += r.check.valid && device_required && fell_back(r) ? 1 : 0;
    s.time += r.time_s.median * r.reps;
  }
  for (const LeftOut& v : left_out) {
    Suite& s = suite(v.workload.empty() ? "build" : v.workload);
    const std::string name = v.name.empty() ? v.file : fmt::format("{}.{}", v.workload, v.name);
    s.cases += fmt::format("    <testcase classname=\"{}\" name=\"{}\" time=\"0\">\n      <failure message=\"not "
                           "compiled: {}\" type=\"compile\">{}: {}</failure>\n    </testcase>\n",
                           xml_escaped(s.name), xml_escaped(name), xml_escaped(v.reason), xml_escaped(v.file),
                           xml_escaped(v.reason));
    ++s.tests;
    ++s.failures;
  }
  return suites;
}

// A suite's <testsuite> element: its properties, then its cases.
std::string junit_suite(const Suite& s, const std::vector<std::string>& devices) {
  std::string out = fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\" "
                                "time=\"{:.6f}\">\n    <properties>\n",
                                xml_escaped(s.name), s.tests, s.failures, s.skipped, s.time);
  const std::pair<const char*, std::string> properties[] = {
      {"compiler", compiler_description()},
      {"offload", offload_description()},
      {"device", devices.empty() ? std::string("none") : fmt::format("{}", fmt::join(devices, ", "))},
      {"ran_on", fmt::format("{}", fmt::join(s.places, ", "))},
      {"size", fmt::format("{}", fmt::join(s.sizes, ", "))},
      {"version", OMPREF_VERSION},
      {"git_commit", provenance().value("git_commit", std::string())}};
  for (const auto& [name, value] : properties)
    out += fmt::format("      <property name=\"{}\" value=\"{}\"/>\n", name, xml_escaped(value));
  return out + "    </properties>\n" + s.cases + "  </testsuite>\n";
}

}  // namespace

std::string junit_xml(const std::vector<RunResult>& runs, const std::vector<LeftOut>& left_out, bool device_required) {
  const std::vector<Suite> suites = junit_suites(runs, left_out, device_required);
  int tests = 0, failures = 0, skipped = 0;
  double total = 0;
  for (const Suite& s : suites) {
    tests += s.tests;
    failures += s.failures;
    skipped += s.skipped;
    total += s.time;
  }
  std::vector<std::string> devices;
  for (const DeviceInfo& d : offload_devices()) devices.push_back(fmt::format("{} (device {})", d.name, d.id));
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format("<testsuites name=\"ompref\" tests=\"{}\" failures=\"{}\" skipped=\"{}\" time=\"{:.6f}\">\n",
                     tests, failures, skipped, total);
  for (const Suite& s : suites) out += junit_suite(s, devices);
  out += "</testsuites>\n";
  return out;
}

nlohmann::json benchmark_json(const std::vector<RunResult>& runs) {
  // Several devices run the same variant: the device's number tells them apart.
  std::set<int> devices;
  for (const RunResult& r : runs)
    if (r.device >= 0) devices.insert(r.device);
  nlohmann::json list = nlohmann::json::array();
  for (const RunResult& r : runs) {
    if (!r.check.valid || !(r.time_s.median > 0)) continue;  // a failed run has no time to track
    std::string name = fmt::format("{}.{}", r.workload, r.variant);
    if (devices.size() > 1 && r.device >= 0) name += fmt::format(" (device {})", r.device);
    list.push_back({{"name", valid_utf8(name)},
                    {"unit", "s"},
                    {"value", r.time_s.median},
                    {"range", fmt::format("{:.3g} to {:.3g}", r.time_s.min, r.time_s.max)},
                    {"extra", valid_utf8(fmt::format("size {}, ran on {}, {} repetitions, {:.6g} {}", r.size, r.ran_on,
                                                     r.reps, r.fom, r.model.fom_name))}});
  }
  return list;
}

}  // namespace ompref
