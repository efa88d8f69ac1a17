// gpp: the General Plasmon Pole self-energy kernel of BerkeleyGW.
#include "gpp_commands.hpp"
#include "gpp_mpi.hpp"
#include "gpp_placement.hpp"
#include "gpp_runtime.hpp"
#include "gpp_spaces.hpp"
#include "gpp_startup.hpp"
#include "gpp_stop.hpp"
#include "gpp_text.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <streambuf>

namespace {
// Kokkos, when a command started it, ends before MPI does.
struct KokkosEnd {
  KokkosEnd() = default;
  KokkosEnd(const KokkosEnd&) = delete;
  KokkosEnd& operator=(const KokkosEnd&) = delete;
  ~KokkosEnd() { gpp::runtime::stop(); }
};

// std::cout written through C's stdout, as libstdc++'s own buffer does it (so that lines
// Kokkos prints with printf keep their place), remembering why the first write failed: by
// the end of the command errno has long been overwritten.
class CheckedStdout : public std::streambuf {
 public:
  int error() const { return error_; }

 protected:
  int_type overflow(int_type c) override {
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    return std::fputc(c, stdout) == EOF ? failed() : c;
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    const std::size_t written = std::fwrite(s, 1, std::size_t(n), stdout);
    if (written < std::size_t(n)) failed();
    return std::streamsize(written);
  }
  int sync() override { return std::fflush(stdout) == 0 ? 0 : (failed(), -1); }

