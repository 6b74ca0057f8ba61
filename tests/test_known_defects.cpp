// The known compiler defects (src/common/known_defects.json): the compiled-in
// declaration parses, names registered variants and a reproducer that exists,
// and known_defect_note names a defect exactly for its compiler versions,
// offload modes and variants.
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "common/known_defects.hpp"
#include "common/registry.hpp"

namespace ompref {
namespace {

const KnownDefect& clamp_defect() {
  for (const KnownDefect& d : known_defects())
    if (d.name == "clang22-tbaa-capture-clamp") return d;
  throw std::runtime_error("clang22-tbaa-capture-clamp is not declared");
}

// A variant of the MPI build (src/mpi) is registered only there: a build
// without MPI accepts it when a source of src/mpi registers that name.
bool registered_by_ranks_only(const std::string& variant) {
  if (OMPREF_MPI_BUILD) return false;
  const std::string quoted = "\"" + variant + "\"";
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(OMPREF_SOURCE_DIR) / "src/mpi")) {
    std::ifstream in(entry.path());
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (text.find(quoted) != std::string::npos) return true;
  }
  return false;
}

TEST(KnownDefects, DeclarationNamesRegisteredVariantsAndAReproducerThatExists) {
  ASSERT_FALSE(known_defects().empty());
  for (const KnownDefect& d : known_defects()) {
    EXPECT_FALSE(d.affected.empty()) << d.name;
    for (const auto& [workload, variant] : d.affected)
      EXPECT_TRUE(registry().variant(workload, variant) != nullptr || registered_by_ranks_only(variant))
          << d.name << ": " << workload << " " << variant;
    EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(OMPREF_SOURCE_DIR) / d.reproducer)) << d.reproducer;
    EXPECT_FALSE(d.workaround.empty()) << d.name;
  }
}

TEST(KnownDefects, NoteForAnAffectedVariantBuiltByAnAffectedCompiler) {
  const KnownDefect& d = clamp_defect();
  for (const auto& [workload, variant] : d.affected) {
    const std::string note = known_defect_note(known_defects(), workload, variant, "clang", "22.1.8", "nvptx");
    EXPECT_NE(note.find("clang22-tbaa-capture-clamp"), std::string::npos) << note;
    EXPECT_NE(note.find(d.reproducer), std::string::npos) << note;
    EXPECT_NE(note.find("-fno-strict-aliasing"), std::string::npos) << note;
    EXPECT_EQ(note.find('\n'), std::string::npos) << "one line: " << note;
  }
  EXPECT_NE(known_defect_note(known_defects(), "gpp", "target_tuned", "clang", d.first, "nvptx"), "");
  EXPECT_NE(known_defect_note(known_defects(), "gpp", "target_tuned", "clang", "22.1.8", "nvptx-jit"), "");
  EXPECT_NE(known_defect_note(known_defects(), "gpp", "target_tuned", "clang", d.last, "nvptx"), "");
}

TEST(KnownDefects, NoNoteOutsideTheDeclaration) {
  const auto note = [](const char* workload, const char* variant, const char* compiler, const char* version,
                       const char* offload) {
    return known_defect_note(known_defects(), workload, variant, compiler, version, offload);
  };
  EXPECT_EQ(note("gpp", "target_tuned", "clang", "19.1.7", "nvptx-jit"), "");
  EXPECT_EQ(note("gpp", "target_tuned", "clang", "19.1.7", "nvptx"), "");
  EXPECT_EQ(note("gpp", "target_tuned", "clang", "22.0.9", "nvptx"), "");
  EXPECT_EQ(note("gpp", "target_tuned", "clang", "22.1.9", "nvptx"), "");
  EXPECT_EQ(note("gpp", "target_tuned", "g++", "12.2.0", "nvptx"), "");
  EXPECT_EQ(note("gpp", "target_tuned", "clang", "22.1.8", "none"), "");
  EXPECT_EQ(note("gpp", "target_tuned", "clang", "22.1.8", "amdgcn"), "");
  EXPECT_EQ(note("gpp", "target_basic", "clang", "22.1.8", "nvptx"), "");
  EXPECT_EQ(note("stream", "target_tuned", "clang", "22.1.8", "nvptx"), "");
}

TEST(KnownDefects, VersionsAreNumbersAndDots) {
  EXPECT_THROW(known_defect_note(known_defects(), "gpp", "target_tuned", "clang", "22.1.x", "nvptx"),
               std::runtime_error);
  EXPECT_THROW(known_defect_note(known_defects(), "gpp", "target_tuned", "clang", "22..1", "nvptx"),
               std::runtime_error);
}

}  // namespace
}  // namespace ompref
