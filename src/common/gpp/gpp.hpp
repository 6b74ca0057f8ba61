#pragma once
// gpp: the BerkeleyGW General Plasmon Pole self-energy kernel (the GPP
// mini-app's `noflagOCC_solver`): for 3 frequencies iw, the sum over bands n1,
// G'-vectors k (igp) and G-vectors ig of
//
//   achtemp[iw] += delw(n1, k, ig, iw) * I_eps_array[ig][k] * factor(k, n1)
//   factor(k, n1) = conj(aqsmtemp[igp][n1]) * aqsntemp[igp][n1] * 0.5 * vcoul[igp] * wtilde_array[igp][k]
//   wdiff = wx(n1, iw) - wtilde_array[ig][k],  delw = conj(wdiff) / |wdiff|^2
//   igp = indinv[inv_igp_index[k]]
//
// Data layout, shared by every host and target variant (the mini-app's layout):
//   aqsmtemp, aqsntemp   ncouls x number_bands, row-major [igp][n1]
//   I_eps_array, wtilde  ncouls x ngpown,       row-major [ig][k]
//   vcoul                ncouls;  e_n1kq  number_bands
// 32-bit indices: decks whose arrays have 2^31 elements or more are refused.
//
// The per-term arithmetic is src/common/gpp/gpp_term.hpp; this header adds the
// decks, the instance (data, reference, validation, model) and the options.
#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "common/aligned_array.hpp"
#include "common/gpp/gpp_term.hpp"
#include "common/registry.hpp"

namespace ompref::gpp {

// Flops of one (n1, k, ig, iw) term as the formula is written (the model of
// every variant, whatever it executes): wdiff 1 (a real minus a complex: one
// subtraction, the imaginary part is a negation), |wdiff|^2 3, delw 3 (one
// reciprocal counted as 1 flop, then conj(wdiff) scaled by it: 2), delw *
// I_eps 6, * factor 6, achtemp += 2. factor(k, n1) itself (once per (k, n1)
// in the model) is not counted: it is 1/(ncouls) of the work.
constexpr double flops_per_term = 21.0;

struct Deck {
  long number_bands = 0;
  long nvband = 0;  // parsed and unused, as in the mini-app
  long ncouls = 0;
  long nodes_per_group = 0;
  long ngpown() const { return ncouls / nodes_per_group; }
};

enum class Data { uniform, varied };

// The sizes (tiny, small, medium, paper) and their decks: one table in gpp.cpp.
std::vector<std::string> size_names();
Deck deck_for_size(const std::string& size);  // throws UsageError naming the sizes
// "NB NV NC NPG": four positive integers, nodes_per_group <= ncouls. Throws UsageError.
Deck parse_deck(const std::string& text);
// The checks of parse_deck on numbers (also applied to the named decks).
void check_deck(const Deck& deck);
// Bytes the instance allocates on the host and maps to a device.
double host_bytes(const Deck& deck);
double device_bytes(const Deck& deck);

// The block shape of target_tuned (src/omp_target/gpp_4_tuned.cpp). The
// defaults are the fastest shape measured on the H200 (docs/gpp.md).
// The most threads a team of target_tuned or target_multi may have: their
// kernels are compiled for it (OMPREF_MAX_TEAM_THREADS), which holds a thread
// to 65536 / 512 = 128 registers on an NVIDIA GPU.
constexpr int tuned_max_threads = 512;
struct TunedShape {
  int bands = 4;         // bands per thread: 1, 2, 4 or 8
  int ig_chunk = 8192;   // rows of ig per thread
  int threads = 512;     // thread_limit: 1..tuned_max_threads
  bool scalars = false;  // six real reductions instead of the three-complex one
};
// "BANDS,IG_CHUNK,THREADS[,SCALARS]" (--tuned-shape). Throws UsageError naming the accepted forms.
TunedShape parse_tuned_shape(const std::string& text);
// The same form, all four fields: "4,8192,512,0".
std::string to_string(const TunedShape& shape);

class GppInstance final : public Instance {
 public:
  GppInstance(const Deck& deck, Data data, const TunedShape& tuned);
  nlohmann::json params() const override;
  Model model(const std::string& kernel) const override;
  void reset() override;
  Check validate(int repetitions, const std::string& kernel) const override;
  nlohmann::json observables(const std::string& kernel) const override;

  // The reference (closed form for uniform data, long-double sums for varied)
  // and the tolerance of each of the 6 real parts.
  const Complex3& reference() const { return reference_; }
  double tolerance(int iw, int part) const { return tolerance_[iw][part]; }
  const std::string& reference_name() const { return reference_name_; }
  // Elements (n1, k, ig) of the sum: number_bands * ngpown * ncouls.
  double elements() const;

  Deck deck;
  Data data;
  int nb, nc, ngpown;  // number_bands, ncouls, ncouls / nodes_per_group
  AlignedArray<Complex> aqsmtemp, aqsntemp;  // [igp][n1]
  AlignedArray<Complex> I_eps_array, wtilde_array;  // [ig][k]
  AlignedArray<double> vcoul;   // [ig]
  AlignedArray<double> e_n1kq;  // [n1]
  AlignedArray<int> inv_igp_index;  // [k]
  AlignedArray<int> indinv;         // [ncouls + 1]
  AlignedArray<Complex> factor_array;  // [k][n1]: scratch of the variants that store factor(k, n1)
  TunedShape tuned;  // target_tuned's block shape (--tuned-shape)
  Complex3 achtemp;  // the result of the last repetition

  // Fills reference() and the tolerances from the current inputs (make_instance calls it).
  void compute_reference();

 private:
  Complex3 reference_;
  double tolerance_[nfreq][2];
  std::string reference_name_;
};

// The checks of make_instance (deck, reference size, memory), allocating nothing.
void check_instance(const Deck& deck, Data data, const MemoryLimits& limits);
// Checks the deck and memory, then allocates and computes the reference.
std::unique_ptr<GppInstance> make_instance(const Deck& deck, Data data, const MemoryLimits& limits,
                                           const TunedShape& tuned = TunedShape{});

// The closed form for uniform data: every term is equal, achtemp[iw] = N * term(iw).
Complex3 closed_form(const Deck& deck);

// Decks up to this many (n1, k, ig) elements get the long-double reference for varied data.
constexpr double varied_reference_max_elements = double(1L << 26);

}  // namespace ompref::gpp