 private:
  int_type failed() {
    if (error_ == 0) error_ = errno != 0 ? errno : EIO;
    return traits_type::eof();
  }
  int error_ = 0;
};

// The command line's answer: its exit status, once its results or its error line are
// printed. Errors up to the command are agreed on by every rank and printed once, by rank 0.
int answer(int argc, char* argv[]) {
  const bool root = gpp::session::mpi::rank() == 0;
  bool allow_shared_device = false;
  std::vector<std::string> arg_strings = gpp::session::startup_arguments(argc, argv, allow_shared_device);
  std::vector<char*> arg_pointers;
  for (auto& a : arg_strings) arg_pointers.push_back(a.data());
  arg_pointers.push_back(nullptr);
  argc = int(arg_strings.size());
  argv = arg_pointers.data();
  auto agreed = [&](const std::string& error) {
    try {
      gpp::session::mpi::agree(error);
      return true;
    } catch (const gpp::session::mpi::CollectiveError& e) {
      if (root) std::cerr << "gpp: error: " << e.what() << "\n";
      return false;
    }
  };
  // Kokkos's settings are checked first: a bad KOKKOS_* variable or --kokkos-* option is
  // one line and exit 1. Kokkos itself starts later, when the command needs it, after
  // the checks of its input (gpp_runtime.hpp): its options are kept for then.
  if (!agreed(gpp::app::check_startup(argc, argv))) return 1;
  gpp::runtime::set_thread_note(gpp::app::thread_settings_note(argc, argv, gpp::HostExec::name()));
  arg_strings = gpp::runtime::take_kokkos_arguments(arg_strings);
  arg_pointers.clear();
  for (auto& a : arg_strings) arg_pointers.push_back(a.data());
  arg_pointers.push_back(nullptr);
  argc = int(arg_strings.size());
  argv = arg_pointers.data();
  if (gpp::runtime::kokkos_help_requested()) {  // Kokkos prints its help as it starts
    std::string error;
    try {
      gpp::runtime::start();
    } catch (const std::exception& e) {
      error = e.what();
    }
    if (!agreed(error)) return 1;
  }
  // Every rank runs the same command line (what Kokkos left of it): a rank given another
  // command or other options would wait forever in a collective the others never reach.
  std::string command_line;
  for (int i = 1; i < argc; ++i) command_line += std::string(i > 1 ? " " : "") + argv[i];
  if (!agreed(gpp::session::mpi::compare_with_rank0("command line", command_line))) return 1;
  // Output from rank 0 only (placement lines are gathered to it).
  if (!root) {
    std::cout.rdbuf(nullptr);
    std::cerr.rdbuf(nullptr);
  }
  if (argc < 2) {
    gpp::commands::usage(std::cerr);
    return 1;
  }
  const std::string command = argv[1];
  const std::vector<std::string> args(argv + 2, argv + argc);
  try {
    if (command == "-h" || command == "--help") {
      gpp::commands::usage(std::cout);
      return 0;
    }
    if (command == "--version") return gpp::commands::cmd_version(std::cout);
    const gpp::commands::Command* c = gpp::commands::find_command(command);
    if (!c) {
      std::string names;
      const auto& all = gpp::commands::all();
      for (std::size_t i = 0; i < all.size(); ++i)
        names += std::string(i == 0 ? "" : i + 1 == all.size() ? " or " : ", ") + all[i].name;
      std::cerr << "gpp: error: unknown command '" << gpp::files::one_line(command) << "' (expected " << names << ")\n";
      return 1;
    }
    if (gpp::session::mpi::size() > 1 && !c->many_ranks)
      throw gpp::session::mpi::CollectiveError("runs on one rank; under mpirun, use gpp run (docs/mpi.md)");
    // Ctrl-C and SIGTERM, in any phase of any command: one line, exit 130 or 143.
    gpp::files::catch_stop_signals(command, root);
    return c->run(args);
  } catch (const gpp::commands::StdoutLost&) {  // main's check of stdout prints the line
    return 1;
  } catch (const gpp::session::mpi::CollectiveError& e) {  // every rank has it: rank 0 prints it
    std::cerr << "gpp " << command << ": error: " << gpp::files::one_line(e.what()) << "\n";
    return 1;
  } catch (const std::bad_alloc&) {
    return gpp::session::fail_this_rank(command, "out of host memory");
  } catch (const std::exception& e) {
    return gpp::session::fail_this_rank(command, gpp::files::one_line(e.what()));
  }
}

int gpp_main(int argc, char* argv[]) {
  // MPI first, Kokkos after it (docs/mpi.md); without MPI this is one rank.
  gpp::session::mpi::Environment mpi_environment(argc, argv);
  const KokkosEnd kokkos_end;
  const int rc = answer(argc, argv);
  // The answer is out before the teardown: a signal from now on keeps it and its status.
  // Every rank waits for rank 0's lines: one that exits non-zero first makes mpirun end
  // the others with SIGTERM, which could cut rank 0's line off.
  std::cout.flush();
  std::fflush(stdout);
  // An answer that did not reach stdout (a full disk under `>`) ends in status 1, and main
  // says why; other ranks print nothing.
  const bool lost = gpp::session::mpi::rank() == 0 && (std::cout.bad() || std::ferror(stdout));
  gpp::files::answer_given(rc == 0 && lost ? 1 : rc);
  gpp::session::mpi::barrier();
  return rc;
}
}  // namespace

int main(int argc, char* argv[]) {
  const std::string who = argc > 1 ? "gpp " + gpp::files::one_line(argv[1]) : std::string("gpp");
  // A closed stdout would be the first file opened later: an output's bytes and printed
  // lines mixed in one file.
  if (::fcntl(STDOUT_FILENO, F_GETFD) == -1) {
    std::cerr << who << ": error: standard output is closed (redirect it to a file or /dev/null)\n";
    return 1;
  }
  CheckedStdout checked;
  std::streambuf* const original = std::cout.rdbuf(&checked);
  const int rc = gpp::app::run_with_stack(gpp_main, argc, argv);
  // What was printed reached stdout, or the command fails: a full disk or /dev/full under
  // `>` loses the output, which exit 0 would hide. Other ranks print nothing (their
  // std::cout has no buffer), so only rank 0 can find an error here.
  std::cout.flush();
  errno = 0;
  const bool flushed = std::fflush(stdout) == 0;
  const int flush_error = errno;
  std::cout.rdbuf(original);  // before `checked` goes: std::cout is flushed again at exit
  if (flushed && checked.error() == 0 && !std::ferror(stdout)) return rc;
  const int error = checked.error() != 0 ? checked.error() : !flushed && flush_error != 0 ? flush_error : EIO;
  std::cerr << who << ": error: cannot write standard output: " << std::strerror(error) << "\n";
  return rc != 0 ? rc : 1;
}
