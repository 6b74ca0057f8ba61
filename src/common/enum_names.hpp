#pragma once
// An enum's names written once, as a table of {value, name}: the name of a
// value and the value of a name both read it. The table's first entry is the
// fallback: the name of a value it lacks, the value of a name it lacks.
#include <cstddef>
#include <string>
#include <utility>

namespace ompref {

template <class E, std::size_t N>
const char* enum_name(E value, const std::pair<E, const char*> (&names)[N]) {
  for (const auto& [v, name] : names)
    if (v == value) return name;
  return names[0].second;
}

template <class E, std::size_t N>
E enum_from_name(const std::string& name, const std::pair<E, const char*> (&names)[N]) {
  for (const auto& [v, text] : names)
    if (name == text) return v;
  return names[0].first;
}

}  // namespace ompref
