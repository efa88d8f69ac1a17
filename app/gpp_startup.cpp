#include "gpp_startup.hpp"

#include "gpp_runtime.hpp"
#include "gpp_text.hpp"

#include <Kokkos_Macros.hpp>

#include <dlfcn.h>
#include <pthread.h>
#include <sys/resource.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace gpp::app {
using files::one_line;

namespace {

// A whole non-negative decimal integer of at most 9 digits (no sign, no spaces).
bool small_count(const std::string& v, bool allow_zero) {
  if (v.empty() || v.size() > 9) return false;
  for (char c : v)
    if (c < '0' || c > '9') return false;
  return allow_zero || std::stol(v) > 0;
}

// INT or INT,INT (KOKKOS_NUM_DEVICES / --kokkos-num-devices).
bool count_list(const std::string& v) {
  const auto comma = v.find(',');
  if (comma == std::string::npos) return small_count(v, false);
  return small_count(v.substr(0, comma), false) && small_count(v.substr(comma + 1), true);
}

struct Setting {
  const char* env;     // environment variable, nullptr if none
  const char* option;  // --kokkos-NAME (also accepted by Kokkos 3.4 without "kokkos-")
  const char* legacy;  // Kokkos 3.4's unprefixed spelling, nullptr if none
  enum { Count, CountOrZero, CountList, Flag, MapBy, Text } kind;
  bool dropped;         // not read by Kokkos 4.3 and later (deprecated in 3.7, #6744)
  const char* instead;  // what those versions read instead, nullptr if nothing
};

const Setting kSettings[] = {
    {"KOKKOS_NUM_THREADS", "--kokkos-num-threads", nullptr, Setting::Count, false, nullptr},
    {nullptr, "--kokkos-threads", "--threads", Setting::Count, true, "--kokkos-num-threads"},
    {"KOKKOS_NUMA", "--kokkos-numa", "--numa", Setting::Count, true, nullptr},
    {"KOKKOS_DEVICE_ID", "--kokkos-device-id", "--device-id", Setting::CountOrZero, false, nullptr},
    {nullptr, "--kokkos-device", "--device", Setting::CountOrZero, true, "--kokkos-device-id"},
    {"KOKKOS_NUM_DEVICES", "--kokkos-num-devices", "--num-devices", Setting::CountList, true,
     "--kokkos-device-id or KOKKOS_VISIBLE_DEVICES"},
    {nullptr, "--kokkos-ndevices", "--ndevices", Setting::CountList, true,
     "--kokkos-device-id or KOKKOS_VISIBLE_DEVICES"},
    {"KOKKOS_SKIP_DEVICE", nullptr, nullptr, Setting::CountOrZero, true, "KOKKOS_VISIBLE_DEVICES"},
    {"KOKKOS_RAND_DEVICES", nullptr, nullptr, Setting::Flag, true, nullptr},
    {"KOKKOS_DISABLE_WARNINGS", "--kokkos-disable-warnings", nullptr, Setting::Flag, false, nullptr},
    // Kokkos 4.x aborts on any other value (Kokkos 3.4 ignores the variable).
    {"KOKKOS_MAP_DEVICE_ID_BY", "--kokkos-map-device-id-by", nullptr, Setting::MapBy, false, nullptr},
    {"KOKKOS_TUNE_INTERNALS", "--kokkos-tune-internals", nullptr, Setting::Flag, false, nullptr},
    {"KOKKOS_PRINT_CONFIGURATION", "--kokkos-print-configuration", nullptr, Setting::Flag, false, nullptr},
};

// Kokkos 4.3 and later read only these options (core/src/impl/Kokkos_Core.cpp and the
// tools' options); any other --kokkos-* gets a warning from Kokkos and then an
// "unexpected argument" from gpp's parser: two lines. The legacy unprefixed spellings are
// ordinary unknown options there.
constexpr bool kModernKokkos = KOKKOS_VERSION >= 40300;
const char* const kModernOptions[] = {
    "--kokkos-num-threads",    "--kokkos-device-id",  "--kokkos-disable-warnings", "--kokkos-print-configuration",
    "--kokkos-tune-internals", "--kokkos-help",       "--kokkos-map-device-id-by", "--kokkos-tools-libs",
    "--kokkos-tools-library",  "--kokkos-tools-args", "--kokkos-tools-help"};

// KOKKOS_TOOLS_LIBS and --kokkos-tools-libs= are Kokkos 3.7's names for the tools library;
// an older Kokkos ignores them without a word (and the run has no profile).
constexpr bool kToolsLibsNames = KOKKOS_VERSION >= 30700;

std::string kokkos_version() {
  return std::to_string(KOKKOS_VERSION / 10000) + "." + std::to_string(KOKKOS_VERSION / 100 % 100) + "." +
         std::to_string(KOKKOS_VERSION % 100);
}

// One line for a setting this Kokkos no longer reads.
std::string dropped(const std::string& what, const Setting& s, const char* then) {
  return what + ": Kokkos " + kokkos_version() + " does not read it (dropped in Kokkos 4.3); " +
         (s.instead ? std::string("use ") + s.instead + " instead" : std::string(then));
}

std::string expected(const Setting& s) {
  switch (s.kind) {
    case Setting::Count:
      return "a positive integer";
    case Setting::CountOrZero:
      return "a non-negative integer";
    case Setting::CountList:
      return "a positive integer, or two separated by a comma";
    case Setting::Flag:
      return "on, off, true, false, yes, no, 1 or 0";
    case Setting::MapBy:
      return "mpi_rank or random";
    default:
      return "a value";
  }
}

bool valid(const Setting& s, const std::string& v) {
  switch (s.kind) {
    case Setting::Count:
      return small_count(v, false);
    case Setting::CountOrZero:
      return small_count(v, true);
    case Setting::CountList:
      return count_list(v);
    case Setting::Flag: {
      std::string l;
      for (char c : v) l += char(std::tolower(static_cast<unsigned char>(c)));
      for (const char* ok : {"on", "off", "true", "false", "yes", "no", "1", "0"})
        if (l == ok) return true;
      return false;
    }
    case Setting::MapBy:
      return v == "mpi_rank" || v == "random";
    default:
      return true;
  }
}

// Printable form of a value for a one-line message.
std::string shown(const std::string& v) {
  std::string out;
  for (unsigned char c : v.substr(0, 40)) {
    if (c >= 0x20 && c < 0x7f) {
      out += char(c);
    } else {
      static const char hex[] = "0123456789abcdef";
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return "'" + out + (v.size() > 40 ? "...'" : "'");
}

// The functions Kokkos looks up in a tools library (Kokkos_Profiling.cpp). A library that
// defines none of them is no tool: Kokkos 4 runs without it, Kokkos 5 aborts with a
// backtrace ("No profiling interface symbols were found").
const char* const kToolFunctions[] = {"kokkosp_init_library",
                                      "kokkosp_finalize_library",
                                      "kokkosp_begin_parallel_for",
                                      "kokkosp_end_parallel_for",
                                      "kokkosp_begin_parallel_reduce",
                                      "kokkosp_end_parallel_reduce",
                                      "kokkosp_begin_parallel_scan",
                                      "kokkosp_end_parallel_scan",
                                      "kokkosp_push_profile_region",
                                      "kokkosp_pop_profile_region",
                                      "kokkosp_allocate_data",
                                      "kokkosp_deallocate_data",
                                      "kokkosp_begin_deep_copy",
                                      "kokkosp_end_deep_copy",
                                      "kokkosp_begin_fence",
                                      "kokkosp_end_fence",
                                      "kokkosp_declare_metadata",
                                      "kokkosp_create_profile_section",
                                      "kokkosp_start_profile_section",
                                      "kokkosp_stop_profile_section",
                                      "kokkosp_destroy_profile_section",
                                      "kokkosp_profile_event",
                                      "kokkosp_dual_view_sync",
                                      "kokkosp_dual_view_modify",
                                      "kokkosp_parse_args",
                                      "kokkosp_print_help",
                                      "kokkosp_request_tool_settings",
                                      "kokkosp_provide_tool_programming_interface"};

// Kokkos loads a tools library (KOKKOS_TOOLS_LIBS or its older name KOKKOS_PROFILE_LIBRARY,
// --kokkos-tools-libs= or --kokkos-tools-library=; a ';'-separated list) as it starts. One it
// cannot load is a warning among the run's output and a run without the tool, exit 0: the
// profile the user asked for silently missing. Each is loaded here as Kokkos loads it
// (dlopen, RTLD_NOW: the same search path, every symbol resolved), looked at for the
// functions of the tools interface, and released.
std::string check_tools_libraries(const std::string& what, const std::string& list) {
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t end = std::min(list.find(';', start), list.size());
    const std::string library = list.substr(start, end - start);
    start = end + 1;
    if (library.empty()) continue;
    void* handle = ::dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char* why = ::dlerror();
      return what + ": cannot load the Kokkos tools library " + shown(library) + " (" +
             one_line(why ? why : "dlopen failed") + ")";
    }
    bool tool = false;
    for (const char* f : kToolFunctions) tool = tool || ::dlsym(handle, f) != nullptr;
    ::dlclose(handle);
    if (!tool)
      return what + ": " + shown(library) +
             " is not a Kokkos tools library (it defines none of the kokkosp_* functions Kokkos looks up, "
             "such as kokkosp_init_library)";
  }
  return "";
}

}  // namespace

