#include "common/provenance.hpp"

#include <unistd.h>

#include <cstring>
#include <ctime>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/device_wait.hpp"
#include "common/results.hpp"
#include "ompref_build_info.hpp"

extern char** environ;

namespace ompref {
namespace {

std::string& command_line() {
  static std::string line;
  return line;
}

std::string openmp_runtime() {
#if defined(__clang__)
  const char* runtime = "libomp (LLVM)";
#elif defined(__GNUC__)
  const char* runtime = "libgomp (GNU)";
#else
  const char* runtime = "unknown";
#endif
  return fmt::format("{}, OpenMP {}", runtime, _OPENMP);
}

// Settings that change what OpenMP and the offload runtimes do.
nlohmann::json environment() {
  nlohmann::json env = nlohmann::json::object();
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string entry = *e;
    const std::size_t eq = entry.find('=');
    if (eq == std::string::npos) continue;
    const std::string name = entry.substr(0, eq);
    for (const char* prefix : {"OMP_", "LIBOMPTARGET_", "GOMP_", "KMP_", "CUDA_VISIBLE_DEVICES", "OMPREF_"})
      if (name.rfind(prefix, 0) == 0) env[name] = entry.substr(eq + 1);
  }
  return env;
}

}  // namespace

void set_command_line(int argc, char** argv) {
  std::vector<std::string> words;
  for (int i = 0; i < argc; ++i) {
    std::string w = argv[i];
    if (w.empty() || w.find_first_of(" \t\"'\\$") != std::string::npos) w = "'" + w + "'";
    words.push_back(w);
  }
  command_line() = fmt::format("{}", fmt::join(words, " "));
}

std::string offload_description() {
  std::string text = fmt::format("{}, device code {}", OMPREF_OFFLOAD_DESC, OMPREF_DEVICE_CODE_MODE);
  if (*OMPREF_DEVICE_WORKAROUNDS) text += fmt::format(", workaround {}", OMPREF_DEVICE_WORKAROUNDS);
  return text;
}

nlohmann::json provenance() {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  char date[32] = {};
  std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return {{"date", date},
          {"hostname", host},
          {"environment", environment()},
          {"command_line", command_line()},
          {"git_commit", OMPREF_GIT_COMMIT},
          {"git_describe", OMPREF_GIT_DESCRIBE},
          {"build_type", OMPREF_BUILD_TYPE},
          {"compile_flags", OMPREF_COMPILE_FLAGS},
          {"link_flags", OMPREF_LINK_FLAGS},
          {"compiler", compiler_description()},
          {"openmp_runtime", openmp_runtime()},
          {"offload", offload_description()},
          {"device_code", OMPREF_DEVICE_CODE_MODE},
          {"device_workarounds", std::string(OMPREF_DEVICE_WORKAROUNDS)},
          {"device_wait", device_wait_description()}};
}

std::string version_line() {
  return fmt::format("ompref {} ({}, commit {}) | {} | {} | {} | {} build | flags: {} | link: {}", OMPREF_VERSION,
                     OMPREF_GIT_DESCRIBE, OMPREF_GIT_COMMIT, compiler_description(), openmp_runtime(),
                     offload_description(), OMPREF_BUILD_TYPE, OMPREF_COMPILE_FLAGS, OMPREF_LINK_FLAGS);
}

}  // namespace ompref
