/* gpp's C interface (C99): the General Plasmon Pole sums on a caller's arrays
 * (docs/library.md). Opaque handles, a status code from every call, and the last error's
 * message; no C++ exception and no C++ or Kokkos type crosses it. The Fortran module
 * `gpp` (ISO_C_BINDING) is built on it.
 *
 * Arrays are the Fortran benchmark's (column-major, its shapes), in host memory, and are
 * read where they are: nothing the caller gave is written but the outputs of gpp_compute.
 * A complex array is pairs of doubles (re, im): C's double complex, Fortran's
 * complex(c_double_complex), NumPy's complex128. One that is 16-byte aligned (as the heap
 * gives it) is read in place; one only 8-byte aligned (a static or automatic array may
 * be) is copied into an aligned buffer first; one not 8-byte aligned is refused.
 *
 * Calls are not thread-safe: one call at a time in a process. */
#ifndef GPP_GPP_H
#define GPP_GPP_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Every call returns one of these; a failed call sets the message gpp_last_error returns. */
typedef enum gpp_status {
  GPP_OK = 0,
  GPP_ERROR_ARGUMENT = 1,     /* an array or option: wrong shape, null, not finite, unknown name */
  GPP_ERROR_RUNTIME = 2,      /* Kokkos cannot start (no device), was finalized, or no context */
  GPP_ERROR_POLICY = 3,       /* unknown policy or space, tunables it cannot run with */
  GPP_ERROR_VERIFICATION = 4, /* the sums differ from the reference beyond the tolerance */
  GPP_ERROR_MEMORY = 5,       /* out of host or device memory */
  GPP_ERROR_MPI = 6,          /* the communicator, or a build without MPI given one */
  GPP_ERROR_INTERNAL = 7      /* anything else (a bug: please report it) */
} gpp_status;

/* The message of the last call that failed on this thread, one line ("" if none failed
 * yet); valid until the next failing call. */
const char* gpp_last_error(void);
/* Records a binding's own refusal (the Fortran and Python modules check what only they
 * see: a non-contiguous array) as the last error; returns `status`. */
gpp_status gpp_report_error(int status, const char* message);
/* "GPP_ERROR_ARGUMENT", ... */
const char* gpp_status_name(int status);
/* The library's version, "1.0.0". */
const char* gpp_version(void);
/* 1 when the library was built with `feature`, 0 when not, -1 for a name it does not
 * know: "mpi" (gpp_set_mpi_comm), "device" (space "device" differs from "host"). */
int gpp_built_with(const char* feature);

/* A context: Kokkos for the library (as Kokkos::ScopeGuard: started unless it runs,
 * finalized when the last context that started it is destroyed; never one the caller
 * started) and the options of the computations. Kokkos cannot start twice in a process:
 * keep a context for as long as the program computes. */
typedef struct gpp_context gpp_context;
/* argc/argv: Kokkos's arguments (--kokkos-num-threads=8, ...); 0 and NULL for none. */
gpp_status gpp_context_create(gpp_context** context, int argc, const char* const* argv);
/* Destroys a context (NULL: nothing). */
gpp_status gpp_context_destroy(gpp_context* context);

/* Options by name, as text:
 *   policy            a policy of `gpp policies`; "" (default): tuned on a device, host on a CPU
 *   space             "host", "device", or "" (default: the device where there is one)
 *   verify            "yes" or "no" (default): against the fast reference, about one more run
 *   rtol              the verification's relative tolerance (default 1e-10)
 *   warmup, repeat    untimed and timed runs (default 0 and 1)
 *   static_remainder  "yes" (default) or "no": compute achstemp
 *   check_finite      "yes" (default) or "no": refuse NaN and Inf in the inputs
 *   progress          "yes" or "no" (default): say on stderr what the call does and how
 *                     long it will take, as the gpp command does
 *   tuning_file       a tuning file's path, "default" ($GPP_TUNING_FILE, else
 *                     ~/.config/gpp/tuning.json), or "" (default: none)
 * A tunable or param of the policy by its name ("band-block" = "64", "tile" = "32,4,1",
 * "loops" = "vector"); an empty value unsets it. */
gpp_status gpp_set_option(gpp_context* context, const char* name, const char* value);
gpp_status gpp_set_tunable(gpp_context* context, const char* name, const char* value);
/* MPI over G': the sums are added over this communicator, given as its Fortran handle
 * (MPI_Comm_c2f(comm)); each rank passes its own G' columns. -1: this process alone
 * (the default). GPP_ERROR_MPI in a build without MPI. */
gpp_status gpp_set_mpi_comm(gpp_context* context, int64_t fortran_comm);

/* A deck: the caller's arrays (pointers kept, nothing copied) and scalars. */
typedef struct gpp_deck gpp_deck;
gpp_status gpp_deck_create(gpp_deck** deck);
gpp_status gpp_deck_destroy(gpp_deck* deck);

typedef enum gpp_array {
  GPP_AQSNTEMP = 0,       /* complex (ncouls, nbands) */
  GPP_AQSMTEMP_LOCAL = 1, /* complex (ngpown, nbands) */
  GPP_I_EPS_ARRAY = 2,    /* complex (ncouls, ngpown) */
  GPP_WTILDE_ARRAY = 3,   /* complex (ncouls, ngpown) */
  GPP_WX_ARRAY_T = 4,     /* real (nw, nbands) */
  GPP_OCC_ARRAY = 5,      /* real (nbands): cols 1 */
  GPP_VCOUL_LOC = 6       /* real (ngpown): cols 1 */
} gpp_array;

typedef enum gpp_type {
  GPP_FLOAT64 = 0,    /* double, real(c_double) */
  GPP_COMPLEX128 = 1, /* double complex, complex(c_double_complex) */
  GPP_FLOAT32 = 2,    /* float: never right, named so that it is refused by name */
  GPP_COMPLEX64 = 3   /* float complex: likewise */
} gpp_type;

/* The array `which`: its element type, its first element, and its shape (rows, cols) as
 * the caller holds it, contiguous and column-major. Checked against the others at
 * gpp_compute: ncouls and nbands come from aqsntemp, ngpown from I_eps_array, nw from
 * wx_array_t. */
gpp_status gpp_deck_set_array(gpp_deck* deck, int which, int type, const void* data, int64_t rows, int64_t cols);
/* "sexcut" and "limittwo" (the benchmark's; no default), "nstart" (the first frequency's
 * index, for the record). */
gpp_status gpp_deck_set_scalar(gpp_deck* deck, const char* name, double value);

/* Computes the sums. achtemp and asxtemp: nw complex values each, achstemp one; on entry
 * the start values (as the benchmark's loop accumulates: achtemp += sch_sum, asxtemp -=
 * ssx_sum, achstemp += the static remainder), on return the results. Nothing is written
 * when the call fails; GPP_ERROR_VERIFICATION (verify "yes") writes nothing either, and
 * gpp_record_json has that run's record. */
gpp_status gpp_compute(gpp_context* context, const gpp_deck* deck, void* achtemp, void* asxtemp, void* achstemp,
                       int64_t nw);

/* The last computation of `context`: its run record as JSON (the schema of
 * `gpp run --json`, command "api"; "" before any), and named values: "time_median",
 * "time_min", "time_max" (kernel seconds over the timed runs), "transfer_s", "static_s",
 * "rel_error" (-1: not verified), "verified" (1 or 0), "repeat". */
const char* gpp_record_json(const gpp_context* context);
gpp_status gpp_result_value(const gpp_context* context, const char* name, double* value);

#ifdef __cplusplus
}
#endif

#endif /* GPP_GPP_H */
