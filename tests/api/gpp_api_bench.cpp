// The library's side of lab/api_vs_command.py: a synthetic deck made by gpp's own
// generator from the same parameters a TOML deck gives `gpp run` (so both compute the same
// numbers), its derived arrays handed to gpp::api::compute as a caller's arrays, the run
// record written as JSON. Not installed: a measurement helper built with the tests.
//   gpp_api_bench --nbands N --ngpown N --ncouls N --nvband N [--seed S --nstart A --nend B
//                 --generator random|uniform --gamma G --sexcut C --e_lk E --dw D --efermi F --tol T
//                 --skipped_gp K] [--policy P] [--space host|device] [--repeat R] [--warmup W]
//                 [--tunable NAME=VALUE]... --json FILE [--kokkos-...]
#include <gpp/gpp.hpp>

#include "gpp_api_test_util.hpp"
#include "gpp_input.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  gpp::DeckParams p;
  gpp::api::Options o;
  std::string json;
  std::vector<std::string> kokkos;
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      if (a.rfind("--kokkos-", 0) == 0) {
        kokkos.push_back(a);
        continue;
      }
      if (i + 1 >= argc) throw gpp::Error(a + " needs a value");
      const std::string v = argv[++i];
      const auto number = [&] { return std::stod(v); };
      const auto integer = [&] { return std::stoi(v); };
      if (a == "--nbands")
        p.nbands = integer();
      else if (a == "--ngpown")
        p.ngpown = integer();
      else if (a == "--ncouls")
        p.ncouls = integer();
      else if (a == "--nvband")
        p.nvband = integer();
      else if (a == "--nstart")
        p.nstart = integer();
      else if (a == "--nend")
        p.nend = integer();
      else if (a == "--seed")
        p.seed = std::stoull(v);
      else if (a == "--generator")
        p.generator = v;
      else if (a == "--name")
        p.name = v;
      else if (a == "--gamma")
        p.gamma = number();
      else if (a == "--sexcut")
        p.sexcut = number();
      else if (a == "--e_lk")
        p.e_lk = number();
      else if (a == "--dw")
        p.dw = number();
      else if (a == "--efermi")
        p.efermi = number();
      else if (a == "--tol")
        p.tol = number();
      else if (a == "--skipped_gp")
        p.skipped_gp = integer();
      else if (a == "--policy")
        o.policy = v;
      else if (a == "--space")
        o.space = v;
      else if (a == "--repeat")
        o.repeat = integer();
      else if (a == "--warmup")
        o.warmup = integer();
      else if (a == "--tunable")
        o.tunables[v.substr(0, v.find('='))] = v.substr(v.find('=') + 1);
      else if (a == "--json")
        json = v;
      else
        throw gpp::Error("unknown option " + a);
    }
    if (json.empty()) throw gpp::Error("--json FILE is required");
    gpp::validate(p);
    gpp::api::Runtime runtime(kokkos);
    const gpp::InputDeck in = gpp::generate(p);
    const gpp::GppData<Kokkos::HostSpace> d = gpp::derive(in);
    gpp::api::Arrays a = gpp::test::api_arrays_of(d);
    a.achtemp0 = in.achtemp0;
    a.asxtemp0 = in.asxtemp0;
    o.static_remainder = false;  // gpp run times its kernels apart from the static remainder too
    const gpp::api::Result r = gpp::api::compute(a, o);
    std::ofstream(json) << r.record_json;
    std::printf("api: %s on the %s, median %.6g s over %zu runs\n", r.policy.c_str(), r.space.c_str(), r.time_median(),
                r.times.size());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpp_api_bench: %s\n", e.what());
    return 1;
  }
}
