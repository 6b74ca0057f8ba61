#include "app/result_input.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/usage_error.hpp"

namespace ompref {
namespace {

using json = nlohmann::json;

// The file's bytes: a regular file only (opened without blocking, so that a
// FIFO named here is refused rather than waited on), at most the limit.
std::string read_bounded(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0)
    throw UsageError(errno == ENOENT ? fmt::format("{}: no such file", path)
                                     : fmt::format("{}: cannot read this file ({})", path, std::strerror(errno)));
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    throw UsageError(fmt::format("{}: not a file (a directory, FIFO or device; accepted: a result file of ompref run "
                                 "--json)",
                                 path));
  }
  if (std::size_t(st.st_size) > max_result_file_bytes) {
    close(fd);
    throw UsageError(fmt::format("{}: {} bytes, more than a result file holds (accepted: at most {} MiB)", path,
                                 st.st_size, max_result_file_bytes >> 20));
  }
  // Read to the end, but never past the limit (a file of /proc says size 0).
  std::string text;
  std::vector<char> buffer(std::size_t(1) << 16);  // on the heap: a 64 KiB stack (ulimit -s 64) holds no 64 KiB array
  for (;;) {
    const ssize_t n = read(fd, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      close(fd);
      throw UsageError(fmt::format("{}: cannot read this file ({})", path, std::strerror(error)));
    }
    if (n == 0) break;
    text.append(buffer.data(), std::size_t(n));
    if (text.size() > max_result_file_bytes) {
      close(fd);
      throw UsageError(fmt::format("{}: more than {} MiB, more than a result file holds", path,
                                   max_result_file_bytes >> 20));
    }
  }
  close(fd);
  return text;
}

bool finite_number(const json& v) { return v.is_number() && std::isfinite(v.get<double>()); }

// A name printed in tables and pages: a string without control characters.
bool printable_name(const json& v) {
  if (!v.is_string()) return true;  // a missing or mistyped field is compare's refusal (missing_field)
  for (unsigned char c : v.get_ref<const std::string&>())
    if (c < 0x20 || c == 0x7f) return false;
  return true;
}

}  // namespace

json read_result_document(const std::string& path) {
  const std::string text = read_bounded(path);
  // The parser keeps its own stack (it does not recurse), but what is built
  // from its document does: a container deeper than the limit is discarded
  // while parsing, and the file refused.
  bool too_deep = false;
  const json::parser_callback_t limit_depth = [&too_deep](int depth, json::parse_event_t event, json&) {
    if ((event == json::parse_event_t::object_start || event == json::parse_event_t::array_start) &&
        depth >= max_result_depth) {
      too_deep = true;
      return false;
    }
    return !too_deep;
  };
  json doc = json::parse(text, limit_depth, false);
  if (too_deep)
    throw UsageError(fmt::format("{}: nested more than {} levels deep (a result file nests a few)", path,
                                 max_result_depth));
  if (!doc.is_discarded()) check_result_values(doc, path);
  return doc;
}

void check_result_values(const json& doc, const std::string& path) {
  if (!doc.is_object() || !doc.contains("runs") || !doc.at("runs").is_array()) return;  // compare says what it lacks
  std::size_t index = 0;
  for (const json& run : doc.at("runs")) {
    ++index;
    if (!run.is_object()) continue;
    const auto refuse = [&](const std::string& why) {
      throw UsageError(fmt::format("{}: run {}: {} (not a result file of ompref run --json)", path, index, why));
    };
    for (const char* key : {"workload", "variant", "size", "ran_on"})
      if (run.contains(key) && !printable_name(run.at(key)))
        refuse(fmt::format("\"{}\" holds a control character", key));
    if (run.contains("time_s") && run.at("time_s").is_object()) {
      const json& time = run.at("time_s");
      for (const char* key : {"median", "min", "max"})
        if (time.contains(key) && time.at(key).is_number() &&
            !(finite_number(time.at(key)) && time.at(key).get<double>() > 0))
          refuse(fmt::format("time_s.{} = {} is not a time (accepted: a finite number of seconds > 0)", key,
                             time.at(key).dump()));
      const auto seconds = [&](const char* key) {
        return time.contains(key) && time.at(key).is_number() ? time.at(key).get<double>() : NAN;
      };
      const double lo = seconds("min"), median = seconds("median"), hi = seconds("max");
      if ((!std::isnan(lo) && !std::isnan(median) && lo > median) ||
          (!std::isnan(hi) && !std::isnan(median) && hi < median))
        refuse(fmt::format("time_s min {} <= median {} <= max {} does not hold", lo, median, hi));
    }
    if (run.contains("fom") && run.at("fom").is_object() && run.at("fom").contains("value") &&
        run.at("fom").at("value").is_number()) {
      const json& value = run.at("fom").at("value");
      if (!(finite_number(value) && value.get<double>() >= 0))
        refuse(fmt::format("fom.value = {} is not a rate (accepted: a finite number >= 0)", value.dump()));
    }
  }
}

}  // namespace ompref
