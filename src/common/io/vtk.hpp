#pragma once
// VTK XML ImageData (.vti) with the data in one raw binary appended block,
// and the .pvd collection that lists the frames of a run: what ParaView
// opens. Host only. A small reader for the same format (tests, checks).
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/io/io_error.hpp"

namespace ompref::vtk {

struct Field {
  std::string name;
  int components = 1;        // 1: scalar, 3: vector
  std::vector<float> data;   // components * cells, x fastest, components interleaved
};

struct Image {
  int nx = 0, ny = 0, nz = 0;  // cells (written as points: one value per lattice site)
  std::vector<Field> fields;
};

// Writes `image` to `path` whole or not at all (common/io/output_file.hpp:
// temporary file, sync, rename); throws IoError when it cannot be written.
void write_vti(const std::string& path, const Image& image);
// Writes a .pvd collection: (time, file name relative to the .pvd) per frame,
// rewritten after every frame as write_vti writes, so that an interrupted run
// leaves the previous index whole.
void write_pvd(const std::string& path, const std::vector<std::pair<double, std::string>>& frames);
// Reads a .vti written by write_vti (raw appended Float32, UInt64 headers).
Image read_vti(const std::string& path);

}  // namespace ompref::vtk
