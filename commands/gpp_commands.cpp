#include "gpp_commands.hpp"

namespace gpp::commands {

const std::vector<Command>& all() {
  static const std::vector<Command> table = {
      {"run", "run a deck with one policy, a list, or all; time and verify it", cmd_run, true},
      {"bench", "time a list of policies on a deck; table, CSV and JSON rows", cmd_bench, false},
      {"sweep", "time and verify every point of a grid of tunables; CSV, best point, tuning file", cmd_sweep, false},
      {"tune", "search a policy's tunables (coordinate descent) and write the tuning file", cmd_tune, false},
      {"ceilings", "measure the FP64 peak and each memory level's bandwidth (JSON for charts)", cmd_ceilings, false},
      {"roofline", "times, counted and profiled FLOPs and bytes of policies (roofline CSV)", cmd_roofline, false},
      {"convert", "convert between synthetic decks, the original .dat file and HDF5 decks", cmd_convert, false},
      {"policies", "list the execution policies and their tunables", cmd_policies, true},
  };
  return table;
}

const Command* find_command(const std::string& name) {
  for (const Command& c : all())
    if (name == c.name) return &c;
  return nullptr;
}

void usage(std::ostream& o) {
  o << "gpp: the General Plasmon Pole (GPP) self-energy kernel of BerkeleyGW, in Kokkos\n\n"
       "usage: gpp COMMAND [options]    (gpp COMMAND --help for a command's options)\n"
       "       gpp --version            (version, git hash, Kokkos version and backends)\n\n"
       "commands:\n";
  for (const Command& c : all()) {
    const std::string name = c.name;
    o << "  " << name << std::string(name.size() < 10 ? 10 - name.size() : 1, ' ') << c.summary << "\n";
  }
  o << "\nKokkos options (--kokkos-num-threads=N, ...) may be given anywhere.\n";
}

}  // namespace gpp::commands