std::string check_startup(int argc, char* argv[]) {
  // A file-size limit (ulimit -f) then fails the write with EFBIG, reported as an I/O error.
  std::signal(SIGXFSZ, SIG_IGN);
  for (const Setting& s : kSettings) {
    if (!s.env) continue;
    const char* v = std::getenv(s.env);
    if (v && kModernKokkos && s.dropped)
      return dropped(std::string("environment variable ") + s.env + "=" + shown(v), s, "unset it");
    if (v && !valid(s, v))
      return std::string("environment variable ") + s.env + "=" + shown(v) + ": expected " + expected(s);
  }
  if (!kToolsLibsNames && std::getenv("KOKKOS_TOOLS_LIBS"))
    return "environment variable KOKKOS_TOOLS_LIBS: Kokkos " + kokkos_version() +
           " does not read it (a name of Kokkos 3.7 and later); set KOKKOS_PROFILE_LIBRARY";
  if (std::string why = runtime::check_huge_pages_setting(); !why.empty()) return why;
  for (const char* env : {"KOKKOS_TOOLS_LIBS", "KOKKOS_PROFILE_LIBRARY"})
    if (const char* v = std::getenv(env))
      if (std::string why = check_tools_libraries(std::string("environment variable ") + env, v); !why.empty())
        return why;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--", 0) != 0) continue;
    const auto eq = a.find('=');
    const std::string name = a.substr(0, eq);
    if (!kToolsLibsNames && name == "--kokkos-tools-libs")
      return "option --kokkos-tools-libs: Kokkos " + kokkos_version() +
             " does not read it (a name of Kokkos 3.7 and later); use --kokkos-tools-library=";
    if ((name == "--kokkos-tools-libs" || name == "--kokkos-tools-library") && eq != std::string::npos)
      if (std::string why = check_tools_libraries("option " + name, a.substr(eq + 1)); !why.empty()) return why;
    if (kModernKokkos && name.rfind("--kokkos-", 0) == 0) {
      bool known = false;
      for (const char* o : kModernOptions) known = known || name == o;
      if (!known) {
        for (const Setting& s : kSettings)
          if (s.option && name == s.option) return dropped("option " + one_line(name), s, "leave it out");
        return "option " + one_line(name) + ": not an option of Kokkos " + kokkos_version() +
               " (--kokkos-num-threads, --kokkos-device-id, --kokkos-map-device-id-by, --kokkos-disable-warnings, "
               "--kokkos-print-configuration, --kokkos-tune-internals, --kokkos-tools-*, --kokkos-help)";
      }
    }
    for (const Setting& s : kSettings) {
      const bool match = (s.option && name == s.option) || (s.legacy && name == s.legacy && !kModernKokkos);
      if (!match) continue;
      if (s.kind == Setting::Flag) {
        if (eq != std::string::npos && !valid(s, a.substr(eq + 1)))
          return "option " + name + "=" + shown(a.substr(eq + 1)) + ": expected " + expected(s);
      } else if (eq == std::string::npos) {
        return "option " + name + " needs a value: " + name + "=N (" + expected(s) + ")";
      } else if (!valid(s, a.substr(eq + 1))) {
        return "option " + name + "=" + shown(a.substr(eq + 1)) + ": expected " + expected(s);
      }
    }
  }
  return "";
}

