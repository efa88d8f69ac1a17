// The Python module `gpp` (docs/library.md): the C++ API on NumPy arrays. Arrays in
// Fortran order (column-major, the benchmark's shapes) are read where they are; a
// C-ordered or strided array is refused, or copied into Fortran order when the call
// says copy=True (the result lists what was copied). Sums come back as NumPy values, the
// run record as a dict.
#include <gpp/gpp.hpp>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <complex>
#include <memory>
#include <string>
#include <vector>

namespace py = pybind11;
using gpp::api::Error;
using gpp::api::Status;

namespace {

const char* status_name(Status s) {
  switch (s) {
    case Status::ok:
      return "ok";
    case Status::argument:
      return "argument";
    case Status::runtime:
      return "runtime";
    case Status::policy:
      return "policy";
    case Status::verification:
      return "verification";
    case Status::memory:
      return "memory";
    case Status::mpi:
      return "mpi";
    default:
      return "internal";
  }
}

// Kokkos for the module: made on first use (or by gpp.initialize), ended at exit.
std::unique_ptr<gpp::api::Runtime>& runtime() {
  static std::unique_ptr<gpp::api::Runtime> r;
  return r;
}

void initialize(const std::vector<std::string>& kokkos_args) {
  if (!runtime()) runtime() = std::make_unique<gpp::api::Runtime>(kokkos_args);
}

// One input array: its dtype and rank checked, in Fortran order (copied there only with
// `copy`, its name then added to `copied`). The returned array keeps the memory alive.
py::array take(const char* name, const py::handle& given, bool complex_values, int ndim, bool copy,
               std::vector<std::string>& copied) {
  if (given.is_none()) throw Error(Status::argument, std::string(name) + " is None");
  if (!py::isinstance<py::array>(given))
    throw Error(Status::argument, std::string(name) + " must be a NumPy array, not " +
                                      std::string(py::str(py::type::handle_of(given).attr("__name__"))));
  py::array a = py::reinterpret_borrow<py::array>(given);
  const py::dtype want = complex_values ? py::dtype::of<std::complex<double>>() : py::dtype::of<double>();
  if (!a.dtype().is(want) && !a.dtype().equal(want))
    throw Error(Status::argument, std::string(name) + " must be " + (complex_values ? "complex128" : "float64") +
                                      ", not " + std::string(py::str(a.dtype())) + " (no conversion is made)");
  if (a.ndim() != ndim)
    throw Error(Status::argument, std::string(name) + " must have " + std::to_string(ndim) + " dimension" +
                                      (ndim == 1 ? "" : "s") + ", not " + std::to_string(a.ndim()));
  if (!(a.flags() & py::array::f_style)) {
    if (!copy)
      throw Error(Status::argument, std::string(name) + " is not in Fortran order (column-major, contiguous)" +
                                        (a.flags() & py::array::c_style ? ": it is C-ordered" : ": it is strided") +
                                        "; pass numpy.asfortranarray(" + name +
                                        ") or the transpose of a C-ordered array of the "
                                        "reversed shape (no copy), or copy=True (a Fortran-ordered copy)");
    a = py::array::ensure(a, py::array::f_style | py::array::forcecast);
    copied.push_back(name);
  }
  return a;
}

template <class T>
gpp::api::Matrix<T> matrix(const py::array& a) {
  return {static_cast<const T*>(a.data()), std::int64_t(a.shape(0)), std::int64_t(a.shape(1))};
}
gpp::api::Vector<double> vector(const py::array& a) {
  return {static_cast<const double*>(a.data()), std::int64_t(a.shape(0))};
}

std::vector<std::complex<double>> start_values(const char* name, const py::handle& given) {
  if (given.is_none()) return {};
  py::array_t<std::complex<double>, py::array::forcecast> a =
      py::array_t<std::complex<double>, py::array::forcecast>::ensure(given);
  if (!a || a.ndim() != 1)
    throw Error(Status::argument, std::string(name) + " must be a 1-dimensional array of complex values");
  return std::vector<std::complex<double>>(a.data(), a.data() + a.shape(0));
}

py::dict compute(const py::handle& aqsntemp, const py::handle& aqsmtemp_local, const py::handle& I_eps_array,
                 const py::handle& wtilde_array, const py::handle& wx_array_t, const py::handle& occ_array,
                 const py::handle& vcoul_loc, double sexcut, double limittwo, int nstart, const py::handle& achtemp0,
                 const py::handle& asxtemp0, const std::string& policy, const std::string& space,
                 const std::map<std::string, py::object>& tunables, const std::string& tuning_file, bool verify,
                 double rtol, int warmup, int repeat, bool static_remainder, bool check_finite, std::int64_t mpi_comm,
                 bool copy, bool progress) {
  std::vector<std::string> copied;
  const py::array a_aqsn = take("aqsntemp", aqsntemp, true, 2, copy, copied);
  const py::array a_aqsm = take("aqsmtemp_local", aqsmtemp_local, true, 2, copy, copied);
  const py::array a_ieps = take("I_eps_array", I_eps_array, true, 2, copy, copied);
  const py::array a_wt = take("wtilde_array", wtilde_array, true, 2, copy, copied);
  const py::array a_wx = take("wx_array_t", wx_array_t, false, 2, copy, copied);
  const py::array a_occ = take("occ_array", occ_array, false, 1, copy, copied);
  const py::array a_vc = take("vcoul_loc", vcoul_loc, false, 1, copy, copied);
  gpp::api::Arrays arrays;
  arrays.aqsntemp = matrix<std::complex<double>>(a_aqsn);
  arrays.aqsmtemp_local = matrix<std::complex<double>>(a_aqsm);
  arrays.I_eps_array = matrix<std::complex<double>>(a_ieps);
  arrays.wtilde_array = matrix<std::complex<double>>(a_wt);
  arrays.wx_array_t = matrix<double>(a_wx);
  arrays.occ_array = vector(a_occ);
  arrays.vcoul_loc = vector(a_vc);
  arrays.sexcut = sexcut;
  arrays.limittwo = limittwo;
  arrays.nstart = nstart;
  arrays.achtemp0 = start_values("achtemp0", achtemp0);
  arrays.asxtemp0 = start_values("asxtemp0", asxtemp0);
  gpp::api::Options o;
  o.policy = policy;
  o.space = space;
  for (const auto& [name, value] : tunables) o.tunables[name] = std::string(py::str(value));
  o.tuning_file = tuning_file;
  o.verify = verify;
  o.rtol = rtol;
  o.warmup = warmup;
  o.repeat = repeat;
  o.static_remainder = static_remainder;
  o.check_finite = check_finite;
  o.mpi_comm = mpi_comm;
  o.progress = progress;
  initialize({});
  gpp::api::Result r;
  {
    py::gil_scoped_release unlocked;  // the arrays stay referenced above
    r = gpp::api::compute(arrays, o);
  }
  py::dict out;
  out["achtemp"] = py::array_t<std::complex<double>>(py::ssize_t(r.achtemp.size()), r.achtemp.data());
  out["asxtemp"] = py::array_t<std::complex<double>>(py::ssize_t(r.asxtemp.size()), r.asxtemp.data());
  out["achstemp"] = r.achstemp;
  out["policy"] = r.policy;
  out["space"] = r.space;
  out["backend"] = r.backend;
  out["tunables"] = r.tunables;
  out["tunables_source"] = r.tunables_source;
  out["times"] = py::array_t<double>(py::ssize_t(r.times.size()), r.times.data());
  out["time_median"] = r.time_median();
  out["transfer_s"] = r.transfer_s;
  out["static_s"] = r.static_s;
  out["verified"] = r.verified;
  out["rel_error"] = verify ? py::object(py::float_(r.rel_error)) : py::object(py::none());
  out["copied"] = copied;
  out["record"] = py::module_::import("json").attr("loads")(r.record_json);
  return out;
}

}  // namespace

