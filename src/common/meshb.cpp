#include "common/meshb.hpp"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

#include <fmt/format.h>

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

namespace {

std::string keyword_text(int keyword) {
  switch (keyword) {
    case kMeshVersionFormatted: return "MeshVersionFormatted";
    case kDimension: return "Dimension";
    case kVertices: return "Vertices";
    case kEnd: return "End";
    default: break;
  }
  int slot = element_slot(keyword);
  if (slot >= 0) return element_types[slot].name;
  return fmt::format("keyword {}", keyword);
}

[[noreturn]] void fail(const std::string& name, const std::string& keyword, const std::string& problem) {
  throw UsageError(fmt::format("mesh file {}: {}: {}", name, keyword, problem));
}

// Memory a mesh of this many vertices / elements takes once read.
constexpr double vertex_bytes = 3 * sizeof(double) + sizeof(std::int32_t);
double element_bytes(int nodes) { return double(nodes + 1) * sizeof(std::int32_t); }

struct Budget {
  double max_bytes;
  double used = 0;
  void take(double bytes, const std::string& name, const std::string& keyword, std::uint64_t count) {
    used += bytes;
    if (max_bytes > 0 && used > max_bytes)
      fail(name, keyword,
           fmt::format("{} entries need {:.2f} GiB, more than the {:.2f} GiB of memory available", count,
                       used / (1u << 30), max_bytes / (1u << 30)));
  }
};

// Element indices are checked against the vertex count once every block is read
// (a file may list its elements before its vertices).
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

// ---------------------------------------------------------------- binary

std::uint32_t bswap32(std::uint32_t v) {
  return (v >> 24) | ((v >> 8) & 0xff00u) | ((v << 8) & 0xff0000u) | (v << 24);
}
std::uint64_t bswap64(std::uint64_t v) { return (std::uint64_t(bswap32(std::uint32_t(v))) << 32) | bswap32(std::uint32_t(v >> 32)); }

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

MeshData parse_binary(const unsigned char* data, std::size_t size, const std::string& name, double max_bytes) {
  BinaryReader in(data, size, name);
  in.need(0, 8, "header");
  const std::uint32_t code = in.u32(0, "header");
  if (code == 16777216u)
    in.swap = true;
  else if (code != 1u)
    fail(name, "header", fmt::format("not a libMeshb binary file (leading int32 is {}, expected 1)", code));
  MeshData mesh;
  const std::int32_t version = in.i32(4, "header");
  if (version < 1 || version > 4) fail(name, "header", fmt::format("bad version {} (accepted: 1 to 4)", version));
  mesh.version = version;
  const std::size_t pos_bytes = version >= 3 ? 8 : 4;
  const std::size_t int_bytes = version >= 4 ? 8 : 4;
  const std::size_t real_bytes = version >= 2 ? 8 : 4;
  bool have_dimension = false;
  std::vector<bool> seen(64, false);
  Budget budget{max_bytes};

  auto read_int = [&](std::size_t off, const std::string& kw) -> std::int64_t {
    return int_bytes == 8 ? in.i64(off, kw) : std::int64_t(in.i32(off, kw));
  };
  auto read_ref = [&](std::size_t off, const std::string& kw, std::uint64_t line) -> std::int32_t {
    std::int64_t r = read_int(off, kw);
    if (r < std::numeric_limits<std::int32_t>::min() || r > std::numeric_limits<std::int32_t>::max())
      fail(name, kw, fmt::format("line {}: reference {} is out of the 32-bit range", line + 1, r));
    return std::int32_t(r);
  };

  std::size_t pos = 8;
  for (;;) {
    const std::size_t block = pos;
    if (pos == size) fail(name, "End", "the file ends without the End keyword (truncated?)");
    const std::int32_t keyword = in.i32(pos, "block header");
    const std::string kw = keyword_text(keyword);
    pos += 4;
    const std::int64_t next = pos_bytes == 8 ? in.i64(pos, kw) : std::int64_t(in.i32(pos, kw));
    pos += pos_bytes;
    if (keyword == kEnd) break;
    if (next < 0 || std::uint64_t(next) > size)
      fail(name, kw, fmt::format("next-block position {} is beyond the file ({} bytes)", next, size));
    if (std::size_t(next) < pos)
      fail(name, kw, fmt::format("next-block position {} does not move forward (block at {})", next, block));
    const std::size_t end = std::size_t(next);
    if (keyword >= 0 && keyword < 64 && (keyword == kDimension || keyword == kVertices || element_slot(keyword) >= 0)) {
      if (seen[keyword]) fail(name, kw, "the keyword appears twice");
      seen[keyword] = true;
    }

    if (keyword == kDimension) {
      if (end - pos < 4) fail(name, kw, "the block is too short to hold the dimension");
      std::int64_t dim = (version >= 4 && end - pos == 8) ? in.i64(pos, kw) : std::int64_t(in.i32(pos, kw));
      if (dim != 2 && dim != 3) fail(name, kw, fmt::format("bad dimension {} (accepted: 2, 3)", dim));
      mesh.dimension = int(dim);
      have_dimension = true;
    } else if (keyword == kVertices || element_slot(keyword) >= 0) {
      const std::int64_t count = int_bytes == 8 ? in.i64(pos, kw) : std::int64_t(in.i32(pos, kw));
      pos += int_bytes;
      if (count < 0) fail(name, kw, fmt::format("negative count {}", count));
      if (keyword == kVertices && !have_dimension) fail(name, kw, "vertices come before the Dimension keyword");
      const int nodes = keyword == kVertices ? 0 : element_types[element_slot(keyword)].nodes;
      const std::size_t line = keyword == kVertices ? std::size_t(mesh.dimension) * real_bytes + int_bytes
                                                    : std::size_t(nodes + 1) * int_bytes;
      const std::size_t room = end >= pos ? end - pos : 0;
      if (end < pos || std::uint64_t(count) > room / line)
        fail(name, kw,
             fmt::format("count {} needs {} bytes of lines, but only {} bytes lie before the next block", count,
                         double(count) * double(line), room));
      const std::size_t n = std::size_t(count);
      if (keyword == kVertices) {
        budget.take(vertex_bytes * double(n), name, kw, n);
        mesh.xyz.assign(3 * n, 0.0);
        mesh.vrefs.resize(n);
        for (std::size_t i = 0; i < n; ++i, pos += line) {
          for (int d = 0; d < mesh.dimension; ++d) {
            double x = real_bytes == 8 ? in.f64(pos + d * real_bytes, kw) : double(in.f32(pos + d * real_bytes, kw));
            if (!std::isfinite(x)) fail(name, kw, fmt::format("vertex {}: coordinate {} is not finite", i + 1, d + 1));
            mesh.xyz[3 * i + d] = x;
          }
          mesh.vrefs[i] = read_ref(pos + mesh.dimension * real_bytes, kw, i);
        }
      } else {
        budget.take(element_bytes(nodes) * double(n), name, kw, n);
        ElementBlock& b = mesh.block(keyword);
        b.nodes.resize(n * nodes);
        b.refs.resize(n);
        for (std::size_t i = 0; i < n; ++i, pos += line) {
          for (int k = 0; k < nodes; ++k) {
            std::int64_t v = read_int(pos + k * int_bytes, kw);
            if (v < 1 || v > std::numeric_limits<std::int32_t>::max())
              fail(name, kw, fmt::format("element {}: vertex index {} is out of range", i + 1, v));
            b.nodes[i * nodes + k] = std::int32_t(v - 1);
          }
          b.refs[i] = read_ref(pos + nodes * int_bytes, kw, i);
        }
      }
    }
    // Unknown keywords (and the rest of known blocks) are skipped by position.
    pos = end;
  }
  check_indices(mesh, name);
  return mesh;
}

// ---------------------------------------------------------------- ASCII

class Tokens {
 public:
  Tokens(const unsigned char* data, std::size_t size) : p_(reinterpret_cast<const char*>(data)), end_(p_ + size) {}
  // The next token without consuming it; empty at the end of the file.
  std::string peek() {
    skip();
    const char* q = p_;
    while (q < end_ && !is_space(*q) && *q != '#') ++q;
    return std::string(p_, q);
  }
  std::string next() {
    std::string t = peek();
    p_ += t.size();
    return t;
  }
  std::size_t remaining() {
    skip();
    return std::size_t(end_ - p_);
  }

