// The libMeshb reader under libFuzzer (clang: -fsanitize=fuzzer), and the same
// entry point as a replay program (every build): it feeds each file or each file
// of each directory named on the command line to the reader. An IoError is the
// reader's answer to a bad file; anything else (a crash, another exception, an
// out-of-bounds read under a sanitizer) fails.
#include <cstddef>
#include <cstdint>

#include "common/io/meshb.hpp"
#include "common/io/io_error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    ompref::meshb::MeshData mesh = ompref::meshb::parse(data, size, "fuzz input", 1e8);
    // What the reader accepted is consistent: every index names a vertex.
    for (const auto& block : mesh.blocks)
      for (std::int32_t v : block.nodes)
        if (std::size_t(v) >= mesh.vertex_count()) __builtin_trap();
  } catch (const ompref::IoError&) {
  }
  return 0;
}

#ifdef OMPREF_FUZZ_REPLAY
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <vector>

int main(int argc, char** argv) {
  int files = 0;
  for (int i = 1; i < argc; ++i) {
    std::vector<std::filesystem::path> paths;
    if (std::filesystem::is_directory(argv[i])) {
      for (const auto& entry : std::filesystem::directory_iterator(argv[i]))
        if (entry.is_regular_file()) paths.push_back(entry.path());
    } else {
      paths.push_back(argv[i]);
    }
    for (const auto& path : paths) {
      std::ifstream in(path, std::ios::binary);
      std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
      ++files;
    }
  }
  std::cout << "replayed " << files << " inputs through the libMeshb reader\n";
  return files > 0 ? 0 : 1;
}
#endif
