#pragma once
// The readers' contract (docs/dev/testing.md, "Fuzzing"), on fuzz_contract.hpp's input
// files and checks: a reader either refuses the input with gpp::Error (the one exception
// type main turns into one line and exit 1) carrying a message, or returns a value that
// passes the reader's own checks, which each target restates as far as it can (a round
// trip through the matching writer where there is one). Anything else is a finding and
// aborts: another exception type (a std::out_of_range from a number conversion, a
// library's own exception: main would print it, but not say what in the file is wrong),
// a crash or undefined behaviour (AddressSanitizer, UndefinedBehaviorSanitizer), a hang
// (-timeout) or an allocation the input's size does not justify (-rss_limit_mb,
// -malloc_limit_mb).
#include "fuzz_contract.hpp"
#include "gpp_error.hpp"
#include "gpp_text.hpp"

#include <exception>
#include <string>
#include <typeinfo>

// The sanitizer runtime's interface, where one is linked: a replay build without a
// sanitizer (GPP_FUZZ_TARGETS=replay alone) has the header but not the runtime.
#if defined(__SANITIZE_ADDRESS__)
#define GPP_FUZZ_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(undefined_behavior_sanitizer)
#define GPP_FUZZ_SANITIZED 1
#endif
#endif
#if defined(GPP_FUZZ_SANITIZED) && defined(__has_include)
#if __has_include(<sanitizer/common_interface_defs.h>)
#include <sanitizer/common_interface_defs.h>
#define GPP_FUZZ_HAVE_SANITIZER_INTERFACE 1
#endif
#endif
#include <pthread.h>
#include <csignal>

namespace gpp::fuzz {

/// The HDF5 reader reads a file's structure first in a forked child, which may die of
/// what it finds there (formats/gpp_hdf5_io.cpp, preflight): gpp's contract is that the
/// parent then refuses the file in one line. In a child, libFuzzer's death callback and
/// alarm handler would still write the input out as a crash or a timeout of the target,
/// so a child dies as it does under gpp (a sanitizer still prints its report).
inline const bool kChildrenDieAsUnderGpp = [] {
  ::pthread_atfork(nullptr, nullptr, [] {
#ifdef GPP_FUZZ_HAVE_SANITIZER_INTERFACE
    __sanitizer_set_death_callback(nullptr);
#endif
    std::signal(SIGALRM, SIG_DFL);
  });
  return true;
}();

/// Runs `read` (the reader on one input) and `check` on what it returned: a refusal must
/// be a gpp::Error with a message; any other exception is a finding. Returns whether the
/// input was accepted.
template <class Read, class Check>
bool refused_or_valid(Read&& read, Check&& check) {
  bool accepted = false;
  try {
    auto value = read();
    accepted = true;
    check(value);
  } catch (const Error& e) {
    if (accepted) violated(std::string("the check of an accepted input threw: ") + e.what());
    expect(!files::one_line(e.what()).empty(), "a refusal without a message");
    return false;
  } catch (const std::exception& e) {
    violated(std::string("an exception other than gpp::Error (") + typeid(e).name() + "): " + e.what());
  }
  return true;
}

}  // namespace gpp::fuzz