 private:
  static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' || c == '\0'; }
  void skip() {
    for (;;) {
      while (p_ < end_ && is_space(*p_)) ++p_;
      if (p_ < end_ && *p_ == '#') {
        while (p_ < end_ && *p_ != '\n') ++p_;
        continue;
      }
      return;
    }
  }
  const char* p_;
  const char* end_;
};

bool same_word(const std::string& a, const char* b) {
  std::size_t n = std::strlen(b);
  if (a.size() != n) return false;
  for (std::size_t i = 0; i < n; ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

// A token quoted in a message: at most 40 characters, control bytes as '?'.
std::string quoted(const std::string& t) {
  std::string s = t.substr(0, 40);
  for (char& c : s)
    if (static_cast<unsigned char>(c) < 32 || static_cast<unsigned char>(c) > 126) c = '?';
  return s;
}

bool starts_keyword(const std::string& t) { return !t.empty() && std::isalpha(static_cast<unsigned char>(t[0])); }

MeshData parse_ascii(const unsigned char* data, std::size_t size, const std::string& name, double max_bytes) {
  Tokens in(data, size);
  MeshData mesh;
  bool have_dimension = false;
  std::vector<bool> seen(64, false);
  Budget budget{max_bytes};

  auto integer = [&](const std::string& kw, const char* what) -> std::int64_t {
    std::string t = in.next();
    if (t.empty()) fail(name, kw, fmt::format("truncated: the file ends where {} was expected", what));
    errno = 0;
    char* stop = nullptr;
    long long v = std::strtoll(t.c_str(), &stop, 10);
    if (errno != 0 || stop != t.c_str() + t.size())
      fail(name, kw, fmt::format("'{}' is not an integer ({} expected)", quoted(t), what));
    return v;
  };
  auto real = [&](const std::string& kw, std::size_t line) -> double {
    std::string t = in.next();
    if (t.empty()) fail(name, kw, "truncated: the file ends inside the vertex coordinates");
    char* stop = nullptr;
    double v = std::strtod(t.c_str(), &stop);
    if (stop != t.c_str() + t.size() || !std::isfinite(v))
      fail(name, kw, fmt::format("vertex {}: '{}' is not a finite real", line + 1, quoted(t)));
    return v;
  };
  auto count_of = [&](const std::string& kw, std::size_t values) -> std::size_t {
    std::int64_t count = integer(kw, "a count");
    if (count < 0) fail(name, kw, fmt::format("negative count {}", count));
    // Every value takes at least one character and a separator.
    std::size_t room = in.remaining() + 1;
    if (std::uint64_t(count) > room / (2 * values))
      fail(name, kw, fmt::format("count {} cannot fit in the {} bytes left in the file (truncated?)", count, room - 1));
    return std::size_t(count);
  };

  for (;;) {
    std::string t = in.next();
    if (t.empty()) fail(name, "End", "the file ends without the End keyword (truncated?)");
    if (!starts_keyword(t)) fail(name, "keyword", fmt::format("expected a keyword, found '{}'", quoted(t)));
    int keyword = -1;
    if (same_word(t, "MeshVersionFormatted")) keyword = kMeshVersionFormatted;
    else if (same_word(t, "Dimension")) keyword = kDimension;
    else if (same_word(t, "Vertices")) keyword = kVertices;
    else if (same_word(t, "End")) keyword = kEnd;
    else
      for (const ElementType& e : element_types)
        if (same_word(t, e.name)) keyword = e.keyword;
    if (keyword == kEnd) break;
    if (keyword < 0) {
      // An unknown keyword: skip its numbers up to the next keyword.
      while (!in.peek().empty() && !starts_keyword(in.peek())) in.next();
      continue;
    }
    const std::string kw = keyword_text(keyword);
    if (seen[keyword]) fail(name, kw, "the keyword appears twice");
    seen[keyword] = true;
    if (keyword == kMeshVersionFormatted) {
      std::int64_t v = integer(kw, "a version");
      if (v < 1 || v > 4) fail(name, kw, fmt::format("bad version {} (accepted: 1 to 4)", v));
      mesh.version = int(v);
    } else if (keyword == kDimension) {
      std::int64_t d = integer(kw, "a dimension");
      if (d != 2 && d != 3) fail(name, kw, fmt::format("bad dimension {} (accepted: 2, 3)", d));
      mesh.dimension = int(d);
      have_dimension = true;
    } else if (keyword == kVertices) {
      if (!have_dimension) fail(name, kw, "vertices come before the Dimension keyword");
      const std::size_t n = count_of(kw, std::size_t(mesh.dimension) + 1);
      budget.take(vertex_bytes * double(n), name, kw, n);
      mesh.xyz.assign(3 * n, 0.0);
      mesh.vrefs.resize(n);
      for (std::size_t i = 0; i < n; ++i) {
        for (int d = 0; d < mesh.dimension; ++d) mesh.xyz[3 * i + d] = real(kw, i);
        std::int64_t r = integer(kw, "a vertex reference");
        if (r < std::numeric_limits<std::int32_t>::min() || r > std::numeric_limits<std::int32_t>::max())
          fail(name, kw, fmt::format("vertex {}: reference {} is out of the 32-bit range", i + 1, r));
        mesh.vrefs[i] = std::int32_t(r);
      }
    } else {
      const int nodes = element_types[element_slot(keyword)].nodes;
      const std::size_t n = count_of(kw, std::size_t(nodes) + 1);
      budget.take(element_bytes(nodes) * double(n), name, kw, n);
      ElementBlock& b = mesh.block(keyword);
      b.nodes.resize(n * nodes);
      b.refs.resize(n);
      for (std::size_t i = 0; i < n; ++i) {
        for (int k = 0; k < nodes; ++k) {
          std::int64_t v = integer(kw, "a vertex index");
          if (v < 1 || v > std::numeric_limits<std::int32_t>::max())
            fail(name, kw, fmt::format("element {}: vertex index {} is out of range", i + 1, v));
          b.nodes[i * nodes + k] = std::int32_t(v - 1);
        }
        std::int64_t r = integer(kw, "an element reference");
        if (r < std::numeric_limits<std::int32_t>::min() || r > std::numeric_limits<std::int32_t>::max())
          fail(name, kw, fmt::format("element {}: reference {} is out of the 32-bit range", i + 1, r));
        b.refs[i] = std::int32_t(r);
      }
    }
  }
  check_indices(mesh, name);
  return mesh;
}

// ---------------------------------------------------------------- writers

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

MeshData parse(const unsigned char* data, std::size_t size, const std::string& name, double max_bytes) {
  // A binary file's leading int32 (1) holds zero bytes; a text file none.
  for (std::size_t i = 0; i < size && i < 4; ++i)
    if (data[i] == 0) return parse_binary(data, size, name, max_bytes);
  return parse_ascii(data, size, name, max_bytes);
}

MeshData read_file(const std::string& path, double max_bytes) {
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

std::string to_binary(const MeshData& mesh, int version, bool swap) {
  if (version < 1 || version > 4) throw UsageError(fmt::format("meshb writer: bad version {} (accepted: 1 to 4)", version));
  const bool wide_pos = version >= 3;
  const bool wide_int = version >= 4;
  BinaryWriter w(swap);
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
        throw UsageError(fmt::format("meshb writer: {} does not fit in version {}'s 32-bit integers", v, version));
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

std::string to_ascii(const MeshData& mesh, int version) {
  std::string out = fmt::format("MeshVersionFormatted {}\n\nDimension {}\n\n", version, mesh.dimension);
  if (mesh.vertex_count() > 0) {
    out += fmt::format("Vertices\n{}\n", mesh.vertex_count());
    for (std::size_t i = 0; i < mesh.vertex_count(); ++i) {
      for (int d = 0; d < mesh.dimension; ++d) out += fmt::format("{} ", mesh.xyz[3 * i + d]);  // shortest round trip
      out += fmt::format("{}\n", mesh.vrefs[i]);
    }
    out += "\n";
  }
  for (std::size_t s = 0; s < element_types.size(); ++s) {
    const ElementBlock& b = mesh.blocks[s];
    if (b.count() == 0) continue;
    const int nodes = element_types[s].nodes;
    out += fmt::format("{}\n{}\n", element_types[s].name, b.count());
    for (std::size_t i = 0; i < b.count(); ++i) {
      for (int k = 0; k < nodes; ++k) out += fmt::format("{} ", std::int64_t(b.nodes[i * nodes + k]) + 1);
      out += fmt::format("{}\n", b.refs[i]);
    }
    out += "\n";
  }
  out += "End\n";
  return out;
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
