/* MPI over G' through the C interface, on communicators the caller makes: run under
 * mpiexec -n 3. Every rank computes the whole deck alone (the reference); then the world
 * splits into {0, 1} and {2}, each rank passes only its cyclic share of the G' columns
 * (as BerkeleyGW deals them out) with its group's communicator, and every rank of each
 * group must get the whole deck's sums. The sums differ from the reference only in the
 * order of their additions: far below 1e-12 relative for this deck's 6e4 terms
 * (docs/gpp-spec.md section 8: about 1e-12 at 3e8 terms), while a share left out moves
 * them by order 1; a rank's share alone, without the communicator, must differ by more
 * than 1e-3, so the check can fail. A communicator that is not one is refused. */
#include <gpp/gpp.h>
#include <mpi.h>

#include <complex.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NCOULS = 61, NGPOWN = 17, NBANDS = 13, NW = 2 };

#include "c_test_deck.h"

static int failures = 0, rank = 0;

static void check(const char* what, int ok, const char* detail) {
  printf("rank %d: %s %s%s%s\n", rank, ok ? "ok  " : "FAIL", what, detail ? ": " : "", detail ? detail : "");
  if (!ok) ++failures;
}

/* The sums of G' columns igp = first, first + step, ... (a rank's cyclic share), with the
 * communicator `comm` (-1: alone). */
static gpp_status sums(gpp_context* ctx, int first, int step, int64_t comm, double complex out[2 * NW + 1]) {
  static double complex eps[NGPOWN * NCOULS], wt[NGPOWN * NCOULS], aqsm[NBANDS * NGPOWN];
  static double vc[NGPOWN];
  int n = 0;
  for (int igp = first; igp < NGPOWN; igp += step, ++n) {
    memcpy(eps + (size_t)n * NCOULS, I_eps_array + (size_t)igp * NCOULS, sizeof(double complex) * NCOULS);
    memcpy(wt + (size_t)n * NCOULS, wtilde_array + (size_t)igp * NCOULS, sizeof(double complex) * NCOULS);
    vc[n] = vcoul_loc[igp];
  }
  for (int n1 = 0; n1 < NBANDS; ++n1)
    for (int k = 0, igp = first; igp < NGPOWN; igp += step, ++k) aqsm[k + n * n1] = aqsmtemp_local[igp + NGPOWN * n1];
  gpp_deck* d = NULL;
  gpp_deck_create(&d);
  gpp_deck_set_array(d, GPP_AQSNTEMP, GPP_COMPLEX128, aqsntemp, NCOULS, NBANDS);
  gpp_deck_set_array(d, GPP_AQSMTEMP_LOCAL, GPP_COMPLEX128, aqsm, n, NBANDS);
  gpp_deck_set_array(d, GPP_I_EPS_ARRAY, GPP_COMPLEX128, eps, NCOULS, n);
  gpp_deck_set_array(d, GPP_WTILDE_ARRAY, GPP_COMPLEX128, wt, NCOULS, n);
  gpp_deck_set_array(d, GPP_WX_ARRAY_T, GPP_FLOAT64, wx_array_t, NW, NBANDS);
  gpp_deck_set_array(d, GPP_OCC_ARRAY, GPP_FLOAT64, occ_array, NBANDS, 1);
  gpp_deck_set_array(d, GPP_VCOUL_LOC, GPP_FLOAT64, vc, n, 1);
  gpp_deck_set_scalar(d, "sexcut", 4.0);
  gpp_deck_set_scalar(d, "limittwo", 0.25);
  gpp_status s = gpp_set_mpi_comm(ctx, comm);
  for (int i = 0; i < 2 * NW + 1; ++i) out[i] = 0;
  if (s == GPP_OK) s = gpp_compute(ctx, d, out, out + NW, out + 2 * NW, NW);
  gpp_deck_destroy(d);
  return s;
}

static double difference(const double complex* a, const double complex* b) {
  double diff = 0, size = 0;
  for (int i = 0; i < 2 * NW + 1; ++i) {
    diff = fmax(diff, cabs(a[i] - b[i]));
    size = fmax(size, cabs(b[i]));
  }
  return diff / size;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 3) {
    if (rank == 0) fprintf(stderr, "test_c_mpi: run on 3 ranks (mpiexec -n 3), not %d\n", size);
    MPI_Finalize();
    return 1;
  }
  make_deck(5, 5, -3.0, 0.9);
  gpp_context* ctx = NULL;
  if (gpp_context_create(&ctx, 0, NULL) != GPP_OK) {
    fprintf(stderr, "rank %d: %s\n", rank, gpp_last_error());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  double complex whole[2 * NW + 1], mine[2 * NW + 1], alone[2 * NW + 1];
  char detail[160];
  const gpp_status alone_status = sums(ctx, 0, 1, -1, whole);
  check("the whole deck alone", alone_status == GPP_OK, gpp_last_error());

  MPI_Comm group;
  const int color = rank < 2 ? 0 : 1;
  MPI_Comm_split(MPI_COMM_WORLD, color, rank, &group);
  int grank = 0, gsize = 1;
  MPI_Comm_rank(group, &grank);
  MPI_Comm_size(group, &gsize);
  const gpp_status s = sums(ctx, grank, gsize, (int64_t)MPI_Comm_c2f(group), mine);
  check("its share with its group's communicator", s == GPP_OK, gpp_last_error());
  snprintf(detail, sizeof detail, "group of %d ranks: %.2e relative", gsize, difference(mine, whole));
  check("the group's sums are the whole deck's", difference(mine, whole) <= 1e-12, detail);
  if (gsize > 1) {
    sums(ctx, grank, gsize, -1, alone);
    snprintf(detail, sizeof detail, "%.2e relative", difference(alone, whole));
    check("its share alone is not the whole deck", difference(alone, whole) > 1e-3, detail);
  }
  const gpp_status null_comm = gpp_set_mpi_comm(ctx, (int64_t)MPI_Comm_c2f(MPI_COMM_NULL));
  check("a handle that is no communicator is refused", null_comm == GPP_ERROR_MPI, gpp_last_error());
  MPI_Comm_free(&group);
  gpp_context_destroy(ctx);
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("%s: %d failure(s) over the ranks\n", all ? "FAILED" : "passed", all);
  MPI_Finalize();
  return all ? 1 : 0;
}
