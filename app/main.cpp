// gpp: the General Plasmon Pole self-energy kernel of BerkeleyGW.
#include "gpp_cli.hpp"
#include "gpp_io_cli.hpp"
#include "gpp_roofline.hpp"
#include "gpp_startup.hpp"

#include <Kokkos_Core.hpp>

#include <iostream>
#include <optional>

namespace {
void usage(std::ostream& o) {
  o << "gpp: the General Plasmon Pole (GPP) self-energy kernel of BerkeleyGW, in Kokkos\n\n"
       "usage: gpp COMMAND [options]    (gpp COMMAND --help for a command's options)\n"
       "       gpp --version            (version, git hash, Kokkos version and backends)\n\n"
       "commands:\n"
       "  run       run a deck with one policy, a list, or all; time and verify it\n"
       "  bench     time a list of policies on a deck; table, CSV and JSON rows\n"
       "  sweep     time and verify every point of a grid of tunables; CSV, best point, tuning file\n"
       "  tune      search a policy's tunables (coordinate descent) and write the tuning file\n"
       "  ceilings  measure the FP64 peak and each memory level's bandwidth (JSON for charts)\n"
       "  roofline  times, counted and profiled FLOPs and bytes of policies (roofline CSV)\n"
       "  convert   convert between synthetic decks, the original .dat file and HDF5 decks\n"
       "  policies  list the execution policies and their tunables\n\n"
       "Kokkos options (--kokkos-num-threads=N, ...) may be given anywhere.\n";
}
}  // namespace

int main(int argc, char* argv[]) {
  // Kokkos's settings are checked first and its initialisation is inside the error
  // handling: a bad KOKKOS_* variable or --kokkos-* option is one line and exit 1.
  if (const std::string why = gpp::app::check_startup(argc, argv); !why.empty()) {
    std::cerr << "gpp: error: " << why << "\n";
    return 1;
  }
  // Kokkos 3.4 prints its own help for --help (before gpp's usage or error): hide it.
  static char help_placeholder[] = "--gpp-help";
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--help") argv[i] = help_placeholder;
  std::optional<Kokkos::ScopeGuard> guard;
  try {
    guard.emplace(argc, argv);
    for (int i = 1; i < argc; ++i)
      if (argv[i] == help_placeholder) argv[i] = const_cast<char*>("--help");
  } catch (const std::exception& e) {
    std::cerr << "gpp: error: Kokkos cannot start: " << gpp::app::one_line(e.what()) << "\n";
    return 1;
  }
  if (argc < 2) {
    usage(std::cerr);
    return 1;
  }
  const std::string command = argv[1];
  const std::vector<std::string> args(argv + 2, argv + argc);
  try {
    if (command == "-h" || command == "--help") {
      usage(std::cout);
      return 0;
    }
    if (command == "--version") return gpp::app::cmd_version(std::cout);
    if (command == "run") return gpp::app::cmd_run(args);
    if (command == "convert") return gpp::app::cmd_convert(args);
    if (command == "policies") return gpp::app::cmd_policies(args);
    if (command == "bench") return gpp::app::cmd_bench(args);
    if (command == "sweep") return gpp::app::cmd_sweep(args);
    if (command == "tune") return gpp::app::cmd_tune(args);
    if (command == "ceilings") return gpp::app::cmd_ceilings(args);
    if (command == "roofline") return gpp::app::cmd_roofline(args);
    std::cerr << "gpp: error: unknown command '" << gpp::app::one_line(command) << "' (expected run, bench, sweep, tune, ceilings, roofline, convert or policies)\n";
    return 1;
  } catch (const std::bad_alloc&) {
    std::cerr << "gpp " << command << ": error: out of host memory\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "gpp " << command << ": error: " << gpp::app::one_line(e.what()) << "\n";
    return 1;
  }
}
