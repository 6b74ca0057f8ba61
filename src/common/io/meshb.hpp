#pragma once
// A reader and writer for the libMeshb mesh format (INRIA / GMlib), written
// from the format's description, not from libMeshb's code:
//  - ASCII `.mesh`: keyword names, then numbers; '#' starts a comment.
//  - binary `.meshb`: int32 1 (read as 16777216: the other byte order), int32
//    version 1-4, then blocks: int32 keyword, next-block position (int32 in
//    v1-2, int64 in v3-4), a count where the keyword has one (int32 in v1-3,
//    int64 in v4), then the lines. Reals are float32 in v1, float64 after;
//    integers are int32 in v1-3, int64 in v4. Indices are 1-based and the last
//    integer of a line is its reference. Unknown keywords are skipped by their
//    next-block position.
// Every problem with a file is an IoError naming the file, the keyword and
// the problem; counts are checked against the file size and the memory limit
// before anything is allocated.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/io/io_error.hpp"

namespace ompref::meshb {

// libMeshb keyword codes used here.
enum Keyword : int {
  kMeshVersionFormatted = 1,
  kDimension = 3,
  kVertices = 4,
  kEdges = 5,
  kTriangles = 6,
  kQuadrilaterals = 7,
  kTetrahedra = 8,
  kPrisms = 9,
  kHexahedra = 10,
  kPyramids = 49,
  kEnd = 54,
};

struct ElementType {
  int keyword;
  const char* name;
  int nodes;
};
// The element keywords read and written, in the order they are written.
constexpr std::array<ElementType, 7> element_types{{{kEdges, "Edges", 2},
                                                  {kTriangles, "Triangles", 3},
                                                  {kQuadrilaterals, "Quadrilaterals", 4},
                                                  {kTetrahedra, "Tetrahedra", 4},
                                                  {kPrisms, "Prisms", 6},
                                                  {kHexahedra, "Hexahedra", 8},
                                                  {kPyramids, "Pyramids", 5}}};
// Position of a keyword in element_types, or -1.
int element_slot(int keyword);

struct ElementBlock {
  std::vector<std::int32_t> nodes;  // 0-based vertex indices, `nodes per element` per element
  std::vector<std::int32_t> refs;   // one reference per element
  std::size_t count() const { return refs.size(); }
};

struct MeshData {
  int version = 2;    // as read (informative); the writer takes its own
  int dimension = 3;  // 2 or 3
  std::vector<double> xyz;           // 3 per vertex (z = 0 in dimension 2)
  std::vector<std::int32_t> vrefs;   // one reference per vertex
  std::array<ElementBlock, element_types.size()> blocks;

  std::size_t vertex_count() const { return vrefs.size(); }
  ElementBlock& block(int keyword) { return blocks[element_slot(keyword)]; }
  const ElementBlock& block(int keyword) const { return blocks[element_slot(keyword)]; }
  bool operator==(const MeshData& o) const;
};

// Reads `.mesh` (ASCII) or `.meshb` (binary); the content decides, the name is
// for messages. `max_bytes` (0: no limit) bounds the memory the mesh may take.
MeshData read_file(const std::string& path, double max_bytes = 0);
// What read_file checks before it reads: a regular file (FIFOs, directories
// and devices refused by type), readable, its size within `max_bytes`, and a
// binary file's header; reads 8 bytes, allocates nothing. Throws IoError.
void check_file(const std::string& path, double max_bytes = 0);
MeshData parse(const unsigned char* data, std::size_t size, const std::string& name, double max_bytes = 0);

// Writers. Binary: version 1-4, `swap` writes the byte order opposite to this
// machine's. ASCII: the same content as text (reals with 17 significant digits).
std::string to_binary(const MeshData& mesh, int version, bool swap);
std::string to_ascii(const MeshData& mesh, int version = 2);
// Writes ASCII when `path` ends in `.mesh`, binary otherwise.
void write_file(const MeshData& mesh, const std::string& path, int version = 2, bool swap = false);

}  // namespace ompref::meshb
