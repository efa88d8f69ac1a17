/* Bad input at the C interface (<gpp/gpp.h>): each case is refused with its status and a
 * one-line message naming the problem, the caller's process goes on, and nothing is
 * written outside the output arrays: the inputs keep their bytes, the outputs (with a
 * guard element on each side) keep theirs on every refusal, and a successful call writes
 * the outputs and nothing beside them.
 *
 *   test_c_api            every case
 *   test_c_api no-device  run with GPP_TEST_NO_DEVICE=1: the context cannot start Kokkos */
#include <gpp/gpp.h>

#include <complex.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NCOULS = 23, NGPOWN = 5, NBANDS = 7, NW = 2 };

#include "c_test_deck.h"

/* The outputs inside guards: out[0] and out[NW + 1] must never change. */
static double complex ach[NW + 2], asx[NW + 2], achs[3];
static int failures = 0;

static uint64_t digest(const void* p, size_t n) {
  const unsigned char* b = p;
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ULL;
  return h;
}
static uint64_t inputs(void) {
  return digest(aqsntemp, sizeof aqsntemp) ^ 3 * digest(aqsmtemp_local, sizeof aqsmtemp_local) ^
         5 * digest(I_eps_array, sizeof I_eps_array) ^ 7 * digest(wtilde_array, sizeof wtilde_array) ^
         11 * digest(wx_array_t, sizeof wx_array_t) ^ 13 * digest(occ_array, sizeof occ_array) ^
         17 * digest(vcoul_loc, sizeof vcoul_loc);
}
static uint64_t outputs(void) {
  return digest(ach, sizeof ach) ^ 3 * digest(asx, sizeof asx) ^ 5 * digest(achs, sizeof achs);
}

static void reset_outputs(void) {
  for (int i = 0; i < NW + 2; ++i) ach[i] = asx[i] = 7.0 + 7.0 * I;
  for (int i = 0; i < 3; ++i) achs[i] = 7.0 + 7.0 * I;
  ach[1] = asx[1] = achs[1] = 0; /* start values of the outputs */
  ach[2] = asx[2] = 0;
}

/* A call must give `want`, and its message must hold `text` on one line. */
static void expect(const char* what, gpp_status got, gpp_status want, const char* text) {
  const char* msg = gpp_last_error();
  const int ok = got == want && (want == GPP_OK || (strstr(msg, text) && !strchr(msg, '\n')));
  printf("%s %-44s %s%s%s\n", ok ? "ok  " : "FAIL", what, gpp_status_name(got), want == GPP_OK ? "" : ": ",
         want == GPP_OK ? "" : msg);
  if (!ok) {
    printf("     expected %s with '%s'\n", gpp_status_name(want), text);
    ++failures;
  }
}

static gpp_deck* full_deck(void) {
  gpp_deck* d = NULL;
  gpp_deck_create(&d);
  gpp_deck_set_array(d, GPP_AQSNTEMP, GPP_COMPLEX128, aqsntemp, NCOULS, NBANDS);
  gpp_deck_set_array(d, GPP_AQSMTEMP_LOCAL, GPP_COMPLEX128, aqsmtemp_local, NGPOWN, NBANDS);
  gpp_deck_set_array(d, GPP_I_EPS_ARRAY, GPP_COMPLEX128, I_eps_array, NCOULS, NGPOWN);
  gpp_deck_set_array(d, GPP_WTILDE_ARRAY, GPP_COMPLEX128, wtilde_array, NCOULS, NGPOWN);
  gpp_deck_set_array(d, GPP_WX_ARRAY_T, GPP_FLOAT64, wx_array_t, NW, NBANDS);
  gpp_deck_set_array(d, GPP_OCC_ARRAY, GPP_FLOAT64, occ_array, NBANDS, 1);
  gpp_deck_set_array(d, GPP_VCOUL_LOC, GPP_FLOAT64, vcoul_loc, NGPOWN, 1);
  gpp_deck_set_scalar(d, "sexcut", 4.0);
  gpp_deck_set_scalar(d, "limittwo", 0.25);
  return d;
}

