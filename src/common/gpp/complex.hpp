#pragma once
// The suite's complex number: two doubles and inline operators, usable inside
// target regions on every compiler the suite builds with (std::complex's
// operators are not declared for the device by every OpenMP implementation,
// and its division guards against overflow with extra branches that the GPP
// kernel does not need). OMPREF_HOST_DEVICE lets nvcc compile the same
// operators for the CUDA twins (src/native_cuda). Trivially copyable: it maps to the device as 16 bytes.
//
// Also the three-complex sum that GPP reduces (achtemp for 3 frequencies), its
// combiner and initializer, and the `declare reduction` that names them. The
// reduction is declared here, once, so host and target files use the same one.
#include <type_traits>

#include "common/host_device.hpp"

namespace ompref {

struct Complex {
  double re;
  double im;
};

// Three complex sums: the user-defined reduction type (one per frequency).
struct Complex3 {
  Complex v[3];
};

static_assert(std::is_trivially_copyable_v<Complex> && sizeof(Complex) == 2 * sizeof(double));
static_assert(std::is_trivially_copyable_v<Complex3> && sizeof(Complex3) == 6 * sizeof(double));

#pragma omp declare target

// (a.re + i a.im)(b.re + i b.im): 4 multiplies, 2 adds.
OMPREF_HOST_DEVICE inline Complex operator*(Complex a, Complex b) {
  return Complex{a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}
OMPREF_HOST_DEVICE inline Complex& operator+=(Complex& a, Complex b) {
  a.re += b.re;
  a.im += b.im;
  return a;
}
OMPREF_HOST_DEVICE inline Complex conj(Complex a) { return Complex{a.re, -a.im}; }
OMPREF_HOST_DEVICE inline Complex scale(Complex a, double s) { return Complex{a.re * s, a.im * s}; }
// |z|^2 = re^2 + im^2 (no square root).
OMPREF_HOST_DEVICE inline double norm2(Complex a) { return a.re * a.re + a.im * a.im; }
// A real number minus a complex one: w - z.
OMPREF_HOST_DEVICE inline Complex real_minus(double w, Complex z) { return Complex{w - z.re, -z.im}; }

// The reduction's combiner and initializer.
OMPREF_HOST_DEVICE inline void complex3_combine(Complex3& out, const Complex3& in) {
  for (int i = 0; i < 3; ++i) out.v[i] += in.v[i];
}
OMPREF_HOST_DEVICE inline void complex3_init(Complex3& priv) {
  for (int i = 0; i < 3; ++i) priv.v[i] = Complex{0.0, 0.0};
}
OMPREF_HOST_DEVICE inline Complex3 complex3_zero() {
  Complex3 z;
  complex3_init(z);
  return z;
}

#pragma omp end declare target

// `reduction(c3sum : x)` over a Complex3: each thread starts from zero, partial
// sums are added part by part.
#pragma omp declare reduction(c3sum : ompref::Complex3 : ompref::complex3_combine(omp_out, omp_in)) \
    initializer(ompref::complex3_init(omp_priv))

}  // namespace ompref
