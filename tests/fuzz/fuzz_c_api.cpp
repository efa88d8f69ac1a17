// The C interface (include/gpp/gpp.h, docs/library.md), called as another program calls
// it: the input is a script of calls, each array's type and shape, its values (tame ones
// or any 8 bytes: NaN, Inf, subnormals, 1e308), the scalars, options and tunables given
// as text, and the nw passed to gpp_compute. The arrays themselves are buffers of exactly
// the shape the call claims (a caller that claims more than it holds is out of the
// contract of any C interface), at the heap's 16-byte alignment or 8 bytes past it, or a
// null pointer.
//
// The contract, from the header: every call returns a status of the enum; a failed call
// leaves one line in gpp_last_error; GPP_ERROR_INTERNAL (a bug, by its own definition)
// never comes; nothing the caller gave is written but the outputs, and those only by a
// call that succeeds (a guard element on each side stays as it was); with tame inputs, a
// successful call's results are finite unless a term sits exactly on a pole: a real wtilde
// equal to wx or to -wx makes a denominator zero, and the sums are NaN in the reciprocal
// forms (v1 and later: 0 times the reciprocal's Inf) as in the spec's complex division
// when wx = wtilde (docs/library.md). The caller's process goes on after every refusal.
#include "fuzz_contract.hpp"

#include <gpp/gpp.h>

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

using gpp::fuzz::expect;
using gpp::fuzz::violated;

