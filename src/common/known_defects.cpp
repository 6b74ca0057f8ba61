#include "common/known_defects.hpp"

#include <algorithm>
#include <stdexcept>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/results.hpp"
#include "ompref_known_defects.hpp"  // known_defects_json: src/common/known_defects.json

namespace ompref {

namespace {

// "22.1.8" as numbers, for ordering; anything else throws.
std::vector<long> version_numbers(const std::string& v) {
  std::vector<long> out;
  std::size_t pos = 0;
  while (pos <= v.size()) {
    const std::size_t dot = std::min(v.find('.', pos), v.size());
    const std::string part = v.substr(pos, dot - pos);
    if (part.empty() || part.size() > 9 || part.find_first_not_of("0123456789") != std::string::npos)
      throw std::runtime_error(fmt::format("known defects: '{}' is not a version (numbers and dots)", v));
    out.push_back(std::stol(part));
    pos = dot + 1;
  }
  return out;
}

bool version_in(const std::string& v, const std::string& first, const std::string& last) {
  const std::vector<long> n = version_numbers(v);
  return version_numbers(first) <= n && n <= version_numbers(last);
}

std::vector<KnownDefect> parse(std::string_view text) {
  std::vector<KnownDefect> out;
  try {
    const nlohmann::json doc = nlohmann::json::parse(text);
    for (const nlohmann::json& d : doc.at("defects")) {
      KnownDefect k;
      d.at("name").get_to(k.name);
      d.at("title").get_to(k.title);
      d.at("summary").get_to(k.summary);
      d.at("compiler").get_to(k.compiler);
      const auto versions = d.at("versions").get<std::vector<std::string>>();
      if (versions.size() != 2) throw std::runtime_error("versions: [first, last]");
      k.first = versions[0];
      k.last = versions[1];
      version_in(k.first, k.first, k.last);  // both parse
      d.at("offload").get_to(k.offload);
      for (const auto& a : d.at("affected").get<std::vector<std::vector<std::string>>>()) {
        if (a.size() != 2) throw std::runtime_error("affected: [workload, variant] pairs");
        k.affected.emplace_back(a[0], a[1]);
      }
      d.at("reproducer").get_to(k.reproducer);
      d.at("workaround").get_to(k.workaround);
      out.push_back(std::move(k));
    }
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("known defects (src/common/known_defects.json): {}", e.what()));
  }
  return out;
}

// The offload mode of this build, as cmake/OffloadFlags.cmake names it: the
// word after the compiler in OMPREF_OFFLOAD_DESC ("Clang 22.1.8, nvptx sm_90").
std::string build_offload_mode() {
  if (!OMPREF_OFFLOAD_BUILD) return "none";
  const std::string_view desc = OMPREF_OFFLOAD_DESC;
  const std::size_t comma = desc.rfind(", ");
  if (comma == std::string_view::npos) return "";
  const std::string_view rest = desc.substr(comma + 2);
  return std::string(rest.substr(0, rest.find(' ')));
}

}  // namespace

const std::vector<KnownDefect>& known_defects() {
  static const std::vector<KnownDefect> declared = parse(known_defects_json);
  return declared;
}

std::string known_defect_note(const std::vector<KnownDefect>& declared, const std::string& workload,
                              const std::string& variant, const std::string& compiler, const std::string& version,
                              const std::string& offload) {
  std::string note;
  for (const KnownDefect& d : declared) {
    const bool applies =
        d.compiler == compiler && version_in(version, d.first, d.last) &&
        std::find(d.offload.begin(), d.offload.end(), offload) != d.offload.end() &&
        std::find(d.affected.begin(), d.affected.end(), std::make_pair(workload, variant)) != d.affected.end();
    if (!applies) continue;
    if (!note.empty()) note += '\n';
    note += fmt::format("known compiler defect {} ({} {} to {}): {}; reproducer {}; workaround: {}", d.name,
                        d.compiler, d.first, d.last, d.title, d.reproducer, d.workaround);
  }
  return note;
}

std::string known_defect_note(const std::string& workload, const std::string& variant) {
  const CompilerId c = build_compiler();
  return known_defect_note(known_defects(), workload, variant, c.name, c.version, build_offload_mode());
}

}  // namespace ompref
