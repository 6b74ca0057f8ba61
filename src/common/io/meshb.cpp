// The libMeshb reader and writer (common/io/meshb.hpp): what both formats share,
// the choice between them, and the files. The binary format is in
// meshb_binary.cpp, the ASCII format in meshb_ascii.cpp.
#include "common/io/meshb.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>

#include <fmt/format.h>

#include "common/io/meshb_detail.hpp"
#include "common/io/output_file.hpp"
#include "common/io/io_error.hpp"

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
  throw IoError(fmt::format("mesh file {}: {}: {}", name, keyword, problem));
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

namespace {

// Opens `path` for reading once its type is known to be a regular file (a
// FIFO would block fopen until a writer comes; a directory or a device has
// no size) and its size fits `max_bytes` (0: no limit).
std::FILE* open_regular(const std::string& path, double max_bytes, std::uintmax_t& size) {
  using detail::fail;
  std::error_code ec;
  const std::filesystem::file_status status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status))
    fail(path, "open", fmt::format("cannot be read ({})", ec ? ec.message() : "no such file"));
  if (!std::filesystem::is_regular_file(status))
    fail(path, "open",
         fmt::format("is a {}, not a regular file", std::filesystem::is_directory(status)   ? "directory"
                                                     : std::filesystem::is_fifo(status)     ? "FIFO"
                                                     : std::filesystem::is_socket(status)   ? "socket"
                                                                                            : "device or special file"));
  size = std::filesystem::file_size(path, ec);
  if (ec) fail(path, "open", fmt::format("cannot be read ({})", ec.message()));
  if (max_bytes > 0 && double(size) > max_bytes)
    fail(path, "open", fmt::format("{} bytes do not fit in the {:.0f} bytes of memory available", size, max_bytes));
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) fail(path, "open", fmt::format("cannot be read ({})", std::strerror(errno)));
  return f;
}

}  // namespace

void check_file(const std::string& path, double max_bytes) {
  using detail::fail;
  std::uintmax_t size = 0;
  std::FILE* f = open_regular(path, max_bytes, size);
  unsigned char head[8] = {};
  const std::size_t got = std::fread(head, 1, sizeof head, f);
  std::fclose(f);
  if (got == 0) fail(path, "header", "the file is empty");
  bool binary = false;
  for (std::size_t i = 0; i < got && i < 4; ++i) binary = binary || head[i] == 0;
  if (!binary) return;  // text: the ASCII reader's first keyword check comes with the read
  if (got < 8) fail(path, "header", "a binary file shorter than its 8-byte header");
  std::int32_t code = 0, version = 0;
  std::memcpy(&code, head, 4);
  std::memcpy(&version, head + 4, 4);
  if (code == 16777216) version = std::int32_t(__builtin_bswap32(std::uint32_t(version)));
  else if (code != 1)
    fail(path, "header", fmt::format("not a libMeshb binary file (leading int32 is {}, expected 1)", code));
  if (version < 1 || version > 4) fail(path, "header", fmt::format("bad version {} (accepted: 1 to 4)", version));
}

MeshData read_file(const std::string& path, double max_bytes) {
  using detail::fail;
  std::uintmax_t size = 0;
  std::FILE* f = open_regular(path, max_bytes, size);
  std::string buffer;
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
  // Whole or not at all: an interrupted or failed write leaves the previous file.
  check_output_path(path, "mesh file");
  write_output(path, bytes, "mesh file");
}

}  // namespace ompref::meshb
