// The C interface (include/gpp/gpp.h) on the C++ API: handles own the C++ objects, every
// call catches everything and returns a status, the message kept per thread.
#include <gpp/gpp.h>
#include <gpp/gpp.hpp>

#include "gpp_api_internal.hpp"
#include "gpp_text.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <memory>
#include <new>
#include <string>

struct gpp_context {
  std::unique_ptr<gpp::api::Runtime> runtime;
  gpp::api::Options options;
  bool have_result = false;
  gpp::api::Result result;
};

struct gpp_deck {
  gpp::api::Arrays arrays;
};

namespace gpp::api {
namespace {

thread_local std::string last_error;

// The message is one line whatever the caller's bytes in it (an option's name, a binding's
// text): a newline or a control character is written as an escape, as the command does.
gpp_status fail(gpp_status s, const std::string& message) {
  last_error = files::one_line(message);
  return s;
}

// f() with every exception as a status and its message.
template <class F>
gpp_status guarded(F&& f) {
  try {
    return f();
  } catch (const Error& e) {
    return fail(gpp_status(int(e.status())), e.what());
  } catch (const std::bad_alloc&) {
    return fail(GPP_ERROR_MEMORY, "out of host memory");
  } catch (const std::exception& e) {
    return fail(GPP_ERROR_INTERNAL, e.what());
  } catch (...) {
    return fail(GPP_ERROR_INTERNAL, "unknown error");
  }
}

std::string text(const char* s, const char* what) {
  if (!s) throw Error(Status::argument, std::string(what) + " is a null pointer");
  const std::size_t n = strnlen(s, 4097);
  if (n > 4096) throw Error(Status::argument, std::string(what) + " is longer than 4096 characters");
  return std::string(s, n);
}

bool yes_no(const std::string& name, const std::string& value) {
  if (value == "yes" || value == "1" || value == "true") return true;
  if (value == "no" || value == "0" || value == "false") return false;
  throw Error(Status::argument, "option " + name + " takes yes or no (got '" + value + "')");
}

int integer(const std::string& name, const std::string& value, int lo, int hi) {
  char* end = nullptr;
  const long v = std::strtol(value.c_str(), &end, 10);
  if (value.empty() || *end != '\0' || v < lo || v > hi)
    throw Error(Status::argument, "option " + name + " takes an integer in " + std::to_string(lo) + ".." +
                                      std::to_string(hi) + " (got '" + value + "')");
  return int(v);
}

double real(const std::string& name, const std::string& value) {
  char* end = nullptr;
  const double v = std::strtod(value.c_str(), &end);
  if (value.empty() || *end != '\0' || !std::isfinite(v) || !(v > 0))
    throw Error(Status::argument, "option " + name + " takes a positive number (got '" + value + "')");
  return v;
}

void need(const void* p, const char* what) {
  if (!p) throw Error(Status::argument, std::string(what) + " is a null pointer");
}

}  // namespace
}  // namespace gpp::api

using namespace gpp::api;

