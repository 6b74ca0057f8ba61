// DeviceData's scratch arrays: entered without a copy and poisoned where the
// kernels will read them (the device, or the host where target regions fall
// back to it), so that an element a kernel reads before writing is NaN.
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>
#include <omp.h>

#include "common/device_data.hpp"

namespace {

using ompref::DeviceData;

TEST(DeviceData, AScratchArrayComesBackPoisonedWholeAndNothingBesideIt) {
  const int device = omp_get_default_device();
  // An odd start and length: the byte loops at both ends and the words between.
  std::vector<unsigned char> raw(8 * 1000 + 24, 0x11);
  unsigned char* p = raw.data() + 3;
  const std::int64_t n = 8 * 1000 + 5;
  DeviceData().scratch(p, n).enter(device);
  // Exited as an output, as a swap of lattices makes it.
  DeviceData().out(p, n).exit(device);
  for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(p[i], 0xFF) << "byte " << i;
  for (unsigned char* q : {raw.data(), raw.data() + 1, raw.data() + 2}) EXPECT_EQ(*q, 0x11);
  for (std::size_t i = std::size_t(3 + n); i < raw.size(); ++i) EXPECT_EQ(raw[i], 0x11) << "byte " << i;
}

TEST(DeviceData, APoisonedDoubleIsNaN) {
  std::vector<double> a(257, 1.0);
  DeviceData().scratch(a.data(), std::int64_t(a.size())).enter(omp_get_default_device());
  DeviceData().out(a.data(), std::int64_t(a.size())).exit(omp_get_default_device());
  for (double v : a) ASSERT_NE(v, v);
}

TEST(DeviceData, ScratchIsNeitherAnInputNorAnOutput) {
  double x[4] = {};
  const DeviceData d = DeviceData().scratch(x, 4);
  ASSERT_EQ(d.arrays().size(), 1u);
  EXPECT_TRUE(d.arrays()[0].scratch);
  EXPECT_FALSE(d.arrays()[0].out);
  EXPECT_EQ(d.bytes(), std::int64_t(4 * sizeof(double)));
}

}  // namespace
