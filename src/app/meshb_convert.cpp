// ompref-meshb-convert IN OUT [VERSION [swap]]: reads a libMeshb mesh (.mesh or
// .meshb) and writes it again, ASCII when OUT ends in .mesh, otherwise binary of
// VERSION (1-4, default 2), in the other byte order when "swap" is given.
// OUT is written whole or not at all. Exit status 2 with one line on stderr
// for a bad file or bad arguments; 130 when interrupted (OUT unchanged).
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "common/io/meshb.hpp"
#include "common/io/output_file.hpp"

// Interrupted: the temporary file goes, the previous OUT (if any) stays.
extern "C" void on_interrupt(int) {
  ompref::remove_pending_output();
  _exit(130);
}

int main(int argc, char** argv) {
  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);
  CLI::App app{"Reads a libMeshb mesh (.mesh or .meshb) and writes it again: ASCII when OUT ends in .mesh, "
               "otherwise binary"};
  std::string in, out, order;
  int version = 2;
  app.add_option("IN", in, "the mesh to read")->required();
  app.add_option("OUT", out, "the mesh to write")->required();
  app.add_option("VERSION", version, "binary version (default 2)")->check(CLI::Range(1, 4));
  app.add_option("swap", order, "'swap': write the byte order opposite to this machine's")
      ->check(CLI::IsMember({"swap"}));
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    fmt::print(stderr, "ompref-meshb-convert: {}\n", e.what());
    return 2;
  }
  try {
    ompref::meshb::MeshData mesh = ompref::meshb::read_file(in);
    ompref::meshb::write_file(mesh, out, version, !order.empty());
    std::size_t elements = 0;
    for (const auto& b : mesh.blocks) elements += b.count();
    fmt::print("{}: {} vertices, {} elements -> {}\n", in, mesh.vertex_count(), elements, out);
    return 0;
  } catch (const ompref::IoError& e) {
    fmt::print(stderr, "ompref-meshb-convert: {}\n", e.what());
    return 2;
  }
}
