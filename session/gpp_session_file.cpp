// Sessions whose input is a file: the original Fortran .dat or an HDF5 deck.
#include "gpp_compat.hpp"
#include "gpp_deck_io.hpp"
#include "gpp_memory.hpp"
#include "gpp_mpi.hpp"
#include "gpp_runtime.hpp"
#include "gpp_session.hpp"
#include "gpp_stop.hpp"

#include <chrono>
#include <cstdio>
#include <sstream>

namespace gpp::session {
using formats::deck_format_for_reading;
using formats::read_deck_file;
using formats::ReadStats;

namespace {
double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
std::string stem(const std::string& path) {
  const auto slash = path.find_last_of('/');
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  const auto dot = base.find_last_of('.');
  std::string name = dot == std::string::npos || dot == 0 ? base : base.substr(0, dot);
  for (char& c : name)  // a label, never a way to forge an output line
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) c = '_';
  return name.size() > 128 ? name.substr(0, 128) : name;
}
}  // namespace

Session make_session_from_file(const std::string& path, const std::string& name, const GpShare& share) {
  Session s;
  s.params.name = name.empty() ? stem(path) : name;
  s.params.generator = "file";
  s.params.seed = 0;
  s.synthetic = false;
  runtime::need_host_views();
  {
    compat::ScopedRegion region("gpp::setup");
    const auto t0 = std::chrono::steady_clock::now();
    ReadStats stats;
    {
      compat::ScopedRegion read_region("gpp::read");
      const files::StopPhase phase("reading " + path);
      s.input = read_deck_file(path, &stats);
    }
    const files::StopPhase phase("the setup (the arrays derived from " + path + ")");
    s.read_s = stats.read_s;
    s.check_s = stats.check_s;
    s.read_bytes = stats.bytes;
    s.source = path + ", " + describe(deck_format_for_reading(path));
    s.params.nbands = s.input.peinf_ntband_dist;
    s.params.ngpown = s.input.ngpown;
    s.ngpown_total = s.input.ngpown;
    s.updates_total = double(s.input.peinf_ntband_dist) * s.input.ngpown * double(s.input.ncouls) * s.input.nw();
    // Every rank reads the whole file and keeps its G' columns (docs/mpi.md: no scatter
    // of 2^31+ byte messages, the same checks and the same error on every rank); the
    // whole file is released before the derived arrays are made.
    s.share = share;
    // The whole file, before this rank keeps its share; only ranks compare it.
    if (mpi::size() > 1) s.deck_digest = digest_of(s.input);
    if (!share.whole()) s.input = keep_share(s.input, share);
    s.params.ncouls = s.input.ncouls;
    s.params.nvband = s.input.nvband;
    s.params.nstart = s.input.nstart;
    s.params.nend = s.input.nend;
    // The file is read and checked: now Kokkos and the device (docs/install.md).
    runtime::start();
    check_memory_fits(path, s.input.peinf_ntband_dist, s.input.ngpown, s.input.ncouls, s.input.nw(), true);
    s.host = derive(s.input);
    s.setup_s = seconds_since(t0);
  }
  s.input_path = path;
  return s;
}

std::string describe_read(const Session& s) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "read: %.1f MiB in %.3g s (%.3g GB/s); checked in %.3g s\n", s.read_bytes / 1048576.0,
                s.read_s, s.read_s > 0 ? s.read_bytes / s.read_s / 1e9 : 0.0, s.check_s);
  return buf;
}

}  // namespace gpp::session