// The input, read a little at a time; past its end every read gives zeros.
class Script {
 public:
  Script(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  std::uint8_t byte() { return at_ < size_ ? data_[at_++] : 0; }
  double raw_double() {
    std::uint8_t b[8];
    for (auto& x : b) x = byte();
    double d;
    std::memcpy(&d, b, sizeof d);
    return d;
  }
  // A short text: a length byte, then that many bytes (at most 24).
  std::string text() {
    const std::size_t n = byte() % 25;
    std::string s;
    for (std::size_t i = 0; i < n; ++i) s += char(byte());
    return s;
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_, at_ = 0;
};

// Kokkos starts once in a process: this context holds it for the whole campaign, and
// each input's own context finds it running (and leaves it so when destroyed).
gpp_context* keeper() {
  static gpp_context* k = [] {
    // No tuning file of the user's or the machine's: every input sees the same defaults.
    ::setenv("GPP_TUNING_FILE", gpp::fuzz::WorkDir::get().file("no-tuning.json").c_str(), 1);
    ::setenv("XDG_CONFIG_HOME", gpp::fuzz::WorkDir::get().path().c_str(), 1);
    ::setenv("XDG_CACHE_HOME", gpp::fuzz::WorkDir::get().path().c_str(), 1);
    gpp_context* c = nullptr;
    if (gpp_context_create(&c, 0, nullptr) != GPP_OK) violated(std::string("no context: ") + gpp_last_error());
    return c;
  }();
  return k;
}

// A call's status is one of the enum's, never GPP_ERROR_INTERNAL, and a failure says why
// in one line.
void checked(const char* call, int status) {
  expect(status >= GPP_OK && status <= GPP_ERROR_INTERNAL, std::string(call) + " returned a status outside the enum");
  if (status == GPP_OK) return;
  const std::string message = gpp_last_error();
  expect(status != GPP_ERROR_INTERNAL, std::string(call) + " failed with GPP_ERROR_INTERNAL: " + message);
  expect(!message.empty(), std::string(call) + " failed without a message");
  expect(message.find('\n') == std::string::npos, std::string(call) + " failed with more than one line: " + message);
}

// Hash of bytes, to see that nothing changed.
std::uint64_t digest(const void* p, std::size_t n) {
  const auto* b = static_cast<const unsigned char*>(p);
  std::uint64_t h = 1469598103934665603ULL;
  for (std::size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ULL;
  return h;
}

const char* const kOptions[] = {"policy",           "space",        "verify",   "rtol",        "warmup", "repeat",
                                "static_remainder", "check_finite", "progress", "tuning_file", "loops",  "rcp_empty"};
const char* const kTunables[] = {"band-block", "ig-block", "team-size",   "vector-length",
                                 "tile",       "loops",    "rcp_occupied"};
const char* const kValues[] = {"",    "yes", "no",     "host",   "device", "tuned",  "v6-blocked", "v0-collapse3",
                               "0",   "1",   "2",      "-1",     "64",     "32,4,1", "1e-10",      "nan",
                               "inf", "1e9", "scalar", "vector", "share",  "div",    "default",    "2147483648"};
const char* const kScalars[] = {"sexcut", "limittwo", "nstart", "SEXCUT", ""};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Script in(data, size);
  keeper();
  gpp_context* ctx = nullptr;
  checked("gpp_context_create", gpp_context_create(&ctx, 0, nullptr));
  expect(ctx != nullptr, "gpp_context_create gave no context");
  // A small deck's sizes; every call below may claim others.
  const std::int64_t ncouls = 1 + in.byte() % 12, ngpown = 1 + in.byte() % 6, nbands = 1 + in.byte() % 6,
                     nw = 1 + in.byte() % 4;
  // The options: verification, the finiteness check and the static remainder, then a few
  // by name and value (warm-up and repeat kept small: a run of seconds would make a slow
  // fuzzer).
  const std::uint8_t how = in.byte();
  checked("gpp_set_option", gpp_set_option(ctx, "verify", (how & 1) ? "yes" : "no"));
  checked("gpp_set_option", gpp_set_option(ctx, "check_finite", (how & 2) ? "yes" : "no"));
  checked("gpp_set_option", gpp_set_option(ctx, "static_remainder", (how & 4) ? "yes" : "no"));
  const int settings = in.byte() % 5;
  for (int i = 0; i < settings; ++i) {
    const std::uint8_t pick = in.byte();
    std::string name =
        (pick & 0x80) ? in.text() : std::string((pick & 0x40) ? kTunables[pick % 7] : kOptions[pick % 12]);
    const std::uint8_t v = in.byte();
    std::string value = (v & 0x80) ? in.text() : std::string(kValues[v % 24]);
    if (name == "warmup" || name == "repeat") value = std::to_string(v % 3);  // a campaign, not a fuzzer
    if (name == "progress") value = "no";                                     // its lines would fill the log
    checked("gpp_set_option / gpp_set_tunable", (pick & 0x40) ? gpp_set_tunable(ctx, name.c_str(), value.c_str())
                                                              : gpp_set_option(ctx, name.c_str(), value.c_str()));
  }

  gpp_deck* deck = nullptr;
  checked("gpp_deck_create", gpp_deck_create(&deck));
  expect(deck != nullptr, "gpp_deck_create gave no deck");
  // The arrays, as the header lists them: type, shape (rows, cols).
  const std::array<std::array<std::int64_t, 2>, 7> shape = {
      {{ncouls, nbands}, {ngpown, nbands}, {ncouls, ngpown}, {ncouls, ngpown}, {nw, nbands}, {nbands, 1}, {ngpown, 1}}};
  const bool complex_array[7] = {true, true, true, true, false, false, false};
  std::vector<std::vector<double>> arrays(7);
  bool tame = true;
  for (int which = 0; which < 7; ++which) {
    const std::uint8_t t = in.byte(), s = in.byte();
    int type = complex_array[which] ? GPP_COMPLEX128 : GPP_FLOAT64;
    if (t & 0x80) type = int(t % 6) - 1;  // another type of the enum, or none of them
    std::int64_t rows = shape[which][0], cols = shape[which][1];
    bool null = false, at8 = false;
    switch (s % 16) {
      case 1:
        rows += 1;
        break;
      case 2:
        cols += 1;
        break;
      case 3:
        rows -= 1;
        break;
      case 4:
        rows = -rows;
        break;
      case 5:
        std::swap(rows, cols);
        break;
      case 6:
        null = true;
        break;
      case 7:
        rows = INT64_MAX, null = true;
        break;
      case 8:
        rows = cols = std::int64_t(1) << 32, null = true;
        break;
      case 9:
        continue;  // never given
      case 10:
        at8 = true;  // 8 bytes past the heap's 16 (a static array may be there)
        break;
      default:
        break;
    }
    const std::size_t elements = rows > 0 && cols > 0 && !null ? std::size_t(rows * cols) : 1;
    const std::size_t doubles = elements * (type == GPP_COMPLEX128 || type == GPP_COMPLEX64 ? 2 : 1);
    arrays[which].resize(doubles + (at8 ? 1 : 0));
    const bool raw = (t & 0x40) != 0;
    tame = tame && !raw;
    for (double& x : arrays[which]) x = raw ? in.raw_double() : (int(in.byte()) - 128) / 32.0;
    if (which == GPP_WTILDE_ARRAY && !raw)  // the plasmon frequencies of a deck are away from zero
      for (std::size_t i = 0; i < doubles; i += 2)
        arrays[which][i] = arrays[which][i] >= 0 ? arrays[which][i] + 0.25 : arrays[which][i] - 0.25;
    checked("gpp_deck_set_array",
            gpp_deck_set_array(deck, which, type, null ? nullptr : arrays[which].data() + (at8 ? 1 : 0), rows, cols));
  }
  for (int i = in.byte() % 4; i > 0; --i) {
    const std::uint8_t pick = in.byte();
    const double value = (pick & 0x80) ? in.raw_double() : (int(in.byte()) - 64) / 8.0;
    tame = tame && !(pick & 0x80);
    checked("gpp_deck_set_scalar", gpp_deck_set_scalar(deck, kScalars[pick % 5], value));
  }
  // The outputs inside guards, with start values; then the compute.
  const std::uint8_t o = in.byte();
  const std::int64_t nw_given = (o & 0x80) ? std::int64_t(o % 8) - 1 : nw;
  const std::size_t out_n = std::size_t(nw_given > 0 ? nw_given : 0);
  std::vector<double> ach(2 * (out_n + 2)), asx(2 * (out_n + 2)), achs(2 * 3);
  for (auto* v : {&ach, &asx, &achs})
    for (std::size_t i = 0; i < v->size(); ++i) (*v)[i] = (i < 2 || i + 2 >= v->size()) ? 7.0 : 0.5 * double(i % 5);
  const auto inputs_digest = [&] {
    std::uint64_t h = 0;
    for (int which = 0; which < 7; ++which)
      h ^= (2 * std::uint64_t(which) + 1) * digest(arrays[which].data(), arrays[which].size() * sizeof(double));
    return h;
  };
  const auto outputs_digest = [&] {
    return digest(ach.data(), ach.size() * 8) ^ 3 * digest(asx.data(), asx.size() * 8) ^
           5 * digest(achs.data(), achs.size() * 8);
  };
  const std::uint64_t inputs = inputs_digest(), before = outputs_digest();
  const int status =
      gpp_compute(ctx, deck, (o & 1) ? nullptr : ach.data() + 2, asx.data() + 2, achs.data() + 2, nw_given);
  checked("gpp_compute", status);
  expect(inputs_digest() == inputs, "gpp_compute wrote into an input array");
  if (status != GPP_OK) {
    expect(outputs_digest() == before, "a failed gpp_compute wrote its outputs");
  } else {
    for (auto* v : {&ach, &asx, &achs})
      expect((*v)[0] == 7.0 && (*v)[1] == 7.0 && (*v)[v->size() - 2] == 7.0 && (*v)[v->size() - 1] == 7.0,
             "gpp_compute wrote outside its output arrays");
    // A pole: a real wtilde with |wtilde| = |wx| for some band and frequency.
    bool pole = false;
    for (std::size_t i = 0; i + 1 < arrays[GPP_WTILDE_ARRAY].size(); i += 2)
      for (const double x : arrays[GPP_WX_ARRAY_T])
        pole = pole || (arrays[GPP_WTILDE_ARRAY][i + 1] == 0 && std::abs(arrays[GPP_WTILDE_ARRAY][i]) == std::abs(x));
    if (tame && !pole)
      for (auto* v : {&ach, &asx, &achs})
        for (double x : *v) expect(std::isfinite(x), "gpp_compute gave a result that is not finite from tame inputs");
    const std::string record = gpp_record_json(ctx);
    expect(!record.empty() && record.front() == '{', "a successful gpp_compute left no record");
    double value = 0;
    checked("gpp_result_value", gpp_result_value(ctx, "time_median", &value));
    expect(value >= 0, "a negative time_median");
  }
  checked("gpp_result_value", gpp_result_value(ctx, in.text().c_str(), nullptr));
  checked("gpp_deck_destroy", gpp_deck_destroy(deck));
  checked("gpp_context_destroy", gpp_context_destroy(ctx));
  return 0;
}
