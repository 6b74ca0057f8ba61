// gpp: decks, data, the references and validation, the bytes/flops model.
// Compiled without offload flags: the long-double reference never meets a device pass.
#include "common/gpp/gpp.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <complex>
#include <limits>
#include <map>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/usage_error.hpp"
#include "common/validation.hpp"
#include "common/workload_facts.hpp"

namespace ompref::gpp {

namespace {

// The sizes: one table, read by sizes(), deck_for_size(), --deck's help and
// the errors that list what is accepted.
struct NamedDeck {
  const char* size;
  Deck deck;  // number_bands nvband ncouls nodes_per_group
  const char* note;
};
constexpr NamedDeck named_decks[] = {
    {"tiny", {32, 2, 512, 16}, ""},
    {"small", {512, 2, 512, 20}, " (the mini-app's test deck)"},
    {"medium", {512, 2, 8192, 20}, ""},
    {"paper", {512, 2, 32768, 20}, " (the mini-app's benchmark deck)"},
};

std::string deck_text(const Deck& d) {
  return fmt::format("{} {} {} {}", d.number_bands, d.nvband, d.ncouls, d.nodes_per_group);
}

constexpr long index_limit = (1L << 31) - 1;  // 32-bit indices in the kernels
const char* deck_format = "accepted: --deck \"NB NV NC NPG\", four positive integers, NPG <= NC";
const char* tuned_shape_format =
    "accepted: BANDS,IG_CHUNK,THREADS[,SCALARS] with BANDS 1, 2, 4 or 8, IG_CHUNK >= 1, THREADS 1..512, "
    "SCALARS 0 (one three-complex reduction) or 1 (six real ones), e.g. 4,8192,512";

// The one check for a whole decimal integer field (a deck's, a shape's):
// std::from_chars reads it and must consume it all.
bool whole_number(const std::string& field, long& value) {
  const char* end = field.data() + field.size();
  const auto [stop, error] = std::from_chars(field.data(), end, value);
  return error == std::errc() && stop == end;
}

// The names of the data sets: --data reads them, params() writes them.
const std::map<std::string, Data>& data_names() {
  static const std::map<std::string, Data> names{{"uniform", Data::uniform}, {"varied", Data::varied}};
  return names;
}
std::vector<std::string> data_keys() {
  std::vector<std::string> keys;
  for (const auto& entry : data_names()) keys.push_back(entry.first);
  return keys;
}
std::string data_name(Data data) {
  for (const auto& [name, value] : data_names())
    if (value == data) return name;
  return "";
}

}  // namespace

std::vector<std::string> size_names() { return size_names_of(named_decks, &NamedDeck::size); }

Deck deck_for_size(const std::string& size) { return size_row("gpp", named_decks, &NamedDeck::size, size).deck; }

void check_deck(const Deck& d) {
  const long values[] = {d.number_bands, d.nvband, d.ncouls, d.nodes_per_group};
  const char* names[] = {"number_bands", "nvband", "ncouls", "nodes_per_group"};
  for (int i = 0; i < 4; ++i)
    if (values[i] <= 0 || values[i] > index_limit)
      throw UsageError(fmt::format("--deck: {} = {} is out of range 1..{} ({})", names[i], values[i], index_limit,
                                   deck_format));
  if (d.nodes_per_group > d.ncouls)
    throw UsageError(fmt::format("--deck: nodes_per_group = {} > ncouls = {} leaves no G'-vector ({})",
                                 d.nodes_per_group, d.ncouls, deck_format));
  const double nb = double(d.number_bands), nc = double(d.ncouls), ng = double(d.ngpown());
  if (nc * nb > double(index_limit) || nc * ng > double(index_limit) || (nc + 1) > double(index_limit))
    throw UsageError(fmt::format("--deck: arrays of {:.3g} elements exceed the kernels' 32-bit indices (at most {})",
                                 std::max(nc * nb, nc * ng), index_limit));
}

// CLI11 splits the text at white space, as it splits a command line.
Deck parse_deck(const std::string& text) {
  const std::vector<std::string> fields = CLI::detail::split_up(text);
  long v[4];
  for (std::size_t i = 0; i < 4; ++i)
    if (i >= fields.size() || !whole_number(fields[i], v[i]))
      throw UsageError(fmt::format("--deck \"{}\": not four integers ({})", text, deck_format));
  if (fields.size() > 4)
    throw UsageError(fmt::format("--deck \"{}\": unexpected '{}' ({})", text, fields[4], deck_format));
  Deck d{v[0], v[1], v[2], v[3]};
  check_deck(d);
  return d;
}

TunedShape parse_tuned_shape(const std::string& text) {
  // CLI11 splits at the commas (and drops a trailing empty field: counted here).
  const std::vector<std::string> fields = CLI::detail::split(text, ',');
  long v[4] = {0, 0, 0, 0};
  bool ok = (fields.size() == 3 || fields.size() == 4) &&
            std::size_t(std::count(text.begin(), text.end(), ',')) + 1 == fields.size();
  for (std::size_t i = 0; ok && i < fields.size(); ++i) ok = whole_number(fields[i], v[i]);
  ok = ok && (v[0] == 1 || v[0] == 2 || v[0] == 4 || v[0] == 8) && v[1] >= 1 && v[1] <= index_limit &&
       v[2] >= 1 && v[2] <= tuned_max_threads && (v[3] == 0 || v[3] == 1);
  if (!ok) throw UsageError(fmt::format("'{}' is not a tuned shape ({})", text, tuned_shape_format));
  return TunedShape{int(v[0]), int(v[1]), int(v[2]), v[3] == 1};
}

// The shape against the arithmetic it feeds: target_tuned and target_multi
// count chunks as (ncouls + IG_CHUNK - 1) / IG_CHUNK and end a chunk at
// c * IG_CHUNK + IG_CHUNK <= ncouls + IG_CHUNK - 1, in the kernels' 32-bit ints.
static void check_tuned_shape(const Deck& deck, const TunedShape& t) {
  if (long(t.ig_chunk) + deck.ncouls - 1 > index_limit)
    throw UsageError(fmt::format("--tuned-shape {}: IG_CHUNK {} with ncouls = {} overflows the kernels' 32-bit chunk "
                                 "arithmetic (accepted: IG_CHUNK <= {}; a chunk beyond ncouls = {} rows is one chunk)",
                                 to_string(t), t.ig_chunk, deck.ncouls, index_limit - deck.ncouls + 1, deck.ncouls));
}

std::string to_string(const TunedShape& t) {
  return fmt::format("{},{},{},{}", t.bands, t.ig_chunk, t.threads, t.scalars ? 1 : 0);
}

double host_bytes(const Deck& d) {
  const double nb = double(d.number_bands), nc = double(d.ncouls), ng = double(d.ngpown());
  return sizeof(Complex) * (2 * nc * nb + 2 * nc * ng + ng * nb) + sizeof(double) * (nc + nb) +
         sizeof(int) * (ng + nc + 1);
}

double device_bytes(const Deck& d) { return host_bytes(d); }  // every array is mapped

GppInstance::GppInstance(const Deck& deck_, Data data_, const TunedShape& tuned_)
    : deck(deck_),
      data(data_),
      nb(int(deck_.number_bands)),
      nc(int(deck_.ncouls)),
      ngpown(int(deck_.ngpown())),
      aqsmtemp(std::size_t(nc) * nb),
      aqsntemp(std::size_t(nc) * nb),
      I_eps_array(std::size_t(nc) * ngpown),
      wtilde_array(std::size_t(nc) * ngpown),
      vcoul(nc),
      e_n1kq(nb),
      inv_igp_index(ngpown),
      indinv(std::size_t(nc) + 1),
      factor_array(std::size_t(ngpown) * nb),
      tuned(tuned_) {}

double GppInstance::elements() const { return double(nb) * double(ngpown) * double(nc); }

nlohmann::json GppInstance::params() const {
  return {{"number_bands", deck.number_bands}, {"nvband", deck.nvband}, {"ncouls", deck.ncouls},
          {"nodes_per_group", deck.nodes_per_group}, {"ngpown", ngpown},
          {"data", data_name(data)}, {"flops_per_term", flops_per_term},
          {"terms", elements() * nfreq}, {"tuned_shape", to_string(tuned)}};
}

Model GppInstance::model(const std::string&) const {
  // Bytes: what one repetition must read at least once: I_eps_array and
  // wtilde_array whole, the ngpown rows of aqsmtemp/aqsntemp, vcoul and
  // wtilde at igp, the band energies. Compute-bound: the FOM is GFLOP/s.
  const double ng = ngpown, b = nb, c = nc;
  const double bytes = sizeof(Complex) * (2 * c * ng + 2 * ng * b + ng) + sizeof(double) * (ng + b);
  const double flops = flops_per_term * elements() * nfreq;
  return Model{bytes, flops, "GFLOP/s", flops / 1e9};
}

namespace {

// Smooth, deterministic, non-uniform data (varied): an index or layout
// mistake, or a kernel that assumes wx is the same for every band, moves the
// result far beyond the tolerance. Im(wtilde) stays within [0.3, 0.7], so
// |wdiff|^2 >= 0.09; e_n1kq spans [0.5, 11.5], so some bands have wx clamped.
Complex varied_aqsm(int igp, int n1) {
  return {0.5 + 0.3 * std::cos(0.37 * igp + 0.21 * n1), 0.4 * std::sin(0.29 * igp - 0.17 * n1 + 0.1)};
}
Complex varied_aqsn(int igp, int n1) {
  return {0.6 + 0.25 * std::sin(0.23 * igp + 0.31 * n1 + 0.4), 0.35 * std::cos(0.19 * igp + 0.13 * n1)};
}
Complex varied_ieps(int ig, int k) {
  return {0.5 + 0.3 * std::sin(0.011 * ig + 0.7 * k), 0.3 * std::cos(0.013 * ig - 0.5 * k + 0.2)};
}
Complex varied_wtilde(int ig, int k) {
  return {1.0 + 0.8 * std::sin(0.017 * ig + 0.3 * k + 0.5), 0.5 + 0.2 * std::cos(0.007 * ig + 0.9 * k)};
}
double varied_vcoul(int ig) { return 0.5 + 1.0 / (1.0 + 0.001 * ig); }
double varied_e_n1kq(int n1) { return 6.0 + 5.5 * std::sin(0.9 * n1 + 0.2); }

// The published mini-app data.
constexpr Complex uniform_value{0.5, 0.5};
constexpr double uniform_vcoul = 1.0;
constexpr double uniform_e_n1kq = 6.0;

double nan() { return std::numeric_limits<double>::quiet_NaN(); }

}  // namespace

void GppInstance::reset() {
  const bool uni = data == Data::uniform;
  Complex* am = aqsmtemp.data();
  Complex* an = aqsntemp.data();
  Complex* ie = I_eps_array.data();
  Complex* wt = wtilde_array.data();
  const int b = nb, c = nc, g = ngpown;
#pragma omp parallel for schedule(static)
  for (int ig = 0; ig < c; ++ig) {
    for (int n1 = 0; n1 < b; ++n1) {
      am[std::size_t(ig) * b + n1] = uni ? uniform_value : varied_aqsm(ig, n1);
      an[std::size_t(ig) * b + n1] = uni ? uniform_value : varied_aqsn(ig, n1);
    }
    for (int k = 0; k < g; ++k) {
      ie[std::size_t(ig) * g + k] = uni ? uniform_value : varied_ieps(ig, k);
      wt[std::size_t(ig) * g + k] = uni ? uniform_value : varied_wtilde(ig, k);
    }
    vcoul[ig] = uni ? uniform_vcoul : varied_vcoul(ig);
  }
  for (int n1 = 0; n1 < nb; ++n1) e_n1kq[n1] = uni ? uniform_e_n1kq : varied_e_n1kq(n1);
  // The mini-app's index maps.
  for (int k = 0; k < ngpown; ++k) inv_igp_index[k] = int((long(k) + 1) * nc / ngpown);
  for (int ig = 0; ig < nc; ++ig) indinv[ig] = ig;
  indinv[nc] = nc - 1;
  // Poison the outputs and the scratch: an unwritten value fails validation.
  for (std::size_t i = 0; i < factor_array.size(); ++i) factor_array[i] = Complex{nan(), nan()};
  for (auto& z : achtemp.v) z = Complex{nan(), nan()};
}

// Every term of uniform data is the same: achtemp[iw] = N * term(iw), with the
// term evaluated in long double from the formula (0.125i / ((wx - 0.5) - 0.5i)
// for the published data, wx = 3, 4, 5).
Complex3 closed_form(const Deck& deck) {
  using C = std::complex<long double>;
  const C a(uniform_value.re, uniform_value.im);
  const long double n = (long double)deck.number_bands * deck.ngpown() * deck.ncouls;
  const C factor = std::conj(a) * a * (0.5L * uniform_vcoul) * a;  // aqsm, aqsn, vcoul, wtilde
  Complex3 out;
  for (int iw = 0; iw < nfreq; ++iw) {
    long double wx = (long double)e_lk - uniform_e_n1kq + dw * (iw - 1);
    if (wx < wx_floor) wx = wx_floor;
    const C wdiff = wx - a;
    const C delw = std::conj(wdiff) / std::norm(wdiff);
    const C sum = n * (delw * a * factor);
    out.v[iw] = Complex{double(sum.real()), double(sum.imag())};
  }
  return out;
}

namespace {

// Kahan-Babuska (Neumaier) compensated sum in long double.
struct Compensated {
  long double sum = 0, comp = 0;
  void add(long double x) {
    long double t = sum + x;
    comp += std::fabs(sum) >= std::fabs(x) ? (sum - t) + x : (x - t) + sum;
    sum = t;
  }
  long double value() const { return sum + comp; }
};

// One band's part of the reference: the compensated sums of its 6 parts and
// the sum of |term| per iw (re, im, |term| for each iw in turn).
std::array<long double, 9> reference_band(const GppInstance& s, int n1) {
  using C = std::complex<long double>;
  std::array<long double, 9> out;
  Compensated part[nfreq][2], mag[nfreq];
  long double wx[nfreq];
  for (int iw = 0; iw < nfreq; ++iw) {
    wx[iw] = (long double)e_lk - (long double)s.e_n1kq[n1] + (long double)dw * (iw - 1);
    if (wx[iw] < wx_floor) wx[iw] = wx_floor;
  }
  for (int k = 0; k < s.ngpown; ++k) {
    const int igp = s.indinv[s.inv_igp_index[k]];
    const Complex am = s.aqsmtemp[std::size_t(igp) * s.nb + n1], an = s.aqsntemp[std::size_t(igp) * s.nb + n1];
    const Complex wk = s.wtilde_array[std::size_t(igp) * s.ngpown + k];
    const C factor = std::conj(C(am.re, am.im)) * C(an.re, an.im) * (0.5L * s.vcoul[igp]) * C(wk.re, wk.im);
    for (int ig = 0; ig < s.nc; ++ig) {
      const Complex w = s.wtilde_array[std::size_t(ig) * s.ngpown + k];
      const Complex e = s.I_eps_array[std::size_t(ig) * s.ngpown + k];
      const C ie_f = C(e.re, e.im) * factor;
      for (int iw = 0; iw < nfreq; ++iw) {
        const C wdiff = wx[iw] - C(w.re, w.im);
        const C term = std::conj(wdiff) / std::norm(wdiff) * ie_f;
        part[iw][0].add(term.real());
        part[iw][1].add(term.imag());
        mag[iw].add(std::abs(term));
      }
    }
  }
  for (int iw = 0; iw < nfreq; ++iw) {
    out[3 * iw] = part[iw][0].value();
    out[3 * iw + 1] = part[iw][1].value();
    out[3 * iw + 2] = mag[iw].value();
  }
  return out;
}

}  // namespace

// Tolerance, per deck and summation order. Every variant sums in at most two
// levels: a first chain of at most ncouls * ngpown terms (the naive pair's sum over
// one band; every other variant sums at most ncouls, or one ig block, first),
// then at most number_bands * max(ngpown, ncouls) partial sums (one thread
// combining its partials; trees, as in team reductions, are shorter). A
// recursive sum of n terms has relative error <= n u sum|t_i| / |sum t_i|
// (u = 2^-53), so
//   tol = cond * max(1e-12, 2 u (ncouls ngpown + number_bands max(ngpown, ncouls)))
// where cond = 1 for uniform data (all terms equal: every partial sum of a part
// has that part's sign) and cond = sum |t| / |achtemp part| for varied data
// (computed by the reference; sum |t| of the complex moduli bounds the
// rounding of any order, factor applied before or after the ig sum). The 1e-12
// floor covers the few ulp of each term's own rounding. tiny: 7.3e-12; small:
// 6.1e-11; medium 1.7e-9; paper 1.6e-8 (the suite asks at most 1e-7).
void GppInstance::compute_reference() {
  const double u = std::ldexp(1.0, -53);
  const double chain = double(nc) * ngpown + double(nb) * std::max(ngpown, nc);
  const double base = std::max(1e-12, 2 * u * chain);
  if (data == Data::uniform) {
    reference_ = closed_form(deck);
    reference_name_ = "closed form";
    for (auto& t : tolerance_) t[0] = t[1] = base;
    return;
  }
  // Per band: compensated sums of the 6 parts and the sum of |term| per iw.
  std::vector<std::array<long double, 9>> per_band(nb);
#pragma omp parallel for schedule(dynamic, 1)
  for (int n1 = 0; n1 < nb; ++n1) per_band[n1] = reference_band(*this, n1);
  for (int iw = 0; iw < nfreq; ++iw) {
    Compensated re, im, mag;
    for (int n1 = 0; n1 < nb; ++n1) {
      re.add(per_band[n1][3 * iw]);
      im.add(per_band[n1][3 * iw + 1]);
      mag.add(per_band[n1][3 * iw + 2]);
    }
    reference_.v[iw] = Complex{double(re.value()), double(im.value())};
    const long double parts[2] = {re.value(), im.value()};
    for (int p = 0; p < 2; ++p) {
      const long double cond = parts[p] != 0 ? mag.value() / std::fabs(parts[p]) : 1e30L;
      tolerance_[iw][p] = base * double(cond);
    }
  }
  reference_name_ = "host long-double reference (compensated sums)";
}

// Every repetition overwrites achtemp: the count of repetitions does not matter.
Check GppInstance::validate(int, const std::string&) const {
  Validation v(reference_name_);
  const char* part_name[2] = {"re", "im"};
  for (int iw = 0; iw < nfreq; ++iw) {
    const double got[2] = {achtemp.v[iw].re, achtemp.v[iw].im};
    const double want[2] = {reference_.v[iw].re, reference_.v[iw].im};
    for (int p = 0; p < 2; ++p)
      v.compare(got[p], want[p], tolerance_[iw][p], [&] {
        return fmt::format("achtemp[{}].{} = {:.17g} (expected {:.17g}, relative error {:.3g} > {:.3g})", iw,
                           part_name[p], got[p], want[p], relative_error(got[p], want[p]), tolerance_[iw][p]);
      });
  }
  return v.result();
}

nlohmann::json GppInstance::observables(const std::string&) const {
  nlohmann::json a = nlohmann::json::array();
  for (const Complex& z : achtemp.v) a.push_back({z.re, z.im});
  return {{"achtemp", a}};
}

void check_instance(const Deck& deck, Data data, const MemoryLimits& limits) {
  check_deck(deck);
  const std::string what = fmt::format("gpp deck \"{}\"", deck_text(deck));
  const double elements = double(deck.number_bands) * double(deck.ngpown()) * double(deck.ncouls);
  if (data == Data::varied && elements > varied_reference_max_elements)
    throw UsageError(fmt::format(
        "--data varied: {} has {:.3g} (band, G', G) elements; the long-double reference is run for at most {:.3g} "
        "(accepted: decks up to small, or --data uniform)",
        what, elements, varied_reference_max_elements));
  limits.check_host(host_bytes(deck), what);
  limits.check_device(device_bytes(deck), what);
}

std::unique_ptr<GppInstance> make_instance(const Deck& deck, Data data, const MemoryLimits& limits,
                                           const TunedShape& tuned) {
  check_instance(deck, data, limits);
  check_tuned_shape(deck, tuned);
  auto instance = std::make_unique<GppInstance>(deck, data, tuned);
  instance->reset();
  instance->compute_reference();
  return instance;
}

namespace {

// --deck's help: the format, then the named decks from the table.
std::string deck_help() {
  std::vector<std::string> named;
  for (const NamedDeck& n : named_decks) named.push_back(fmt::format("{} \"{}\"{}", n.size, deck_text(n.deck), n.note));
  return fmt::format("gpp: \"NB NV NC NPG\" (number_bands nvband ncouls nodes_per_group; overrides --size, whose "
                     "decks are: {})",
                     fmt::join(named, ", "));
}

class GppWorkload final : public FactsWorkload {
 public:
  // GFLOP/s, flops_per_term x terms / time, terms = number_bands x ngpown x
  // ncouls x 3: ncouls (and ngpown = ncouls / nodes_per_group, and terms with
  // them) is the deck's scale, as between the mini-app's test and benchmark
  // decks. number_bands and nodes_per_group set the deck's shape (the band
  // loop's length, G'-vectors per node), the FLOP model (flops_per_term) and
  // the data set count differently: not declared. nvband is unused.
  GppWorkload()
      : FactsWorkload({"gpp", 1, "small", "medium",
                       {"GFLOP/s", compared_params({"ncouls", "ngpown", "terms"}, {"nvband", "tuned_shape"})}}) {}
  std::vector<std::string> sizes() const override { return size_names(); }
  void add_options(CLI::App& group) override {
    group.add_option("--deck", deck_, deck_help());
    group.add_option("--data", data_, "gpp: uniform (the mini-app's data, closed form) or varied (long-double reference)")
        ->check(CLI::IsMember(data_keys()))
        ->capture_default_str();
    group.add_option("--tuned-shape", tuned_shape_,
                     "gpp target_tuned: bands per thread, ig rows per thread, threads per team and 1 for six real "
                     "reductions (default " + to_string(TunedShape{}) + ")")
        ->check(CLI::Validator(
            [](std::string& text) {
              try {
                parse_tuned_shape(text);
                return std::string();
              } catch (const UsageError& e) {
                return std::string(e.what());
              }
            },
            "BANDS,IG_CHUNK,THREADS[,SCALARS]"));
  }
  void check(const std::string& size, const MemoryLimits& limits) const override {
    if (!tuned_shape_.empty()) check_tuned_shape(deck_of(size), parse_tuned_shape(tuned_shape_));
    check_instance(deck_of(size), data_names().at(data_), limits);
  }
  std::unique_ptr<Instance> make(const std::string& size, const MemoryLimits& limits) override {
    const TunedShape tuned = tuned_shape_.empty() ? TunedShape{} : parse_tuned_shape(tuned_shape_);
    return make_instance(deck_of(size), data_names().at(data_), limits, tuned);
  }

 private:
  std::string deck_;
  std::string data_ = "uniform";
  std::string tuned_shape_;

  Deck deck_of(const std::string& size) const { return deck_.empty() ? deck_for_size(size) : parse_deck(deck_); }
};

const Registration registration{std::make_unique<GppWorkload>()};

}  // namespace
}  // namespace ompref::gpp
