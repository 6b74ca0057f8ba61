// The libMeshb binary format (.meshb), versions 1-4 in either byte order:
// int32 1 (read as 16777216: the other byte order), int32 version, then
// blocks of int32 keyword, next-block position, count and lines. Every read
// is bounds-checked: a bad file is an IoError, never a read past its end.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include "common/io/meshb.hpp"
#include "common/io/meshb_detail.hpp"
#include "common/io/io_error.hpp"

namespace ompref::meshb {
namespace detail {
namespace {

std::uint32_t bswap32(std::uint32_t v) {
  return (v >> 24) | ((v >> 8) & 0xff00u) | ((v << 8) & 0xff0000u) | (v << 24);
}
std::uint64_t bswap64(std::uint64_t v) {
  return (std::uint64_t(bswap32(std::uint32_t(v))) << 32) | bswap32(std::uint32_t(v >> 32));
}

class BinaryReader {
 public:
  BinaryReader(const unsigned char* data, std::size_t size, const std::string& name)
      : data_(data), size_(size), name_(name) {}
  bool swap = false;
  void need(std::size_t off, std::size_t len, const std::string& keyword) const {
    if (off > size_ || len > size_ - off)
      fail(name_, keyword,
           fmt::format("truncated: {} bytes needed at offset {}, but the file has {} bytes", len, off, size_));
  }
  std::uint32_t u32(std::size_t off, const std::string& kw) const {
    need(off, 4, kw);
    std::uint32_t v;
    std::memcpy(&v, data_ + off, 4);
    return swap ? bswap32(v) : v;
  }
  std::uint64_t u64(std::size_t off, const std::string& kw) const {
    need(off, 8, kw);
    std::uint64_t v;
    std::memcpy(&v, data_ + off, 8);
    return swap ? bswap64(v) : v;
  }
  std::int32_t i32(std::size_t off, const std::string& kw) const { return std::int32_t(u32(off, kw)); }
  std::int64_t i64(std::size_t off, const std::string& kw) const { return std::int64_t(u64(off, kw)); }
  double f64(std::size_t off, const std::string& kw) const {
    std::uint64_t u = u64(off, kw);
    double d;
    std::memcpy(&d, &u, 8);
    return d;
  }
  float f32(std::size_t off, const std::string& kw) const {
    std::uint32_t u = u32(off, kw);
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  }
  std::size_t size() const { return size_; }

 private:
  const unsigned char* data_;
  std::size_t size_;
  const std::string& name_;
};

// One file: the header, then block after block up to End.
class BinaryParser {
 public:
  BinaryParser(const unsigned char* data, std::size_t size, const std::string& name, double max_bytes)
      : in_(data, size, name), name_(name), size_(size), budget_{max_bytes} {}

  MeshData parse() {
    header();
    std::size_t pos = 8;
    while (block(pos)) {
    }
    check_indices(mesh_, name_);
    return std::move(mesh_);
  }

 private:
  void header() {
    in_.need(0, 8, "header");
    const std::uint32_t code = in_.u32(0, "header");
    if (code == 16777216u)
      in_.swap = true;
    else if (code != 1u)
      fail(name_, "header", fmt::format("not a libMeshb binary file (leading int32 is {}, expected 1)", code));
    const std::int32_t version = in_.i32(4, "header");
    if (version < 1 || version > 4) fail(name_, "header", fmt::format("bad version {} (accepted: 1 to 4)", version));
    mesh_.version = version;
    pos_bytes_ = version >= 3 ? 8 : 4;
    int_bytes_ = version >= 4 ? 8 : 4;
    real_bytes_ = version >= 2 ? 8 : 4;
  }

  std::int64_t read_int(std::size_t off, const std::string& kw) const {
    return int_bytes_ == 8 ? in_.i64(off, kw) : std::int64_t(in_.i32(off, kw));
  }

