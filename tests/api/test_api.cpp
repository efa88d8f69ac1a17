// The C++ API (include/gpp/gpp.hpp) on a non-uniform deck: what it refuses (one Error with
// its status, naming the array), that it reads the caller's arrays where they are and
// writes none of them, that Views and pointers are one path, the tunables and tuning file
// it takes, its verification both ways, and the Kokkos it leaves to its caller. Its sums
// against the independent Fortran oracle: tests/oracle/test_oracle.cpp ("api@host").
#include <gpp/gpp.hpp>

#include "gpp_api_test_util.hpp"
#include "gpp_io_test_util.hpp"
#include "gpp_record.hpp"
#include "gpp_test_util.hpp"
#include "gpp_tuning.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <vector>

namespace gpp::test {
namespace {

// A small random deck (every arm of the physics), its derived arrays kept alive.
struct ApiDeck {
  InputDeck input;
  GppData<Kokkos::HostSpace> data;
  api::Arrays arrays;
  ApiDeck() {
    DeckParams p;
    p.nbands = 9;
    p.ngpown = 7;
    p.ncouls = 31;
    p.nvband = 4;
    p.nstart = 1;
    p.nend = 3;
    input = generate_random(p);
    data = derive(input);
    arrays = gpp::test::api_arrays_of(data);
  }
};

// The status and message of what compute throws ("" and ok when it returns).
std::pair<api::Status, std::string> refusal(const api::Arrays& a, const api::Options& o = {}) {
  try {
    api::compute(a, o);
  } catch (const api::Error& e) {
    return {e.status(), e.what()};
  }
  return {api::Status::ok, ""};
}

struct Case {
  const char* name;
  std::function<void(api::Arrays&, api::Options&, std::vector<std::complex<double>>&)> mutate;
  api::Status status;
  const char* message;
};

class ApiRefusals : public ::testing::TestWithParam<int> {};

std::vector<Case> cases() {
  using S = api::Status;
  using Z = std::vector<std::complex<double>>;
  return {
      {"null pointer", [](api::Arrays& a, api::Options&, Z&) { a.I_eps_array.data = nullptr; }, S::argument,
       "I_eps_array is a null pointer"},
      {"not given", [](api::Arrays& a, api::Options&, Z&) { a.vcoul_loc = {}; }, S::argument, "vcoul_loc is not given"},
      {"wrong shape", [](api::Arrays& a, api::Options&, Z&) { a.aqsmtemp_local.rows += 1; }, S::argument,
       "aqsmtemp_local is (8, 9); it must be (ngpown, nbands) = (7, 9)"},
      {"transposed", [](api::Arrays& a, api::Options&, Z&) { std::swap(a.wx_array_t.rows, a.wx_array_t.cols); },
       S::argument, "wx_array_t is (9, 3); it must be (nw, nbands) = (9, 9)"},
      {"wrong vector size", [](api::Arrays& a, api::Options&, Z&) { a.occ_array.size = 8; }, S::argument,
       "occ_array is (8, 1); it must be (nbands) = (9, 1)"},
      {"misaligned complex",
       [](api::Arrays& a, api::Options&, Z& buffer) {
         buffer.assign(std::size_t(a.wtilde_array.rows * a.wtilde_array.cols + 1), {0.0, 0.0});
         a.wtilde_array.data =
             reinterpret_cast<const std::complex<double>*>(reinterpret_cast<const char*>(buffer.data()) + 4);
       },
       S::argument, "wtilde_array is not aligned to 8 bytes"},
      {"NaN",
       [](api::Arrays& a, api::Options&, Z& buffer) {
         buffer.assign(a.I_eps_array.data, a.I_eps_array.data + a.I_eps_array.rows * a.I_eps_array.cols);
         buffer[std::size_t(2 + a.I_eps_array.rows * 5)] = {0.0, std::nan("")};
         a.I_eps_array.data = buffer.data();
       },
       S::argument, "I_eps_array(3, 6) is not finite"},
      {"Inf",
       [](api::Arrays& a, api::Options&, Z& buffer) {
         static std::vector<double> v;
         v.assign(a.vcoul_loc.data, a.vcoul_loc.data + a.vcoul_loc.size);
         v[4] = std::numeric_limits<double>::infinity();
         a.vcoul_loc.data = v.data();
         (void)buffer;
       },
       S::argument, "vcoul_loc(5) is not finite"},
      {"sexcut unset", [](api::Arrays& a, api::Options&, Z&) { a.sexcut = std::nan(""); }, S::argument,
       "sexcut is not set"},
      {"limittwo negative", [](api::Arrays& a, api::Options&, Z&) { a.limittwo = -1; }, S::argument,
       "limittwo must be finite and positive"},
      {"size beyond 2^30", [](api::Arrays& a, api::Options&, Z&) { a.aqsntemp.rows = std::int64_t(1) << 31; },
       S::argument, "ncouls (the rows of aqsntemp) = 2147483648 is outside 1..1073741824"},
      {"product overflows",
       [](api::Arrays& a, api::Options&, Z&) {
         a.aqsntemp.rows = a.aqsntemp.cols = a.I_eps_array.cols = std::int64_t(1) << 30;
       },
       S::argument, "make an array larger than any memory"},
      {"start values of another length",
       [](api::Arrays& a, api::Options&, Z&) {
         a.achtemp0.assign(2, {1.0, 0.0});
       },
       S::argument, "achtemp0 has 2 values; it must have nw = 3"},
      {"unknown policy", [](api::Arrays&, api::Options& o, Z&) { o.policy = "v9"; }, S::policy, "unknown policy 'v9'"},
      {"unknown space", [](api::Arrays&, api::Options& o, Z&) { o.space = "gpu"; }, S::policy,
       "space must be host, device or empty"},
      {"tunable the policy lacks",
       [](api::Arrays&, api::Options& o, Z&) {
         o.policy = "host";
         o.space = "host";
         o.tunables["team-size"] = "64";
       },
       S::policy, "policy host has no tunable team-size"},
      {"tunable not a number",
       [](api::Arrays&, api::Options& o, Z&) {
         o.policy = "host";
         o.space = "host";
         o.tunables["band-block"] = "sixteen";
       },
       S::policy, "tunable band-block = 'sixteen': expected an integer"},
      {"repeat 0", [](api::Arrays&, api::Options& o, Z&) { o.repeat = 0; }, S::argument, "repeat = 0 is outside"},
  };
}

TEST_P(ApiRefusals, OneErrorNamingTheProblem) {
  const Case c = cases()[std::size_t(GetParam())];
  ApiDeck d;
  api::Options o;
  std::vector<std::complex<double>> buffer;
  c.mutate(d.arrays, o, buffer);
  const auto [status, message] = refusal(d.arrays, o);
  EXPECT_EQ(int(status), int(c.status)) << c.name << ": " << message;
  EXPECT_NE(message.find(c.message), std::string::npos) << c.name << ": got '" << message << "'";
  EXPECT_EQ(message.find('\n'), std::string::npos) << c.name << ": more than one line";
}
INSTANTIATE_TEST_SUITE_P(Api, ApiRefusals, ::testing::Range(0, int(cases().size())),
                         [](const ::testing::TestParamInfo<int>& i) {
                           std::string n = cases()[std::size_t(i.param)].name;
                           for (char& ch : n)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return n;
                         });

TEST(Api, MpiCommunicatorNeedsMpi) {
  ApiDeck d;
  api::Options o;
  o.mpi_comm = 0;
  const auto [status, message] = refusal(d.arrays, o);
  if (api::build_features().mpi) {
    // MPI_Comm_f2c(0) is MPI_COMM_WORLD in Open MPI and MPICH: a communicator, so it runs
    // (or MPI is not running in the test binary: refused as such).
    EXPECT_TRUE(status == api::Status::ok || status == api::Status::mpi) << message;
  } else {
    EXPECT_EQ(int(status), int(api::Status::mpi));
    EXPECT_NE(message.find("built without MPI"), std::string::npos) << message;
  }
}

// The caller's arrays are read, never written: their bytes are the same after a run of
// every policy of the host space.
TEST(Api, ReadsTheCallersArraysWritesNone) {
  ApiDeck d;
  const auto bytes = [&] {
    std::vector<char> b;
    const auto add = [&](const void* p, std::size_t n) {
      b.insert(b.end(), static_cast<const char*>(p), static_cast<const char*>(p) + n);
    };
    const api::Arrays& a = d.arrays;
    for (const auto* m : {&a.aqsntemp, &a.aqsmtemp_local, &a.I_eps_array, &a.wtilde_array})
      add(m->data, std::size_t(m->rows * m->cols) * 16);
    add(a.wx_array_t.data, std::size_t(a.wx_array_t.rows * a.wx_array_t.cols) * 8);
    add(a.occ_array.data, std::size_t(a.occ_array.size) * 8);
    add(a.vcoul_loc.data, std::size_t(a.vcoul_loc.size) * 8);
    return b;
  };
  const std::vector<char> before = bytes();
  api::Options o;
  o.space = "host";
  o.verify = true;
  for (const PolicyEntry& e : policy_registry()) {
    if (!e.runs_on(SpaceKind::Host)) continue;
    o.policy = e.name;
    const api::Result r = api::compute(d.arrays, o);
    EXPECT_TRUE(r.verified) << e.name << ": " << r.rel_error;
  }
  EXPECT_TRUE(bytes() == before);
}

// Views (any host memory: here the deck's own) and pointers are one path: the same sums.
TEST(Api, ViewsArePointers) {
  ApiDeck d;
  api::Views<Kokkos::HostSpace> v;
  v.aqsntemp = d.data.aqsntemp;
  v.aqsmtemp_local = d.data.aqsmtemp_local;
  v.I_eps_array = d.data.I_eps_array;
  v.wtilde_array = d.data.wtilde_array;
  v.wx_array_t = d.data.wx_array_t;
  v.occ_array = d.data.occ_array;
  v.vcoul_loc = d.data.vcoul_loc;
  v.sexcut = d.data.sexcut;
  v.limittwo = d.data.limittwo;
  api::Options o;
  o.space = "host";
  o.policy = "v8-bounded";
  const api::Result a = api::compute(v, o), b = api::compute(d.arrays, o);
  EXPECT_EQ(a.achtemp, b.achtemp);
  EXPECT_EQ(a.asxtemp, b.asxtemp);
  EXPECT_EQ(a.achstemp, b.achstemp);
  // A View not given is named.
  v.wtilde_array = {};
  try {
    api::compute(v, o);
    ADD_FAILURE() << "an empty wtilde_array was taken";
  } catch (const api::Error& e) {
    EXPECT_NE(std::string(e.what()).find("wtilde_array is not given"), std::string::npos) << e.what();
  }
}

// A host complex array only 8-byte aligned (a static or automatic array may be) is copied
// into an aligned buffer and gives the sums its 16-byte aligned twin gives, every array
// in turn; the caller's bytes stay as they were.
TEST(Api, EightByteAlignedComplexArraysAreCopied) {
  ApiDeck d;
  api::Options o;
  o.space = "host";
  o.policy = "tuned";
  o.verify = true;
  const api::Result want = api::compute(d.arrays, o);
  ASSERT_TRUE(want.verified);
  for (int k = 0; k < 4; ++k) {
    api::Arrays a = d.arrays;
    api::Matrix<std::complex<double>>* m[4] = {&a.aqsntemp, &a.aqsmtemp_local, &a.I_eps_array, &a.wtilde_array};
    const std::size_t n = std::size_t(m[k]->rows * m[k]->cols);
    // n + 1 complex values from a 16-byte aligned start: the array at byte 8
    static_assert(alignof(std::complex<double>) <= 8, "a std::complex<double> at byte 8 is aligned");
    std::vector<std::complex<double>> buffer(n + 1);
    char* const at = reinterpret_cast<char*>(buffer.data()) + 8;
    std::copy(m[k]->data, m[k]->data + n, reinterpret_cast<std::complex<double>*>(at));
    ASSERT_EQ(reinterpret_cast<std::uintptr_t>(at) % 16, 8u);
    m[k]->data = reinterpret_cast<const std::complex<double>*>(at);
    const std::vector<char> before(at, at + n * 16);
    const api::Result got = api::compute(a, o);
    EXPECT_TRUE(got.verified) << "array " << k;
    EXPECT_EQ(got.achtemp, want.achtemp) << "array " << k;
    EXPECT_EQ(got.asxtemp, want.asxtemp) << "array " << k;
    EXPECT_EQ(got.achstemp, want.achstemp) << "array " << k;
    EXPECT_TRUE(std::vector<char>(at, at + n * 16) == before) << "array " << k;
  }
}

// Start values are added as the benchmark does: achtemp0 + sch_sum, asxtemp0 - ssx_sum.
TEST(Api, StartValuesAdded) {
  ApiDeck d;
  api::Options o;
  o.space = "host";
  const api::Result zero = api::compute(d.arrays, o);
  d.arrays.achtemp0 = {{1.0, -2.0}, {0.5, 0.0}, {0.0, 3.0}};
  d.arrays.asxtemp0 = {{-1.0, 0.0}, {2.0, 2.0}, {0.0, -0.5}};
  const api::Result r = api::compute(d.arrays, o);
  for (int w = 0; w < 3; ++w) {
    EXPECT_EQ(r.achtemp[w], d.arrays.achtemp0[w] + zero.achtemp[w]);
    EXPECT_EQ(r.asxtemp[w], d.arrays.asxtemp0[w] + zero.asxtemp[w]);
  }
}

// Verification both ways: passed at the project's tolerance, failed at one no double sum
// can meet; the record says the same.
TEST(Api, VerificationPassesAndFails) {
  ApiDeck d;
  api::Options o;
  o.verify = true;
  const api::Result ok = api::compute(d.arrays, o);
  EXPECT_TRUE(ok.verified);
  EXPECT_GE(ok.rel_error, 0.0);
  EXPECT_LE(ok.rel_error, 1e-10);
  o.rtol = 1e-300;
  const api::Result strict = api::compute(d.arrays, o);
  EXPECT_FALSE(strict.verified);
  EXPECT_GT(strict.rel_error, 1e-300);
  const auto j = nlohmann::json::parse(strict.record_json);
  EXPECT_EQ(j["passed"], false);
  EXPECT_EQ(j["runs"][0]["status"], "wrong");
  o.verify = false;
  const api::Result none = api::compute(d.arrays, o);
  EXPECT_FALSE(none.verified);
  EXPECT_EQ(none.rel_error, -1);
}

// The record: the command's schema, what ran, the sizes of the caller's arrays.
TEST(Api, RecordSaysWhatRan) {
  ApiDeck d;
  api::Options o;
  o.space = "host";
  o.policy = "host";
  o.repeat = 2;
  o.warmup = 1;
  const api::Result r = api::compute(d.arrays, o);
  ASSERT_EQ(r.times.size(), 2u);
  const auto j = nlohmann::json::parse(r.record_json);
  EXPECT_EQ(j["kind"], "gpp-record");
  EXPECT_EQ(j["command"], "api");
  EXPECT_EQ(j["deck"]["nbands"], 9);
  EXPECT_EQ(j["deck"]["ngpown"], 7);
  EXPECT_EQ(j["deck"]["ncouls"], 31);
  EXPECT_EQ(j["deck"]["nw"], 3);
  EXPECT_EQ(j["runs"][0]["policy"], "host");
  EXPECT_EQ(j["runs"][0]["times_s"].size(), 2u);
  EXPECT_EQ(r.tunables_source, "default");
  EXPECT_FALSE(r.tunables.empty());  // the host policy's defaults, resolved
}

// Tunables by the command's names, and a tuning file's entry for what is not given.
TEST(Api, TunablesAndTuningFile) {
  ApiDeck d;
  api::Options o;
  o.space = "host";
  o.policy = "host";
  o.tunables["band-block"] = "3";
  const api::Result given = api::compute(d.arrays, o);
  EXPECT_EQ(given.tunables.at("band-block"), "3");
  EXPECT_EQ(given.tunables_source.find("band-block: caller; ig-block: default"), 0u) << given.tunables_source;

  const record::SpaceInfo where = record::space_info(SpaceKind::Host);
  measure::TuningFile f;
  measure::TuningEntry e;
  e.device = where.device;
  e.backend = where.backend;
  e.policy = "host";
  e.size_class = "any";
  e.tunables.band_block = 5;
  e.tunables.ig_block = 7;
  f.entries.push_back(e);
  const std::string path = temp_path("api_tuning.json");
  {
    std::ofstream out(path);
    out << measure::to_json(f);
  }
  o.tuning_file = path;
  const api::Result tuned = api::compute(d.arrays, o);
  EXPECT_EQ(tuned.tunables.at("band-block"), "3");  // the caller's wins
  EXPECT_EQ(tuned.tunables.at("ig-block"), "7");    // the file's fills the rest
  EXPECT_NE(tuned.tunables_source.find("ig-block: tuning file " + path), std::string::npos) << tuned.tunables_source;
  o.tuning_file = path + ".missing";
  const auto [status, message] = refusal(d.arrays, o);
  EXPECT_EQ(int(status), int(api::Status::argument));
  EXPECT_NE(message.find(".missing"), std::string::npos) << message;
  std::remove(path.c_str());
}

// A Runtime where the caller started Kokkos (the test main did) neither starts nor ends it.
TEST(Api, RuntimeLeavesTheCallersKokkos) {
  {
    api::Runtime r;
    EXPECT_FALSE(r.started_kokkos());
  }
  EXPECT_TRUE(Kokkos::is_initialized());
  ApiDeck d;
  EXPECT_NO_THROW(api::compute(d.arrays));
}

}  // namespace
}  // namespace gpp::test