PYBIND11_MODULE(gpp, m) {
  m.doc() =
      "gpp: the General Plasmon Pole self-energy sums (BerkeleyGW's GPP kernel) on NumPy arrays, through the "
      "kernels and policies of the gpp command (docs/library.md).";
  static py::exception<Error> error(m, "Error", PyExc_RuntimeError);
  // gpp.Error, with the status of the C++ Error as its .status ("argument", "runtime", ...).
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Error& e) {
      py::object value = py::handle(error.ptr())(e.what());
      value.attr("status") = status_name(e.status());
      PyErr_SetObject(error.ptr(), value.ptr());
    }
  });
  m.def("version", &gpp::api::version, "The library's version");
  m.def(
      "build_features",
      [] {
        const gpp::api::BuildFeatures f = gpp::api::build_features();
        py::dict d;
        d["kokkos_version"] = f.kokkos_version;
        d["kokkos_backends"] = f.kokkos_backends;
        d["device_space"] = f.device_space;
        d["mpi"] = f.mpi;
        d["policies"] = f.policies;
        return d;
      },
      "What the library was built with: Kokkos version and backends, a device space, MPI, the policies");
  m.def("initialize", &initialize, py::arg("kokkos_args") = std::vector<std::string>{},
        "Start Kokkos for the module unless it runs (compute does it on first use); kokkos_args: "
        "['--kokkos-num-threads=8', ...]. Kokkos ends when Python exits, never one the caller started.");
  m.def("compute", &compute, py::arg("aqsntemp"), py::arg("aqsmtemp_local"), py::arg("I_eps_array"),
        py::arg("wtilde_array"), py::arg("wx_array_t"), py::arg("occ_array"), py::arg("vcoul_loc"), py::kw_only(),
        py::arg("sexcut"), py::arg("limittwo"), py::arg("nstart") = 1, py::arg("achtemp0") = py::none(),
        py::arg("asxtemp0") = py::none(), py::arg("policy") = "", py::arg("space") = "",
        py::arg("tunables") = std::map<std::string, py::object>{}, py::arg("tuning_file") = "",
        py::arg("verify") = false, py::arg("rtol") = 1e-10, py::arg("warmup") = 0, py::arg("repeat") = 1,
        py::arg("static_remainder") = true, py::arg("check_finite") = true, py::arg("mpi_comm") = -1,
        py::arg("copy") = false, py::arg("progress") = false,
        "The sums of the arrays (Fortran order, the benchmark's shapes: aqsntemp (ncouls, nbands), aqsmtemp_local "
        "(ngpown, nbands), I_eps_array and wtilde_array (ncouls, ngpown) complex128; wx_array_t (nw, nbands), "
        "occ_array (nbands), vcoul_loc (ngpown) float64). Returns a dict: achtemp, asxtemp (NumPy, nw), achstemp, "
        "times, policy, space, tunables, verified, rel_error, copied, record (the run record); progress=True says on "
        "stderr what it does and how long it takes. Raises gpp.Error "
        "(its .status: argument, runtime, policy, memory, mpi, internal).");
  // Kokkos ends before the interpreter does (atexit runs while the module still exists).
  py::module_::import("atexit").attr("register")(py::cpp_function([] { runtime().reset(); }));
}