/* gpp_compute on `d` must be refused with `want` and leave every output as it was. */
static void refused(gpp_context* ctx, const gpp_deck* d, const char* what, gpp_status want, const char* text) {
  reset_outputs();
  const uint64_t before = outputs(), in = inputs();
  expect(what, gpp_compute(ctx, d, ach + 1, asx + 1, achs + 1, NW), want, text);
  if (outputs() != before || inputs() != in) {
    printf("FAIL %s: wrote outside the outputs, or the outputs of a refused call\n", what);
    ++failures;
  }
}

int main(int argc, char** argv) {
  make_deck(99, 3, -2.0, 1.3);
  if (argc > 1 && strcmp(argv[1], "no-device") == 0) {
    gpp_context* ctx = NULL;
    expect("context without the device", gpp_context_create(&ctx, 0, NULL), GPP_ERROR_RUNTIME, "GPP_TEST_NO_DEVICE");
    expect("no context made", ctx == NULL ? GPP_OK : GPP_ERROR_INTERNAL, GPP_OK, "");
    return failures ? 1 : 0;
  }
  gpp_context* ctx = NULL;
  expect("context: null handle pointer", gpp_context_create(NULL, 0, NULL), GPP_ERROR_ARGUMENT, "context is a null");
  const char* bad_args[] = {"--threads=2"};
  expect("context: not a Kokkos argument", gpp_context_create(&ctx, 1, bad_args), GPP_ERROR_ARGUMENT,
         "is not a Kokkos argument");
  expect("context", gpp_context_create(&ctx, 0, NULL), GPP_OK, "");
  if (!ctx) return 1;

  gpp_deck* d = full_deck();
  const uint64_t in = inputs();
  /* Refused when set. */
  expect("array: wrong element type", gpp_deck_set_array(d, GPP_AQSNTEMP, GPP_FLOAT64, aqsntemp, NCOULS, NBANDS),
         GPP_ERROR_ARGUMENT, "aqsntemp must be complex128 (double complex), not float64 (double)");
  expect("array: single precision", gpp_deck_set_array(d, GPP_WX_ARRAY_T, GPP_FLOAT32, wx_array_t, NW, NBANDS),
         GPP_ERROR_ARGUMENT, "wx_array_t must be float64 (double), not float32 (float)");
  expect("array: null pointer", gpp_deck_set_array(d, GPP_VCOUL_LOC, GPP_FLOAT64, NULL, NGPOWN, 1), GPP_ERROR_ARGUMENT,
         "vcoul_loc is a null pointer");
  expect("array: unknown array", gpp_deck_set_array(d, 9, GPP_FLOAT64, vcoul_loc, NGPOWN, 1), GPP_ERROR_ARGUMENT,
         "array number 9 is not a gpp_array");
  expect("array: negative shape", gpp_deck_set_array(d, GPP_OCC_ARRAY, GPP_FLOAT64, occ_array, -1, 1),
         GPP_ERROR_ARGUMENT, "negative shape");
  expect("scalar: NaN", gpp_deck_set_scalar(d, "sexcut", NAN), GPP_ERROR_ARGUMENT, "sexcut is not finite");
  expect("scalar: unknown", gpp_deck_set_scalar(d, "gamma", 0.5), GPP_ERROR_ARGUMENT, "unknown scalar 'gamma'");
  expect("option: unknown", gpp_set_option(ctx, "threads", "4"), GPP_ERROR_ARGUMENT, "unknown option 'threads'");
  /* A caller's bytes in a message are escaped: the message stays one line. */
  expect("option: a newline in its name", gpp_set_option(ctx, "a\nb", "4"), GPP_ERROR_ARGUMENT,
         "unknown option 'a\\nb'");
  expect("binding's refusal with a newline", gpp_report_error(GPP_ERROR_ARGUMENT, "line one\nline two"),
         GPP_ERROR_ARGUMENT, "line one\\nline two");
  expect("option: bad value", gpp_set_option(ctx, "repeat", "-3"), GPP_ERROR_ARGUMENT, "option repeat takes");
  expect("option: null value", gpp_set_option(ctx, "policy", NULL), GPP_ERROR_ARGUMENT, "value is a null pointer");
  if (!gpp_built_with("mpi")) expect("mpi communicator", gpp_set_mpi_comm(ctx, 0), GPP_ERROR_MPI, "built without MPI");
  expect("a feature gpp does not know", gpp_built_with("quantum") == -1 ? GPP_OK : GPP_ERROR_INTERNAL, GPP_OK, "");
  gpp_deck_destroy(d);

  /* Refused at gpp_compute, nothing written. */
  d = full_deck();
  gpp_deck_set_array(d, GPP_AQSMTEMP_LOCAL, GPP_COMPLEX128, aqsmtemp_local, NBANDS, NGPOWN);
  refused(ctx, d, "shape: transposed aqsmtemp_local", GPP_ERROR_ARGUMENT,
          "aqsmtemp_local is (7, 5); it must be (ngpown, nbands) = (5, 7)");
  gpp_deck_destroy(d);
  d = full_deck();
  gpp_deck_set_array(d, GPP_OCC_ARRAY, GPP_FLOAT64, occ_array, NBANDS - 1, 1);
  refused(ctx, d, "size: occ_array short", GPP_ERROR_ARGUMENT, "occ_array is (6, 1); it must be (nbands) = (7, 1)");
  gpp_deck_destroy(d);
  d = full_deck();
  /* Shapes whose arrays could not exist (2^30 x 2^30 complex: 2^64 bytes), over small
   * arrays: refused before an element is read. */
  gpp_deck_set_array(d, GPP_AQSNTEMP, GPP_COMPLEX128, aqsntemp, (int64_t)1 << 30, NBANDS);
  gpp_deck_set_array(d, GPP_I_EPS_ARRAY, GPP_COMPLEX128, I_eps_array, (int64_t)1 << 30, (int64_t)1 << 30);
  refused(ctx, d, "sizes whose product overflows", GPP_ERROR_ARGUMENT, "larger than any memory");
  gpp_deck_destroy(d);
  d = full_deck();
  gpp_deck_set_array(d, GPP_WTILDE_ARRAY, GPP_COMPLEX128, (const char*)wtilde_array + 4, NCOULS, NGPOWN);
  refused(ctx, d, "misaligned complex array", GPP_ERROR_ARGUMENT, "wtilde_array is not aligned to");
  gpp_deck_destroy(d);
  gpp_deck_create(&d);
  refused(ctx, d, "nothing given", GPP_ERROR_ARGUMENT, "aqsntemp is not given");
  gpp_deck_destroy(d);
  d = full_deck();
  reset_outputs();
  expect("outputs shorter than nw", gpp_compute(ctx, d, ach + 1, asx + 1, achs + 1, NW - 1), GPP_ERROR_ARGUMENT,
         "achtemp and asxtemp have nw = 1 values; wx_array_t has 2");
  expect("null output", gpp_compute(ctx, d, ach + 1, NULL, achs + 1, NW), GPP_ERROR_ARGUMENT,
         "asxtemp is a null pointer");
  expect("null deck", gpp_compute(ctx, NULL, ach + 1, asx + 1, achs + 1, NW), GPP_ERROR_ARGUMENT,
         "deck is a null pointer");
  expect("null context", gpp_compute(NULL, d, ach + 1, asx + 1, achs + 1, NW), GPP_ERROR_ARGUMENT,
         "context is a null pointer");

  /* NaN and Inf in the caller's arrays (restored after). */
  const double complex saved_eps = I_eps_array[3 + NCOULS * 2];
  I_eps_array[3 + NCOULS * 2] = NAN;
  refused(ctx, d, "NaN in I_eps_array", GPP_ERROR_ARGUMENT, "I_eps_array(4, 3) is not finite");
  I_eps_array[3 + NCOULS * 2] = saved_eps;
  const double saved_wx = wx_array_t[1 + NW * 4];
  wx_array_t[1 + NW * 4] = -INFINITY;
  refused(ctx, d, "Inf in wx_array_t", GPP_ERROR_ARGUMENT, "wx_array_t(2, 5) is not finite");
  wx_array_t[1 + NW * 4] = saved_wx;

  /* Policies and tunables. */
  gpp_set_option(ctx, "policy", "v7-sideways");
  refused(ctx, d, "unknown policy", GPP_ERROR_POLICY, "unknown policy 'v7-sideways'");
  gpp_set_option(ctx, "policy", "host");
  gpp_set_tunable(ctx, "team-size", "64");
  refused(ctx, d, "tunable the policy lacks", GPP_ERROR_POLICY, "policy host has no tunable team-size");
  gpp_set_tunable(ctx, "team-size", "");
  gpp_set_option(ctx, "space", "gpu");
  refused(ctx, d, "unknown space", GPP_ERROR_POLICY, "space must be host, device or empty");
  gpp_set_option(ctx, "space", "");

  /* Verification failed: a status, the outputs untouched, the record kept. */
  gpp_set_option(ctx, "verify", "yes");
  gpp_set_option(ctx, "rtol", "1e-300");
  refused(ctx, d, "verification beyond any tolerance", GPP_ERROR_VERIFICATION, "verification failed");
  if (!strstr(gpp_record_json(ctx), "\"passed\": false") && !strstr(gpp_record_json(ctx), "\"passed\":false")) {
    printf("FAIL the failed verification's record does not say passed false\n");
    ++failures;
  }
  gpp_set_option(ctx, "rtol", "1e-10");

  /* Success: the outputs written (start values 0 and 0), nothing beside them. */
  reset_outputs();
  expect("a good call", gpp_compute(ctx, d, ach + 1, asx + 1, achs + 1, NW), GPP_OK, "");
  const int guards = ach[0] == 7.0 + 7.0 * I && ach[NW + 1] == 7.0 + 7.0 * I && asx[0] == 7.0 + 7.0 * I &&
                     asx[NW + 1] == 7.0 + 7.0 * I && achs[0] == 7.0 + 7.0 * I && achs[2] == 7.0 + 7.0 * I;
  const int written = ach[1] != 0 && asx[1] != 0 && achs[1] != 0;
  expect("guards kept, outputs written", guards && written ? GPP_OK : GPP_ERROR_INTERNAL, GPP_OK, "");
  expect("inputs kept", inputs() == in ? GPP_OK : GPP_ERROR_INTERNAL, GPP_OK, "");
  double verified = 0;
  expect("verified", gpp_result_value(ctx, "verified", &verified), GPP_OK, "");
  expect("verified = 1", verified == 1 ? GPP_OK : GPP_ERROR_INTERNAL, GPP_OK, "");
  expect("unknown result value", gpp_result_value(ctx, "speed", &verified), GPP_ERROR_ARGUMENT,
         "unknown result value 'speed'");
  gpp_deck_destroy(d);

  /* A complex array only 8-byte aligned (as a static one may be) is copied, not refused:
   * the same sums as from its aligned twin, and its bytes kept. */
  {
    double complex good_ach[NW], good_asx[NW];
    memcpy(good_ach, ach + 1, sizeof good_ach);
    memcpy(good_asx, asx + 1, sizeof good_asx);
    double complex* buffer = malloc(sizeof(double complex) * (NCOULS * NGPOWN + 1));
    char* at = (char*)buffer + 8;
    memcpy(at, wtilde_array, sizeof(double complex) * NCOULS * NGPOWN);
    d = full_deck();
    gpp_deck_set_array(d, GPP_WTILDE_ARRAY, GPP_COMPLEX128, at, NCOULS, NGPOWN);
    reset_outputs();
    expect("an 8-byte aligned complex array", gpp_compute(ctx, d, ach + 1, asx + 1, achs + 1, NW), GPP_OK, "");
    const int same = memcmp(good_ach, ach + 1, sizeof good_ach) == 0 && memcmp(good_asx, asx + 1, sizeof good_asx) == 0;
    expect("its sums as the aligned array's", same ? GPP_OK : GPP_ERROR_INTERNAL, GPP_OK, "");
    expect("its bytes kept", memcmp(at, wtilde_array, sizeof(double complex) * NCOULS * NGPOWN) == 0 ? GPP_OK
                                                                                                      : GPP_ERROR_INTERNAL,
           GPP_OK, "");
    gpp_deck_destroy(d);
    free(buffer);
  }

  /* Kokkos's lifetime: this program did not start Kokkos, so the context did, and ends it
   * with the last context; a new one cannot start Kokkos again, and says so. */
  expect("destroy", gpp_context_destroy(ctx), GPP_OK, "");
  ctx = NULL;
  expect("a context after Kokkos ended", gpp_context_create(&ctx, 0, NULL), GPP_ERROR_RUNTIME,
         "Kokkos was finalized in this process");
  printf("%s: %d failure%s\n", failures ? "FAILED" : "passed", failures, failures == 1 ? "" : "s");
  return failures ? 1 : 0;
}
