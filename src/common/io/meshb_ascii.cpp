// The libMeshb ASCII format (.mesh): keyword names, then numbers; '#' starts
// a comment; unknown keywords are skipped up to the next keyword. Counts are
// checked against the bytes left before anything is allocated.
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "common/io/meshb.hpp"
#include "common/io/meshb_detail.hpp"

namespace ompref::meshb {
namespace detail {
namespace {

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
  static bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' || c == '\0';
  }
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

// One file: keyword after keyword up to End.
class AsciiParser {
 public:
  AsciiParser(const unsigned char* data, std::size_t size, const std::string& name, double max_bytes)
      : in_(data, size), name_(name), budget_{max_bytes} {}

  MeshData parse() {
    for (;;) {
      std::string t = in_.next();
      if (t.empty()) fail(name_, "End", "the file ends without the End keyword (truncated?)");
      if (!starts_keyword(t)) fail(name_, "keyword", fmt::format("expected a keyword, found '{}'", quoted(t)));
      const int keyword = keyword_of(t);
      if (keyword == kEnd) break;
      if (keyword < 0) {
        // An unknown keyword: skip its numbers up to the next keyword.
        while (!in_.peek().empty() && !starts_keyword(in_.peek())) in_.next();
        continue;
      }
      const std::string kw = keyword_text(keyword);
      if (seen_[keyword]) fail(name_, kw, "the keyword appears twice");
      seen_[keyword] = true;
      block(keyword, kw);
    }
    check_indices(mesh_, name_);
    return std::move(mesh_);
  }

 private:
  // The code of a keyword name (any case), -1 for a name this reader does not know.
  static int keyword_of(const std::string& t) {
    for (const KeywordName& k : other_keywords)
      if (same_word(t, k.name)) return k.keyword;
    int keyword = -1;
    for (const ElementType& e : element_types)
      if (same_word(t, e.name)) keyword = e.keyword;
    return keyword;
  }

  void block(int keyword, const std::string& kw) {
    if (keyword == kMeshVersionFormatted) {
      std::int64_t v = integer(kw, "a version");
      if (v < 1 || v > 4) fail(name_, kw, fmt::format("bad version {} (accepted: 1 to 4)", v));
      mesh_.version = int(v);
    } else if (keyword == kDimension) {
      std::int64_t d = integer(kw, "a dimension");
      if (d != 2 && d != 3) fail(name_, kw, fmt::format("bad dimension {} (accepted: 2, 3)", d));
      mesh_.dimension = int(d);
      have_dimension_ = true;
    } else if (keyword == kVertices) {
      vertices(kw);
    } else {
      elements(keyword, kw);
    }
  }

  std::int64_t integer(const std::string& kw, const char* what) {
    std::string t = in_.next();
    if (t.empty()) fail(name_, kw, fmt::format("truncated: the file ends where {} was expected", what));
    errno = 0;
    char* stop = nullptr;
    long long v = std::strtoll(t.c_str(), &stop, 10);
    if (errno != 0 || stop != t.c_str() + t.size())
      fail(name_, kw, fmt::format("'{}' is not an integer ({} expected)", quoted(t), what));
    return v;
  }

  double real(const std::string& kw, std::size_t line) {
    std::string t = in_.next();
    if (t.empty()) fail(name_, kw, "truncated: the file ends inside the vertex coordinates");
    char* stop = nullptr;
    double v = std::strtod(t.c_str(), &stop);
    if (stop != t.c_str() + t.size() || !std::isfinite(v))
      fail(name_, kw, fmt::format("vertex {}: '{}' is not a finite real", line + 1, quoted(t)));
    return v;
  }

  // A count of lines of `values` numbers each.
  std::size_t count_of(const std::string& kw, std::size_t values) {
    std::int64_t count = integer(kw, "a count");
    if (count < 0) fail(name_, kw, fmt::format("negative count {}", count));
    // Every value takes at least one character and a separator.
    std::size_t room = in_.remaining() + 1;
    if (std::uint64_t(count) > room / (2 * values))
      fail(name_, kw,
           fmt::format("count {} cannot fit in the {} bytes left in the file (truncated?)", count, room - 1));
    return std::size_t(count);
  }

  void vertices(const std::string& kw) {
    if (!have_dimension_) fail(name_, kw, "vertices come before the Dimension keyword");
    const std::size_t n = count_of(kw, std::size_t(mesh_.dimension) + 1);
    budget_.take(vertex_bytes * double(n), name_, kw, n);
    mesh_.xyz.assign(3 * n, 0.0);
    mesh_.vrefs.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      for (int d = 0; d < mesh_.dimension; ++d) mesh_.xyz[3 * i + d] = real(kw, i);
      mesh_.vrefs[i] = checked_reference(integer(kw, "a vertex reference"), name_, kw, "vertex", i);
    }
  }

  void elements(int keyword, const std::string& kw) {
    const int nodes = element_types[element_slot(keyword)].nodes;
    const std::size_t n = count_of(kw, std::size_t(nodes) + 1);
    budget_.take(element_bytes(nodes) * double(n), name_, kw, n);
    ElementBlock& b = mesh_.block(keyword);
    b.nodes.resize(n * nodes);
    b.refs.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      for (int k = 0; k < nodes; ++k)
        b.nodes[i * nodes + k] = checked_index(integer(kw, "a vertex index"), name_, kw, i);
      b.refs[i] = checked_reference(integer(kw, "an element reference"), name_, kw, "element", i);
    }
  }

  Tokens in_;
  const std::string& name_;
  Budget budget_;
  MeshData mesh_;
  bool have_dimension_ = false;
  std::vector<bool> seen_ = std::vector<bool>(64, false);
};

}  // namespace

MeshData parse_ascii(const unsigned char* data, std::size_t size, const std::string& name, double max_bytes) {
  return AsciiParser(data, size, name, max_bytes).parse();
}

}  // namespace detail

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

}  // namespace ompref::meshb