extern "C" {

const char* gpp_last_error(void) { return last_error.c_str(); }

gpp_status gpp_report_error(int status, const char* message) {
  last_error =
      message ? gpp::files::one_line(std::string(message, strnlen(message, 4096))) : std::string("(no message)");
  return status >= GPP_OK && status <= GPP_ERROR_INTERNAL ? gpp_status(status) : GPP_ERROR_INTERNAL;
}

const char* gpp_status_name(int status) {
  switch (status) {
    case GPP_OK:
      return "GPP_OK";
    case GPP_ERROR_ARGUMENT:
      return "GPP_ERROR_ARGUMENT";
    case GPP_ERROR_RUNTIME:
      return "GPP_ERROR_RUNTIME";
    case GPP_ERROR_POLICY:
      return "GPP_ERROR_POLICY";
    case GPP_ERROR_VERIFICATION:
      return "GPP_ERROR_VERIFICATION";
    case GPP_ERROR_MEMORY:
      return "GPP_ERROR_MEMORY";
    case GPP_ERROR_MPI:
      return "GPP_ERROR_MPI";
    case GPP_ERROR_INTERNAL:
      return "GPP_ERROR_INTERNAL";
    default:
      return "unknown gpp_status";
  }
}

const char* gpp_version(void) {
  static const std::string v = [] {
    try {
      return version();
    } catch (...) {
      return std::string("unknown");
    }
  }();
  return v.c_str();
}

int gpp_built_with(const char* feature) {
  try {
    if (!feature) return -1;
    const BuildFeatures f = build_features();
    if (std::strcmp(feature, "mpi") == 0) return f.mpi ? 1 : 0;
    if (std::strcmp(feature, "device") == 0) return f.device_space ? 1 : 0;
    return -1;
  } catch (...) {
    return -1;
  }
}

gpp_status gpp_context_create(gpp_context** context, int argc, const char* const* argv) {
  return guarded([&] {
    need(context, "context");
    *context = nullptr;
    if (argc < 0 || (argc > 0 && !argv))
      throw Error(Status::argument, "argc = " + std::to_string(argc) + " with argv " + (argv ? "given" : "NULL"));
    std::vector<std::string> args;
    for (int i = 0; i < argc; ++i) args.push_back(text(argv[i], "argv[i]"));
    auto c = std::make_unique<gpp_context>();
    c->runtime = std::make_unique<Runtime>(args);
    *context = c.release();
    return GPP_OK;
  });
}

gpp_status gpp_context_destroy(gpp_context* context) {
  return guarded([&] {
    delete context;
    return GPP_OK;
  });
}

gpp_status gpp_set_option(gpp_context* context, const char* name_c, const char* value_c) {
  return guarded([&] {
    need(context, "context");
    const std::string name = text(name_c, "name"), value = text(value_c, "value");
    Options& o = context->options;
    if (name == "policy") {
      o.policy = value;
    } else if (name == "space") {
      o.space = value;
    } else if (name == "verify") {
      o.verify = yes_no(name, value);
    } else if (name == "rtol") {
      o.rtol = real(name, value);
    } else if (name == "warmup") {
      o.warmup = integer(name, value, 0, 1000000);
    } else if (name == "repeat") {
      o.repeat = integer(name, value, 1, 1000000);
    } else if (name == "static_remainder") {
      o.static_remainder = yes_no(name, value);
    } else if (name == "check_finite") {
      o.check_finite = yes_no(name, value);
    } else if (name == "progress") {
      o.progress = yes_no(name, value);
    } else if (name == "tuning_file") {
      o.tuning_file = value;
    } else {
      throw Error(Status::argument, "unknown option '" + name +
                                        "' (options: policy, space, verify, rtol, warmup, repeat, static_remainder, "
                                        "check_finite, progress, tuning_file; tunables: gpp_set_tunable)");
    }
    return GPP_OK;
  });
}

gpp_status gpp_set_tunable(gpp_context* context, const char* name_c, const char* value_c) {
  return guarded([&] {
    need(context, "context");
    const std::string name = text(name_c, "name"), value = text(value_c, "value");
    if (name.empty()) throw Error(Status::argument, "a tunable's name is empty");
    if (value.empty())
      context->options.tunables.erase(name);
    else
      context->options.tunables[name] = value;
    return GPP_OK;
  });
}

gpp_status gpp_set_mpi_comm(gpp_context* context, int64_t fortran_comm) {
  return guarded([&] {
    need(context, "context");
    check_communicator(fortran_comm);
    context->options.mpi_comm = fortran_comm;
    return GPP_OK;
  });
}

gpp_status gpp_deck_create(gpp_deck** deck) {
  return guarded([&] {
    need(deck, "deck");
    *deck = new gpp_deck();
    return GPP_OK;
  });
}

gpp_status gpp_deck_destroy(gpp_deck* deck) {
  return guarded([&] {
    delete deck;
    return GPP_OK;
  });
}

gpp_status gpp_deck_set_array(gpp_deck* deck, int which, int type, const void* data, int64_t rows, int64_t cols) {
  return guarded([&] {
    need(deck, "deck");
    static const char* const names[] = {"aqsntemp",   "aqsmtemp_local", "I_eps_array", "wtilde_array",
                                        "wx_array_t", "occ_array",      "vcoul_loc"};
    static const char* const types[] = {"float64 (double)", "complex128 (double complex)", "float32 (float)",
                                        "complex64 (float complex)"};
    if (which < GPP_AQSNTEMP || which > GPP_VCOUL_LOC)
      throw Error(Status::argument, "array number " + std::to_string(which) + " is not a gpp_array (0..6)");
    const std::string name = names[which];
    const bool complex_array = which <= GPP_WTILDE_ARRAY;
    const int want = complex_array ? GPP_COMPLEX128 : GPP_FLOAT64;
    if (type < GPP_FLOAT64 || type > GPP_COMPLEX64)
      throw Error(Status::argument, name + ": element type " + std::to_string(type) + " is not a gpp_type (0..3)");
    if (type != want) throw Error(Status::argument, name + " must be " + types[want] + ", not " + types[type]);
    need(data, name.c_str());
    if (rows < 0 || cols < 0)
      throw Error(Status::argument,
                  name + ": negative shape (" + std::to_string(rows) + ", " + std::to_string(cols) + ")");
    Arrays& a = deck->arrays;
    const auto* z = static_cast<const std::complex<double>*>(data);
    const auto* x = static_cast<const double*>(data);
    switch (which) {
      case GPP_AQSNTEMP:
        a.aqsntemp = {z, rows, cols};
        break;
      case GPP_AQSMTEMP_LOCAL:
        a.aqsmtemp_local = {z, rows, cols};
        break;
      case GPP_I_EPS_ARRAY:
        a.I_eps_array = {z, rows, cols};
        break;
      case GPP_WTILDE_ARRAY:
        a.wtilde_array = {z, rows, cols};
        break;
      case GPP_WX_ARRAY_T:
        a.wx_array_t = {x, rows, cols};
        break;
      default: {
        if (cols != 1)
          throw Error(Status::argument, name + " is a vector: its shape is (n, 1), not (" + std::to_string(rows) +
                                            ", " + std::to_string(cols) + ")");
        (which == GPP_OCC_ARRAY ? a.occ_array : a.vcoul_loc) = {x, rows};
      }
    }
    return GPP_OK;
  });
}

gpp_status gpp_deck_set_scalar(gpp_deck* deck, const char* name_c, double value) {
  return guarded([&] {
    need(deck, "deck");
    const std::string name = text(name_c, "name");
    if (name == "sexcut") {
      deck->arrays.sexcut = value;
    } else if (name == "limittwo") {
      deck->arrays.limittwo = value;
    } else if (name == "nstart") {
      if (!(std::abs(value) <= 1000000) || value != std::floor(value))
        throw Error(Status::argument, "nstart must be an integer in -1000000..1000000");
      deck->arrays.nstart = int(value);
    } else {
      throw Error(Status::argument, "unknown scalar '" + name + "' (scalars: sexcut, limittwo, nstart)");
    }
    if (!std::isfinite(value)) throw Error(Status::argument, name + " is not finite");
    return GPP_OK;
  });
}

gpp_status gpp_compute(gpp_context* context, const gpp_deck* deck, void* achtemp, void* asxtemp, void* achstemp,
                       int64_t nw) {
  return guarded([&] {
    need(context, "context");
    need(deck, "deck");
    if (!context->runtime) throw Error(Status::runtime, "the context has no runtime");
    need(achtemp, "achtemp");
    need(asxtemp, "asxtemp");
    need(achstemp, "achstemp");
    check_arrays(deck->arrays);  // the deck's first problem before the outputs are read
    if (nw != deck->arrays.wx_array_t.rows)
      throw Error(Status::argument, "achtemp and asxtemp have nw = " + std::to_string(nw) + " values; wx_array_t has " +
                                        std::to_string(deck->arrays.wx_array_t.rows) + " frequencies (its rows)");
    auto* ach = static_cast<std::complex<double>*>(achtemp);
    auto* asx = static_cast<std::complex<double>*>(asxtemp);
    auto* achs = static_cast<std::complex<double>*>(achstemp);
    Arrays a = deck->arrays;
    a.achtemp0.assign(ach, ach + nw);
    a.asxtemp0.assign(asx, asx + nw);
    const std::complex<double> achstemp0 = *achs;
    if (!std::isfinite(achstemp0.real()) || !std::isfinite(achstemp0.imag()))
      throw Error(Status::argument, "achstemp (its start value) is not finite");
    context->have_result = false;
    Result r = compute(a, context->options);
    context->result = std::move(r);
    context->have_result = true;
    const Result& res = context->result;
    if (context->options.verify && !res.verified)
      return fail(GPP_ERROR_VERIFICATION, "verification failed: relative error " +
                                              gpp::files::number_text(res.rel_error) +
                                              " against the reference (tolerance " +
                                              gpp::files::number_text(res.tolerance) + "); the outputs are unchanged");
    std::copy(res.achtemp.begin(), res.achtemp.end(), ach);
    std::copy(res.asxtemp.begin(), res.asxtemp.end(), asx);
    *achs = achstemp0 + res.achstemp;
    return GPP_OK;
  });
}

const char* gpp_record_json(const gpp_context* context) {
  if (!context || !context->have_result) return "";
  return context->result.record_json.c_str();
}

gpp_status gpp_result_value(const gpp_context* context, const char* name_c, double* value) {
  return guarded([&] {
    need(context, "context");
    need(value, "value");
    const std::string name = text(name_c, "name");
    if (!context->have_result) throw Error(Status::argument, "no computation yet: gpp_compute first");
    const Result& r = context->result;
    if (name == "time_median") {
      *value = r.time_median();
    } else if (name == "time_min") {
      *value = *std::min_element(r.times.begin(), r.times.end());
    } else if (name == "time_max") {
      *value = *std::max_element(r.times.begin(), r.times.end());
    } else if (name == "transfer_s") {
      *value = r.transfer_s;
    } else if (name == "static_s") {
      *value = r.static_s;
    } else if (name == "rel_error") {
      *value = r.rel_error;
    } else if (name == "verified") {
      *value = r.verified ? 1 : 0;
    } else if (name == "repeat") {
      *value = double(r.times.size());
    } else {
      throw Error(Status::argument, "unknown result value '" + name +
                                        "' (values: time_median, time_min, time_max, transfer_s, static_s, rel_error, "
                                        "verified, repeat)");
    }
    return GPP_OK;
  });
}

}  // extern "C"
