/* gpp from C99: a non-uniform deck in the caller's arrays (column-major, the Fortran
 * benchmark's shapes), its sums through <gpp/gpp.h>, and the same sums from the
 * benchmark's loop written here in C. Exit 1 when they differ beyond the bound of two
 * double-precision sums of the same n terms (docs/oracle.md): atol = 2 (128 + 4 sqrt(n)) u M,
 * u = 2^-53, M the terms' summed magnitude; the loop with one bug (the sexcut cutoff for
 * either sign of wx) must differ beyond it, so the check can fail. */
#include <gpp/gpp.h>

#include <complex.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

enum { NCOULS = 41, NGPOWN = 9, NBANDS = 17, NW = 2 };

/* The complex arrays on the heap: gpp reads complex arrays in place where they are
 * 16-byte aligned, as malloc gives them; a static array of double complex is only sure
 * of 8 (on aarch64 it gets 8), and gpp would copy it first. aqsntemp(ncouls, nbands):
 * column n1 is aqsntemp[n1]. */
static double complex (*aqsntemp)[NCOULS];
static double complex (*aqsmtemp_local)[NGPOWN];
static double complex (*I_eps_array)[NCOULS];
static double complex (*wtilde_array)[NCOULS];
static double wx_array_t[NBANDS][NW];
static double occ_array[NBANDS], vcoul_loc[NGPOWN];
static const double sexcut = 4.0, limittwo = 0.09; /* gamma = 0.3 */

static uint64_t state = 7;
static double next(void) {
  state = state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(state >> 11) * 0x1.0p-53;
}

static void make_deck(void) {
  aqsntemp = malloc(sizeof(double complex[NBANDS][NCOULS]));
  aqsmtemp_local = malloc(sizeof(double complex[NBANDS][NGPOWN]));
  I_eps_array = malloc(sizeof(double complex[NGPOWN][NCOULS]));
  wtilde_array = malloc(sizeof(double complex[NGPOWN][NCOULS]));
  if (!aqsntemp || !aqsmtemp_local || !I_eps_array || !wtilde_array) {
    fprintf(stderr, "gpp_example_c: out of memory\n");
    exit(1);
  }
  for (int n1 = 0; n1 < NBANDS; ++n1) {
    for (int ig = 0; ig < NCOULS; ++ig) aqsntemp[n1][ig] = (next() - 0.5) + I * (next() - 0.5);
    for (int igp = 0; igp < NGPOWN; ++igp) aqsmtemp_local[n1][igp] = (next() - 0.5) + I * (next() - 0.5);
    const double e = n1 < 6 ? -5.0 + 0.8 * n1 + 0.1 * next() : 0.4 + 1.7 * (n1 - 6) + 0.1 * next();
    occ_array[n1] = n1 < 5 ? 1.0 : n1 == 5 ? 0.5 : 0.0;
    for (int iw = 0; iw < NW; ++iw) {
      double wx = -1.0 + 0.5 * iw - e;
      if (fabs(wx) < 1e-12) wx = 1e-12;
      wx_array_t[n1][iw] = wx;
    }
  }
  for (int igp = 0; igp < NGPOWN; ++igp) {
    vcoul_loc[igp] = igp == 2 ? 0.0 : 6.0 / (1.0 + igp);
    for (int ig = 0; ig < NCOULS; ++ig) {
      const double amp = 0.8 / (1.0 + 0.2 * abs(ig - 4 * igp));
      I_eps_array[igp][ig] = amp * (next() - 0.3) + I * amp * (next() - 0.5);
      const double re = (ig * 7 + igp) % 61 == 3 ? 2e-9 : 0.3 + 10.0 * next() * next();
      wtilde_array[igp][ig] = re - I * 0.05 * re * next();
    }
  }
}

