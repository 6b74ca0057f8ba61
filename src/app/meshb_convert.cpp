// ompref-meshb-convert IN OUT [VERSION [swap]]: reads a libMeshb mesh (.mesh or
// .meshb) and writes it again, ASCII when OUT ends in .mesh, otherwise binary of
// VERSION (1-4, default 2), in the other byte order when "swap" is given.
// Exit status 2 with one line on stderr for a bad file or bad arguments.
#include <cstdio>
#include <string>

#include <fmt/format.h>

#include "common/meshb.hpp"
#include "common/usage_error.hpp"

int main(int argc, char** argv) {
  try {
    if (argc < 3 || argc > 5)
      throw ompref::UsageError("usage: ompref-meshb-convert IN OUT [VERSION (1-4)] [swap]");
    const std::string version_text = argc > 3 ? argv[3] : "2";
    if (version_text.size() != 1 || version_text[0] < '1' || version_text[0] > '4')
      throw ompref::UsageError(fmt::format("VERSION: '{}' (accepted: 1, 2, 3, 4)", version_text));
    const bool swap = argc > 4 && std::string(argv[4]) == "swap";
    if (argc > 4 && !swap) throw ompref::UsageError(fmt::format("'{}': the fourth argument can only be 'swap'", argv[4]));
    ompref::meshb::MeshData mesh = ompref::meshb::read_file(argv[1]);
    ompref::meshb::write_file(mesh, argv[2], version_text[0] - '0', swap);
    std::size_t elements = 0;
    for (const auto& b : mesh.blocks) elements += b.count();
    fmt::print("{}: {} vertices, {} elements -> {}\n", argv[1], mesh.vertex_count(), elements, argv[2]);
    return 0;
  } catch (const ompref::UsageError& e) {
    fmt::print(stderr, "ompref-meshb-convert: {}\n", e.what());
    return 2;
  }
}
