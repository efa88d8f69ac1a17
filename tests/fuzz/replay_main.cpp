// The fuzz targets without libFuzzer (any compiler; the asan preset's g++): runs the
// target once on every file named on the command line or found in a directory named
// there, in sorted order, and says how many it ran. Used by ctest to replay each target's
// seed corpus and regression cases (docs/dev/testing.md, "Fuzzing"); a replay that finds
// no input at all fails, so that a misplaced corpus cannot pass unseen.
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

// Built with AddressSanitizer (GCC says __SANITIZE_ADDRESS__, clang __has_feature), whose
// shadow memory no address-space limit allows: its max_allocation_size_mb limits instead.
#if defined(__SANITIZE_ADDRESS__)
#define GPP_REPLAY_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GPP_REPLAY_ASAN 1
#endif
#endif

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
#ifndef GPP_REPLAY_ASAN
  // An input that makes a reader allocate gigabytes is a finding (the campaign's
  // -rss_limit_mb=2048): without ASan, 2 GiB of address space beyond what the process has
  // mapped as it starts ends it in std::bad_alloc, which no reader may let through as a
  // refusal.
  unsigned long long pages = 0;
  if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%llu", &pages) != 1) pages = 0;
    std::fclose(f);
  }
  const rlim_t bytes = rlim_t(pages) * rlim_t(::sysconf(_SC_PAGESIZE)) + (rlim_t(2) << 30);
  const rlimit limit{bytes, bytes};
  if (pages == 0 || ::setrlimit(RLIMIT_AS, &limit) != 0) std::perror("replay: no address-space limit");
#endif
  std::vector<fs::path> inputs;
  for (int i = 1; i < argc; ++i) {
    const fs::path p(argv[i]);
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      std::vector<fs::path> here;
      for (const auto& e : fs::directory_iterator(p))
        if (e.is_regular_file()) here.push_back(e.path());
      std::sort(here.begin(), here.end());
      inputs.insert(inputs.end(), here.begin(), here.end());
    } else if (fs::is_regular_file(p, ec)) {
      inputs.push_back(p);
    } else {
      std::fprintf(stderr, "replay: %s is neither a file nor a directory\n", argv[i]);
      return 2;
    }
  }
  if (inputs.empty()) {
    std::fprintf(stderr, "replay: no input found in the %d paths given\n", argc - 1);
    return 2;
  }
  for (const auto& p : inputs) {
    std::ifstream f(p, std::ios::binary);
    const std::vector<char> bytes{std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
    if (!f.good() && !f.eof()) {
      std::fprintf(stderr, "replay: cannot read %s\n", p.c_str());
      return 2;
    }
    std::fprintf(stderr, "replay: %s (%zu bytes)\n", p.c_str(), bytes.size());
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  }
  std::printf("replayed %zu inputs\n", inputs.size());
  return 0;
}
