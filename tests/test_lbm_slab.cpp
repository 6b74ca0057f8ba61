// lbm's slab instance (src/mpi/lbm_slab_instance.hpp) in one process of
// one rank, MPI started here as a singleton: the slab replaces the whole
// lattice's arrays, its validation fails at a wrong population of its own
// planes and names the cell, ignores its ghost planes, and a slab that does
// not fit the memory is refused before it is allocated. (Several ranks:
// tests/mpi_check.py.) Only in the MPI build.
#if OMPREF_MPI_BUILD
#include <mpi.h>

#include <string>

#include <gtest/gtest.h>

#include "common/lbm/lbm.hpp"
#include "common/usage_error.hpp"
#include "mpi/lbm_slab_instance.hpp"
#include "test_support.hpp"

namespace ompref {
namespace {

// MPI for the test's process: started once, finalised at exit.
struct Mpi {
  Mpi() {
    int started = 0;
    MPI_Initialized(&started);
    if (!started) {
      int provided = 0;
      MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    }
  }
  ~Mpi() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
  }
};

void start_mpi() { static Mpi mpi; }

lbm::Params small_lattice() {
  lbm::Params p;
  p.nx = 12;
  p.ny = 10;
  p.nz = 6;
  p.steps = 2;
  return p;
}

TEST(LbmSlab, ItsValidationFailsAtAWrongPopulationOfItsOwnPlanesOnly) {
  start_mpi();
  auto whole = lbm::make_instance(small_lattice(), testing::test_limits());
  ASSERT_TRUE(whole->allocated());
  Instance& part = lbm::slabs::slab_part(*whole);
  EXPECT_FALSE(whole->allocated()) << "the whole lattice kept beside the slab";
  EXPECT_EQ(&part, &lbm::slabs::slab_part(*whole)) << "a second slab made";
  auto& s = static_cast<lbm::slabs::SlabInstance&>(part);
  EXPECT_EQ(s.nzl, 6);
  EXPECT_EQ(s.g.nz, 8);
  part.reset();
  // The state after no step is the reference's.
  Check c = part.validate(0, "");
  EXPECT_TRUE(c.valid) << c.detail;
  // A ghost plane (local plane 0) is the neighbour's: not checked here.
  const long stride = s.g.stride, plane = s.plane;
  const long ghost = 5 + plane * 0 + 12 * 4;
  s.current()[3 * stride + ghost] += 1.0;
  c = part.validate(0, "");
  EXPECT_TRUE(c.valid) << c.detail;
  // Cell (3, 4, 2) of the lattice is the slab's local plane 3.
  const long k = 3 + 12 * (4 + 10 * 3);
  s.current()[2 * stride + k] *= 1 + 1e-9;
  c = part.validate(0, "");
  EXPECT_FALSE(c.valid);
  EXPECT_NE(c.detail.find("population 2 of cell (3, 4, 2)"), std::string::npos) << c.detail;
  // A variant of the whole lattice makes it again and frees the slab.
  whole->reset();
  EXPECT_TRUE(whole->allocated());
  EXPECT_EQ(whole->rank_part, nullptr);
}

TEST(LbmSlab, ASlabThatDoesNotFitIsRefusedBeforeItIsMade) {
  start_mpi();
  MemoryLimits tight = testing::test_limits();
  const lbm::Params p = small_lattice();
  tight.host_bytes = lbm::slab_host_bytes(p, p.nz) / 2;
  lbm::LbmInstance whole(p, false, tight);
  try {
    lbm::slabs::slab_part(whole);
    FAIL() << "a slab larger than the host memory was made";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("rank 0's slab of 6 planes"), std::string::npos) << e.what();
  }
  EXPECT_EQ(whole.rank_part, nullptr);
  EXPECT_TRUE(whole.allocated()) << "the whole lattice freed for a slab that was refused";
}

}  // namespace
}  // namespace ompref
#endif