/* The benchmark's loop (docs/gpp-spec.md section 1); cut_any_sign: the bug the check must see. */
static void benchmark_loop(int cut_any_sign, double complex ach[NW], double complex asx[NW], double complex* achs,
                           double m_ach[NW], double m_asx[NW], double* m_achs) {
  const double TOL_Zero = 1e-12, limitone = 1.0 / (4.0 * 1e-6);
  for (int iw = 0; iw < NW; ++iw) ach[iw] = asx[iw] = 0, m_ach[iw] = m_asx[iw] = 0;
  for (int n1 = 0; n1 < NBANDS; ++n1)
    for (int igp = 0; igp < NGPOWN; ++igp)
      for (int ig = 0; ig < NCOULS; ++ig)
        for (int iw = 0; iw < NW; ++iw) {
          const double complex wtilde = wtilde_array[igp][ig], eps = I_eps_array[igp][ig];
          const double complex wtilde2 = wtilde * wtilde, Omega2 = wtilde2 * eps;
          const double wxt = wx_array_t[n1][iw];
          const double complex wdiff = wxt - wtilde, delw = wtilde / wdiff;
          const double delwr = creal(delw * conj(delw)), wdiffr = creal(wdiff * conj(wdiff));
          double complex sch = 0, ssx = 0;
          if (wdiffr > limittwo && delwr < limitone) {
            sch = delw * eps;
            ssx = Omega2 / (wxt * wxt - wtilde2);
          } else if (delwr > TOL_Zero) {
            ssx = -Omega2 * delw / (4.0 * wtilde2 * (delw + 0.5));
          }
          const double complex mat = conj(aqsmtemp_local[n1][igp]) * aqsntemp[n1][ig];
          if (cabs(ssx) > sexcut * cabs(eps) && (wxt < 0 || cut_any_sign)) ssx = 0;
          const double complex ssx_term = vcoul_loc[igp] * occ_array[n1] * ssx * mat;
          const double complex sch_term = vcoul_loc[igp] * sch * mat * 0.5;
          asx[iw] -= ssx_term;
          ach[iw] += sch_term;
          m_asx[iw] += cabs(ssx_term);
          m_ach[iw] += cabs(sch_term);
        }
  *achs = 0;
  *m_achs = 0;
  for (int n1 = 0; n1 < NBANDS; ++n1)
    for (int igp = 0; igp < NGPOWN; ++igp) {
      double complex S = 0;
      double m = 0;
      for (int ig = 0; ig < NCOULS; ++ig) {
        S -= aqsntemp[n1][ig] * I_eps_array[igp][ig];
        m += cabs(aqsntemp[n1][ig] * I_eps_array[igp][ig]);
      }
      *achs += 0.5 * vcoul_loc[igp] * conj(aqsmtemp_local[n1][igp]) * S;
      *m_achs += 0.5 * fabs(vcoul_loc[igp]) * cabs(aqsmtemp_local[n1][igp]) * m;
    }
}

/* The worst |a - b| / atol over every value. */
static double worst(const double complex a[NW], const double complex b[NW], const double m[NW]) {
  const double u = 0x1.0p-53, n = (double)NBANDS * NGPOWN * NCOULS;
  double w = 0;
  for (int iw = 0; iw < NW; ++iw) {
    const double r = cabs(a[iw] - b[iw]) / (2.0 * (128.0 + 4.0 * sqrt(n)) * u * m[iw]);
    if (r > w) w = r;
  }
  return w;
}

/* A gpp call that failed: its status and message, and the end of the program. */
static void check(gpp_status s, const char* what) {
  if (s == GPP_OK) return;
  fprintf(stderr, "gpp_example_c: %s: %s: %s\n", what, gpp_status_name(s), gpp_last_error());
  exit(1);
}

