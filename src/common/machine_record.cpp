#include "common/machine_record.hpp"

#include <sys/utsname.h>

#include <filesystem>
#include <fstream>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/results.hpp"

namespace ompref {
namespace {

// The record's note (empty: none), set from the command line.
std::string machine_note;

// /etc/os-release's PRETTY_NAME, unquoted.
nlohmann::json os_name() {
  std::ifstream in("/etc/os-release");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("PRETTY_NAME=", 0) == 0) {
      std::string value = line.substr(12);
      if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front())
        value = value.substr(1, value.size() - 2);
      return valid_utf8(value);
    }
  return nullptr;
}

nlohmann::json kernel() {
  utsname u{};
  if (uname(&u) != 0) return nullptr;
  return valid_utf8(fmt::format("{} {} {}", u.sysname, u.release, u.machine));
}

nlohmann::json numa_nodes() {
  std::error_code ec;
  int nodes = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/sys/devices/system/node", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("node", 0) == 0 && name.size() > 4 && name.find_first_not_of("0123456789", 4) == std::string::npos)
      ++nodes;
  }
  return nodes > 0 ? nlohmann::json(nodes) : nlohmann::json(nullptr);
}

// The governors of the CPUs, "performance" or "powersave, performance" where they differ.
nlohmann::json cpu_governor() {
  std::set<std::string> governors;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/sys/devices/system/cpu", ec)) {
    std::ifstream in(entry.path() / "cpufreq" / "scaling_governor");
    std::string g;
    if (in >> g) governors.insert(g);
  }
  if (governors.empty()) return nullptr;
  return fmt::format("{}", fmt::join(governors, ", "));
}

}  // namespace

void set_machine_note(const std::string& text) { machine_note = text; }

nlohmann::json machine_record() {
  return {{"os", os_name()},
          {"kernel", kernel()},
          {"numa_nodes", numa_nodes()},
          {"cpu_governor", cpu_governor()},
          {"note", machine_note.empty() ? nlohmann::json(nullptr) : nlohmann::json(valid_utf8(machine_note))}};
}

std::string machine_record_text(const nlohmann::json& record) {
  std::string out;
  for (const char* key : {"os", "kernel", "numa_nodes", "cpu_governor", "note"}) {
    if (!record.contains(key)) continue;
    const nlohmann::json& v = record.at(key);
    const std::string text = v.is_null() ? std::string("not known") : v.is_string() ? v.get<std::string>() : v.dump();
    if (std::string(key) == "note" && v.is_null()) continue;
    out += fmt::format("  {}: {}\n", key, text);
  }
  return out;
}

}  // namespace ompref