std::string thread_settings_note(int argc, char* argv[], const std::string& host) {
  std::vector<std::string> given;  // the settings given, as the user wrote them
  const char* omp = std::getenv("OMP_NUM_THREADS");
  const char* kokkos = std::getenv("KOKKOS_NUM_THREADS");
  bool kokkos_option = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const std::string name = a.substr(0, a.find('='));
    if (name == "--kokkos-num-threads" || name == "--kokkos-threads" || (!kModernKokkos && name == "--threads")) {
      kokkos_option = true;
      given.push_back(one_line(a));
    }
  }
  if (host == "Serial") {
    if (omp) given.insert(given.begin(), "OMP_NUM_THREADS=" + one_line(omp));
    if (kokkos) given.insert(given.begin() + (omp ? 1 : 0), "KOKKOS_NUM_THREADS=" + one_line(kokkos));
    if (given.empty()) return "";
    std::string list;
    for (std::size_t i = 0; i < given.size(); ++i)
      list += (i == 0 ? "" : i + 1 == given.size() ? " and " : ", ") + given[i];
    return "note: " + list + (given.size() == 1 ? " does" : " do") +
           " nothing in this build: its host backend is Kokkos Serial, one thread (the openmp and threads "
           "presets run several: docs/guide/backends.md)";
  }
  if (host == "Threads" && omp && !kokkos && !kokkos_option)
    return "note: OMP_NUM_THREADS=" + one_line(omp) +
           " does nothing in this build: its host backend is Kokkos Threads, which reads KOKKOS_NUM_THREADS (or "
           "--kokkos-num-threads=N) and runs one thread without it";
  return "";
}

int run_with_stack(int (*body)(int, char**), const int argc, char** argv) {
  constexpr std::size_t kStackBytes = std::size_t(8) << 20;
  rlimit limit{};
  if (getrlimit(RLIMIT_STACK, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY || limit.rlim_cur >= kStackBytes)
    return body(argc, argv);
  struct Call {
    int (*body)(int, char**);
    int argc;
    char** argv;
    int result;
  } call{body, argc, argv, 1};
  pthread_attr_t attr;
  if (pthread_attr_init(&attr) != 0) return body(argc, argv);
  pthread_attr_setstacksize(&attr, kStackBytes);
  pthread_setattr_default_np(&attr);  // GNU: the default of later pthread_create calls
  pthread_t thread;
  const auto start = [](void* p) -> void* {
    auto* c = static_cast<Call*>(p);
    c->result = c->body(c->argc, c->argv);
    return nullptr;
  };
  const int created = pthread_create(&thread, &attr, start, &call);
  pthread_attr_destroy(&attr);
  if (created != 0) return body(argc, argv);
  pthread_join(thread, nullptr);
  return call.result;
}

}  // namespace gpp::app
