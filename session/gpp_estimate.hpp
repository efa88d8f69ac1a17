#pragma once
// What a command's phases are expected to take before any of them ran: priors of about
// 0.6 of the rates measured on the machines docs/wall-time.md names (half an H100's on a
// device), so that an estimate errs long but by less than 2x there; per policy and per
// kind of space. A phase replaces them by the rate it measures as soon as a piece of its
// work is timed (session/gpp_progress.hpp).
#include "gpp_spaces.hpp"

#include <string>

namespace gpp::session {

/// Updates per second `policy` reaches at least on space k (all of the space's threads
/// on the host).
double prior_update_rate(const std::string& policy, SpaceKind k);

/// Updates per second of the fast reference (session/gpp_fast_reference.hpp) on space k.
double prior_reference_rate(SpaceKind k);

/// Complex multiply-adds per second of the static remainder's product on space k.
double prior_static_rate(SpaceKind k);

/// Bytes of a deck's arrays per second of generating them and deriving the kernel's.
double prior_setup_rate();

}  // namespace gpp::session