  // The block at `pos`; moves `pos` to the next one. False at End.
  bool block(std::size_t& pos) {
    const std::size_t start = pos;
    if (pos == size_) fail(name_, "End", "the file ends without the End keyword (truncated?)");
    const std::int32_t keyword = in_.i32(pos, "block header");
    const std::string kw = keyword_text(keyword);
    pos += 4;
    const std::int64_t next = pos_bytes_ == 8 ? in_.i64(pos, kw) : std::int64_t(in_.i32(pos, kw));
    pos += pos_bytes_;
    if (keyword == kEnd) return false;
    if (next < 0 || std::uint64_t(next) > size_)
      fail(name_, kw, fmt::format("next-block position {} is beyond the file ({} bytes)", next, size_));
    if (std::size_t(next) < pos)
      fail(name_, kw, fmt::format("next-block position {} does not move forward (block at {})", next, start));
    const std::size_t end = std::size_t(next);
    if (keyword >= 0 && keyword < 64 && (keyword == kDimension || keyword == kVertices || element_slot(keyword) >= 0)) {
      if (seen_[keyword]) fail(name_, kw, "the keyword appears twice");
      seen_[keyword] = true;
    }
    if (keyword == kDimension) {
      dimension(pos, end, kw);
    } else if (keyword == kVertices || element_slot(keyword) >= 0) {
      lines(keyword, pos, end, kw);
    }
    // Unknown keywords (and the rest of known blocks) are skipped by position.
    pos = end;
    return true;
  }

  void dimension(std::size_t pos, std::size_t end, const std::string& kw) {
    if (end - pos < 4) fail(name_, kw, "the block is too short to hold the dimension");
    std::int64_t dim = (mesh_.version >= 4 && end - pos == 8) ? in_.i64(pos, kw) : std::int64_t(in_.i32(pos, kw));
    if (dim != 2 && dim != 3) fail(name_, kw, fmt::format("bad dimension {} (accepted: 2, 3)", dim));
    mesh_.dimension = int(dim);
    have_dimension_ = true;
  }

  // A block of lines (vertices or elements): its count, checked against the
  // room before the next block, then the lines.
  void lines(int keyword, std::size_t pos, std::size_t end, const std::string& kw) {
    const std::int64_t count = int_bytes_ == 8 ? in_.i64(pos, kw) : std::int64_t(in_.i32(pos, kw));
    pos += int_bytes_;
    if (count < 0) fail(name_, kw, fmt::format("negative count {}", count));
    if (keyword == kVertices && !have_dimension_) fail(name_, kw, "vertices come before the Dimension keyword");
    const int nodes = keyword == kVertices ? 0 : element_types[element_slot(keyword)].nodes;
    const std::size_t line = keyword == kVertices ? std::size_t(mesh_.dimension) * real_bytes_ + int_bytes_
                                                  : std::size_t(nodes + 1) * int_bytes_;
    const std::size_t room = end >= pos ? end - pos : 0;
    if (end < pos || std::uint64_t(count) > room / line)
      fail(name_, kw,
           fmt::format("count {} needs {} bytes of lines, but only {} bytes lie before the next block", count,
                       double(count) * double(line), room));
    if (keyword == kVertices)
      vertices(std::size_t(count), pos, line, kw);
    else
      elements(keyword, nodes, std::size_t(count), pos, line, kw);
  }

  void vertices(std::size_t n, std::size_t pos, std::size_t line, const std::string& kw) {
    budget_.take(vertex_bytes * double(n), name_, kw, n);
    mesh_.xyz.assign(3 * n, 0.0);
    mesh_.vrefs.resize(n);
    for (std::size_t i = 0; i < n; ++i, pos += line) {
      for (int d = 0; d < mesh_.dimension; ++d) {
        const std::size_t at = pos + d * real_bytes_;
        double x = real_bytes_ == 8 ? in_.f64(at, kw) : double(in_.f32(at, kw));
        if (!std::isfinite(x)) fail(name_, kw, fmt::format("vertex {}: coordinate {} is not finite", i + 1, d + 1));
        mesh_.xyz[3 * i + d] = x;
      }
      mesh_.vrefs[i] = checked_reference(read_int(pos + mesh_.dimension * real_bytes_, kw), name_, kw, "line", i);
    }
  }

  void elements(int keyword, int nodes, std::size_t n, std::size_t pos, std::size_t line, const std::string& kw) {
    budget_.take(element_bytes(nodes) * double(n), name_, kw, n);
    ElementBlock& b = mesh_.block(keyword);
    b.nodes.resize(n * nodes);
    b.refs.resize(n);
    for (std::size_t i = 0; i < n; ++i, pos += line) {
      for (int k = 0; k < nodes; ++k)
        b.nodes[i * nodes + k] = checked_index(read_int(pos + k * int_bytes_, kw), name_, kw, i);
      b.refs[i] = checked_reference(read_int(pos + nodes * int_bytes_, kw), name_, kw, "line", i);
    }
  }

