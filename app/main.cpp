// gpp: the General Plasmon Pole self-energy kernel of BerkeleyGW.
#include "gpp_commands.hpp"
#include "gpp_mpi.hpp"
#include "gpp_placement.hpp"
#include "gpp_startup.hpp"
#include "gpp_stderr.hpp"
#include "gpp_text.hpp"

#include <Kokkos_Core.hpp>

#include <iostream>
#include <optional>

namespace {
int gpp_main(int argc, char* argv[]) {
  // MPI first, Kokkos after it (docs/mpi.md); without MPI this is one rank. Errors up to
  // the command are agreed on by every rank and printed once, by rank 0.
  gpp::mpi::Environment mpi_environment(argc, argv);
  const bool root = gpp::mpi::rank() == 0;
  bool allow_shared_device = false;
  std::vector<std::string> arg_strings = gpp::app::startup_arguments(argc, argv, allow_shared_device);
  std::vector<char*> arg_pointers;
  for (auto& a : arg_strings) arg_pointers.push_back(a.data());
  arg_pointers.push_back(nullptr);
  argc = int(arg_strings.size());
  argv = arg_pointers.data();
  auto agreed = [&](const std::string& error) {
    try {
      gpp::mpi::agree(error);
      return true;
    } catch (const gpp::mpi::CollectiveError& e) {
      if (root) std::cerr << "gpp: error: " << e.what() << "\n";
      return false;
    }
  };
  // Kokkos's settings are checked first and its initialisation is inside the error
  // handling: a bad KOKKOS_* variable or --kokkos-* option is one line and exit 1.
  if (!agreed(gpp::app::check_startup(argc, argv))) return 1;
  // Kokkos 3.4 prints its own help for --help (before gpp's usage or error): hide it.
  static char help_placeholder[] = "--gpp-help";
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--help") argv[i] = help_placeholder;
  std::optional<Kokkos::ScopeGuard> guard;
  std::string kokkos_error;
  // What Kokkos writes on stderr as it starts (warnings) goes into the provenance, not
  // between gpp's lines: a refusal stays one line wherever Kokkos warns.
  gpp::app::kokkos_warnings() = gpp::app::run_capturing_stderr([&] {
    try {
      guard.emplace(argc, argv);
      for (int i = 1; i < argc; ++i)
        if (argv[i] == help_placeholder) argv[i] = const_cast<char*>("--help");
    } catch (const std::exception& e) {
      kokkos_error = "Kokkos cannot start: " + gpp::app::one_line(e.what());
    }
  });
  if (!kokkos_error.empty())
    for (const std::string& w : gpp::app::kokkos_warnings()) kokkos_error += " [Kokkos: " + w + "]";
  if (!agreed(kokkos_error)) return 1;
  try {
    gpp::app::check_placement(allow_shared_device);
  } catch (const gpp::mpi::CollectiveError& e) {
    if (root) std::cerr << "gpp: error: " << e.what() << "\n";
    return 1;
  }
  // Every rank runs the same command line (what Kokkos left of it): a rank given another
  // command or other options would wait forever in a collective the others never reach.
  std::string command_line;
  for (int i = 1; i < argc; ++i) command_line += std::string(i > 1 ? " " : "") + argv[i];
  if (!agreed(gpp::mpi::compare_with_rank0("command line", command_line))) return 1;
  // Output from rank 0 only (the placement lines above were gathered to it).
  if (!root) {
    std::cout.rdbuf(nullptr);
    std::cerr.rdbuf(nullptr);
  }
  if (argc < 2) {
    gpp::app::usage(std::cerr);
    return 1;
  }
  const std::string command = argv[1];
  const std::vector<std::string> args(argv + 2, argv + argc);
  try {
    if (command == "-h" || command == "--help") {
      gpp::app::usage(std::cout);
      return 0;
    }
    if (command == "--version") return gpp::app::cmd_version(std::cout);
    const gpp::app::Command* c = gpp::app::find_command(command);
    if (!c) {
      std::string names;
      const auto& all = gpp::app::commands();
      for (std::size_t i = 0; i < all.size(); ++i)
        names += std::string(i == 0 ? "" : i + 1 == all.size() ? " or " : ", ") + all[i].name;
      std::cerr << "gpp: error: unknown command '" << gpp::app::one_line(command) << "' (expected " << names << ")\n";
      return 1;
    }
    if (gpp::mpi::size() > 1 && !c->many_ranks)
      throw gpp::mpi::CollectiveError("runs on one rank; under mpirun, use gpp run (docs/mpi.md)");
    return c->run(args);
  } catch (const gpp::mpi::CollectiveError& e) {  // every rank has it: rank 0 prints it
    std::cerr << "gpp " << command << ": error: " << gpp::app::one_line(e.what()) << "\n";
    return 1;
  } catch (const std::bad_alloc&) {
    return gpp::app::fail_this_rank(command, "out of host memory");
  } catch (const std::exception& e) {
    return gpp::app::fail_this_rank(command, gpp::app::one_line(e.what()));
  }
}
}  // namespace

int main(int argc, char* argv[]) { return gpp::app::run_with_stack(gpp_main, argc, argv); }
