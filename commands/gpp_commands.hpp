#pragma once
// The command table: every `gpp COMMAND`, its one-line summary for the usage text, and
// whether it runs under MPI with several ranks. Adding a command is a cmd_NAME.cpp and
// one row in gpp_commands.cpp, both in this room.
#include <ostream>
#include <string>
#include <vector>

namespace gpp::commands {

int cmd_run(const std::vector<std::string>& args);
int cmd_bench(const std::vector<std::string>& args);
int cmd_sweep(const std::vector<std::string>& args);
int cmd_tune(const std::vector<std::string>& args);
int cmd_ceilings(const std::vector<std::string>& args);
int cmd_roofline(const std::vector<std::string>& args);
int cmd_convert(const std::vector<std::string>& args);
int cmd_policies(const std::vector<std::string>& args);
/// `gpp --version`: version, git hash, Kokkos version and the backends compiled in.
int cmd_version(std::ostream& out);

/// Thrown by a command that stops because its standard output cannot be written (a full
/// disk, /dev/full): main reports it, in the one line it prints for every command.
struct StdoutLost {};

struct Command {
  const char* name;
  const char* summary;
  int (*run)(const std::vector<std::string>& args);
  bool many_ranks;  // runs under mpirun with more than one rank (docs/mpi.md)
};

/// Every command, in the order the usage text lists them.
const std::vector<Command>& all();

/// The command named `name`, or null.
const Command* find_command(const std::string& name);

/// The usage text (`gpp --help`, and `gpp` alone on stderr).
void usage(std::ostream& out);

}  // namespace gpp::commands