  BinaryReader in_;
  const std::string& name_;
  std::size_t size_;
  Budget budget_;
  MeshData mesh_;
  std::size_t pos_bytes_ = 4, int_bytes_ = 4, real_bytes_ = 8;
  bool have_dimension_ = false;
  std::vector<bool> seen_ = std::vector<bool>(64, false);
};

class BinaryWriter {
 public:
  BinaryWriter(bool swap) : swap_(swap) {}
  void i32(std::int32_t v) {
    std::uint32_t u = std::uint32_t(v);
    if (swap_) u = bswap32(u);
    out.append(reinterpret_cast<const char*>(&u), 4);
  }
  void i64(std::int64_t v) {
    std::uint64_t u = std::uint64_t(v);
    if (swap_) u = bswap64(u);
    out.append(reinterpret_cast<const char*>(&u), 8);
  }
  void f32(float f) {
    std::uint32_t u;
    std::memcpy(&u, &f, 4);
    i32(std::int32_t(u));
  }
  void f64(double d) {
    std::uint64_t u;
    std::memcpy(&u, &d, 8);
    i64(std::int64_t(u));
  }
  void patch_position(std::size_t at, std::int64_t value, bool wide) {
    BinaryWriter w(swap_);
    if (wide) w.i64(value);
    else w.i32(std::int32_t(value));
    out.replace(at, w.out.size(), w.out);
  }
  std::string out;

 private:
  bool swap_;
};

}  // namespace

MeshData parse_binary(const unsigned char* data, std::size_t size, const std::string& name, double max_bytes) {
  return BinaryParser(data, size, name, max_bytes).parse();
}

}  // namespace detail

std::string to_binary(const MeshData& mesh, int version, bool swap) {
  if (version < 1 || version > 4)
    throw IoError(fmt::format("meshb writer: bad version {} (accepted: 1 to 4)", version));
  const bool wide_pos = version >= 3;
  const bool wide_int = version >= 4;
  detail::BinaryWriter w(swap);
  w.i32(1);
  w.i32(version);
  auto position = [&]() {
    std::size_t at = w.out.size();
    if (wide_pos) w.i64(0);
    else w.i32(0);
    return at;
  };
  auto integer = [&](std::int64_t v) {
    if (wide_int) w.i64(v);
    else {
      if (v > std::numeric_limits<std::int32_t>::max() || v < std::numeric_limits<std::int32_t>::min())
        throw IoError(fmt::format("meshb writer: {} does not fit in version {}'s 32-bit integers", v, version));
      w.i32(std::int32_t(v));
    }
  };
  w.i32(kDimension);
  std::size_t at = position();
  w.i32(mesh.dimension);
  w.patch_position(at, std::int64_t(w.out.size()), wide_pos);
  if (mesh.vertex_count() > 0) {
    w.i32(kVertices);
    at = position();
    integer(std::int64_t(mesh.vertex_count()));
    for (std::size_t i = 0; i < mesh.vertex_count(); ++i) {
      for (int d = 0; d < mesh.dimension; ++d) {
        if (version == 1) w.f32(float(mesh.xyz[3 * i + d]));
        else w.f64(mesh.xyz[3 * i + d]);
      }
      integer(mesh.vrefs[i]);
    }
    w.patch_position(at, std::int64_t(w.out.size()), wide_pos);
  }
  for (std::size_t s = 0; s < element_types.size(); ++s) {
    const ElementBlock& b = mesh.blocks[s];
    if (b.count() == 0) continue;
    const int nodes = element_types[s].nodes;
    w.i32(element_types[s].keyword);
    at = position();
    integer(std::int64_t(b.count()));
    for (std::size_t i = 0; i < b.count(); ++i) {
      for (int k = 0; k < nodes; ++k) integer(std::int64_t(b.nodes[i * nodes + k]) + 1);
      integer(b.refs[i]);
    }
    w.patch_position(at, std::int64_t(w.out.size()), wide_pos);
  }
  w.i32(kEnd);
  position();  // 0: no next block
  return std::move(w.out);
}

}  // namespace ompref::meshb
