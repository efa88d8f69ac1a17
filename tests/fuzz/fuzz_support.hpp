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

namespace gpp::fuzz {

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