int main(void) {
  make_deck();
  double complex ref_ach[NW], ref_asx[NW], ref_achs, bug_ach[NW], bug_asx[NW], bug_achs;
  double m_ach[NW], m_asx[NW], m_achs, bm_ach[NW], bm_asx[NW], bm_achs;
  benchmark_loop(0, ref_ach, ref_asx, &ref_achs, m_ach, m_asx, &m_achs);
  benchmark_loop(1, bug_ach, bug_asx, &bug_achs, bm_ach, bm_asx, &bm_achs);
  const double bug = worst(bug_asx, ref_asx, m_asx);
  printf("the loop with the cutoff for either sign of wx: %.3g atol from the loop (must be > 1)\n", bug);
  int ok = bug > 1;

  gpp_context* ctx = NULL;
  check(gpp_context_create(&ctx, 0, NULL), "gpp_context_create");
  check(gpp_set_option(ctx, "repeat", "3"), "repeat");
  check(gpp_set_option(ctx, "verify", "yes"), "verify");
  gpp_deck* deck = NULL;
  check(gpp_deck_create(&deck), "gpp_deck_create");
  check(gpp_deck_set_array(deck, GPP_AQSNTEMP, GPP_COMPLEX128, aqsntemp, NCOULS, NBANDS), "aqsntemp");
  check(gpp_deck_set_array(deck, GPP_AQSMTEMP_LOCAL, GPP_COMPLEX128, aqsmtemp_local, NGPOWN, NBANDS), "aqsmtemp");
  check(gpp_deck_set_array(deck, GPP_I_EPS_ARRAY, GPP_COMPLEX128, I_eps_array, NCOULS, NGPOWN), "I_eps_array");
  check(gpp_deck_set_array(deck, GPP_WTILDE_ARRAY, GPP_COMPLEX128, wtilde_array, NCOULS, NGPOWN), "wtilde_array");
  check(gpp_deck_set_array(deck, GPP_WX_ARRAY_T, GPP_FLOAT64, wx_array_t, NW, NBANDS), "wx_array_t");
  check(gpp_deck_set_array(deck, GPP_OCC_ARRAY, GPP_FLOAT64, occ_array, NBANDS, 1), "occ_array");
  check(gpp_deck_set_array(deck, GPP_VCOUL_LOC, GPP_FLOAT64, vcoul_loc, NGPOWN, 1), "vcoul_loc");
  check(gpp_deck_set_scalar(deck, "sexcut", sexcut), "sexcut");
  check(gpp_deck_set_scalar(deck, "limittwo", limittwo), "limittwo");

  /* Start values, as the benchmark's accumulation starts from them: gpp adds to them. */
  double complex achtemp[NW], asxtemp[NW], achstemp = 1.0 - 2.0 * I;
  for (int iw = 0; iw < NW; ++iw) achtemp[iw] = 0.5 * iw, asxtemp[iw] = -0.25 * I * iw;
  double complex want_ach[NW], want_asx[NW];
  for (int iw = 0; iw < NW; ++iw) want_ach[iw] = achtemp[iw] + ref_ach[iw], want_asx[iw] = asxtemp[iw] + ref_asx[iw];
  const double complex want_achs = achstemp + ref_achs;
  check(gpp_compute(ctx, deck, achtemp, asxtemp, &achstemp, NW), "gpp_compute");

  double median = 0, rel = 0;
  check(gpp_result_value(ctx, "time_median", &median), "time_median");
  check(gpp_result_value(ctx, "rel_error", &rel), "rel_error");
  const double w = fmax(worst(achtemp, want_ach, m_ach), worst(asxtemp, want_asx, m_asx));
  const double u = 0x1.0p-53, n = (double)NBANDS * NGPOWN * NCOULS;
  const double ws = cabs(achstemp - want_achs) / (2.0 * (128.0 + 4.0 * sqrt(n)) * u * m_achs);
  printf("gpp %s: achtemp(1) = (%.15g, %.15g), median %.3g s, verified against its reference (%.2g)\n", gpp_version(),
         creal(achtemp[0]), cimag(achtemp[0]), median, rel);
  printf("sums: %.3g atol from the loop; achstemp: %.3g atol: %s\n", w, ws, w <= 1 && ws <= 1 ? "agree" : "DIFFER");
  ok = ok && w <= 1 && ws <= 1;
  check(gpp_deck_destroy(deck), "gpp_deck_destroy");
  check(gpp_context_destroy(ctx), "gpp_context_destroy");
  free(aqsntemp);
  free(aqsmtemp_local);
  free(I_eps_array);
  free(wtilde_array);
  return ok ? 0 : 1;
}
