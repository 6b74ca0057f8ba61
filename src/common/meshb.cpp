// The libMeshb reader and writer (common/meshb.hpp): what both formats share,
// the choice between them, and the files. The binary format is in
// meshb_binary.cpp, the ASCII format in meshb_ascii.cpp.
#include "common/meshb.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "common/meshb_detail.hpp"
#include "common/usage_error.hpp"

namespace ompref::meshb {

int element_slot(int keyword) {
  for (std::size_t i = 0; i < element_types.size(); ++i)
    if (element_types[i].keyword == keyword) return int(i);
  return -1;
}

bool MeshData::operator==(const MeshData& o) const {
  if (dimension != o.dimension || xyz != o.xyz || vrefs != o.vrefs) return false;
  for (std::size_t i = 0; i < blocks.size(); ++i)
    if (blocks[i].nodes != o.blocks[i].nodes || blocks[i].refs != o.blocks[i].refs) return false;
  return true;
}

namespace detail {

std::string keyword_text(int keyword) {
  for (const KeywordName& k : other_keywords)
    if (k.keyword == keyword) return k.name;
  int slot = element_slot(keyword);
  if (slot >= 0) return element_types[slot].name;
  return fmt::format("keyword {}", keyword);
}

void fail(const std::string& name, const std::string& keyword, const std::string& problem) {
  throw UsageError(fmt::format("mesh file {}: {}: {}", name, keyword, problem));
}

void Budget::take(double bytes, const std::string& name, const std::string& keyword, std::uint64_t count) {
  used += bytes;
  if (max_bytes > 0 && used > max_bytes)
    fail(name, keyword,
         fmt::format("{} entries need {:.2f} GiB, more than the {:.2f} GiB of memory available", count,
                     used / (1u << 30), max_bytes / (1u << 30)));
}

void check_indices(const MeshData& mesh, const std::string& name) {
  const std::size_t nv = mesh.vertex_count();
  for (std::size_t s = 0; s < element_types.size(); ++s) {
    const auto& nodes = mesh.blocks[s].nodes;
    for (std::size_t i = 0; i < nodes.size(); ++i)
      if (std::size_t(nodes[i]) >= nv)
        fail(name, element_types[s].name,
             fmt::format("element {} refers to vertex {}, but the mesh has {} vertices", i / element_types[s].nodes + 1,
                         std::int64_t(nodes[i]) + 1, nv));
  }
}

std::int32_t checked_reference(std::int64_t value, const std::string& name, const std::string& keyword,
                               const char* what, std::uint64_t line) {
  if (value < std::numeric_limits<std::int32_t>::min() || value > std::numeric_limits<std::int32_t>::max())
    fail(name, keyword, fmt::format("{} {}: reference {} is out of the 32-bit range", what, line + 1, value));
  return std::int32_t(value);
}

std::int32_t checked_index(std::int64_t value, const std::string& name, const std::string& keyword,
                           std::uint64_t element) {
  if (value < 1 || value > std::numeric_limits<std::int32_t>::max())
    fail(name, keyword, fmt::format("element {}: vertex index {} is out of range", element + 1, value));
  return std::int32_t(value - 1);
}

}  // namespace detail

MeshData parse(const unsigned char* data, std::size_t size, const std::string& name, double max_bytes) {
  // A binary file's leading int32 (1) holds zero bytes; a text file none.
  for (std::size_t i = 0; i < size && i < 4; ++i)
    if (data[i] == 0) return detail::parse_binary(data, size, name, max_bytes);
  return detail::parse_ascii(data, size, name, max_bytes);
}

MeshData read_file(const std::string& path, double max_bytes) {
  using detail::fail;
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) fail(path, "open", fmt::format("cannot be read ({})", std::strerror(errno)));
  std::string buffer;
  bool ok = std::fseek(f, 0, SEEK_END) == 0;
  long size = ok ? std::ftell(f) : -1;
  ok = ok && size >= 0 && std::fseek(f, 0, SEEK_SET) == 0;
  if (!ok) {
    std::fclose(f);
    fail(path, "open", "is not a regular file");
  }
  if (max_bytes > 0 && double(size) > max_bytes) {
    std::fclose(f);
    fail(path, "open", fmt::format("{} bytes do not fit in the memory available", size));
  }
  buffer.resize(std::size_t(size));
  std::size_t got = size > 0 ? std::fread(buffer.data(), 1, buffer.size(), f) : 0;
  std::fclose(f);
  if (got != buffer.size()) fail(path, "open", "read error");
  return parse(reinterpret_cast<const unsigned char*>(buffer.data()), buffer.size(), path,
               max_bytes > 0 ? max_bytes - double(size) : 0);
}

void write_file(const MeshData& mesh, const std::string& path, int version, bool swap) {
  const bool ascii = path.size() >= 5 && path.compare(path.size() - 5, 5, ".mesh") == 0;
  const std::string bytes = ascii ? to_ascii(mesh, version) : to_binary(mesh, version, swap);
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) throw UsageError(fmt::format("mesh file {}: cannot be written ({})", path, std::strerror(errno)));
  bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  ok = std::fclose(f) == 0 && ok;
  if (!ok) throw UsageError(fmt::format("mesh file {}: write error", path));
}

}  // namespace ompref::meshb
