#pragma once
// What the libMeshb reader's parts share (meshb.cpp, meshb_binary.cpp,
// meshb_ascii.cpp): the one-line errors, the memory budget, the index check,
// and the two parsers.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/io/meshb.hpp"

namespace ompref::meshb::detail {

// The keywords other than the element types (meshb.hpp's element_types), by name.
struct KeywordName {
  int keyword;
  const char* name;
};
constexpr std::array<KeywordName, 4> other_keywords{{{kMeshVersionFormatted, "MeshVersionFormatted"},
                                                    {kDimension, "Dimension"},
                                                    {kVertices, "Vertices"},
                                                    {kEnd, "End"}}};

// "Vertices", "Tetrahedra", ... or "keyword N" for a code this reader does not know.
std::string keyword_text(int keyword);

// Throws the IoError "mesh file NAME: KEYWORD: PROBLEM".
[[noreturn]] void fail(const std::string& name, const std::string& keyword, const std::string& problem);

// Memory a mesh of this many vertices / elements takes once read.
constexpr double vertex_bytes = 3 * sizeof(double) + sizeof(std::int32_t);
inline double element_bytes(int nodes) { return double(nodes + 1) * sizeof(std::int32_t); }

// The memory a file's blocks take, checked as each count is read, before the
// block is allocated.
struct Budget {
  double max_bytes;
  double used = 0;
  void take(double bytes, const std::string& name, const std::string& keyword, std::uint64_t count);
};

// Element indices are checked against the vertex count once every block is read
// (a file may list its elements before its vertices).
void check_indices(const MeshData& mesh, const std::string& name);

// A reference (the last integer of a line) within int32, or an IoError
// naming `what` (line, vertex, element) and its 0-based `line`.
std::int32_t checked_reference(std::int64_t value, const std::string& name, const std::string& keyword,
                               const char* what, std::uint64_t line);
// A 1-based vertex index of element `element` (0-based) as a 0-based int32, or an IoError.
std::int32_t checked_index(std::int64_t value, const std::string& name, const std::string& keyword,
                           std::uint64_t element);

MeshData parse_binary(const unsigned char* data, std::size_t size, const std::string& name, double max_bytes);
MeshData parse_ascii(const unsigned char* data, std::size_t size, const std::string& name, double max_bytes);

}  // namespace ompref::meshb::detail
