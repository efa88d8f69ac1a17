/* The deck of the C interface's tests (test_c_api.c, test_c_mpi.c): the Fortran
 * benchmark's arrays, column-major, filled from a seeded generator with values of every
 * sign and both arms of the kernel. Include it after an enum that names NCOULS, NGPOWN,
 * NBANDS and NW. */
#ifndef GPP_C_TEST_DECK_H
#define GPP_C_TEST_DECK_H
#include <complex.h>
#include <stdint.h>

static double complex aqsntemp[NBANDS * NCOULS], aqsmtemp_local[NBANDS * NGPOWN];
static double complex I_eps_array[NGPOWN * NCOULS], wtilde_array[NGPOWN * NCOULS];
static double wx_array_t[NBANDS * NW], occ_array[NBANDS], vcoul_loc[NGPOWN];

static uint64_t deck_state;
static double next(void) {
  deck_state = deck_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(deck_state >> 11) * 0x1.0p-53;
}

/* `seed` starts the generator; the first `occupied` bands are occupied; band n1's
 * frequency iw is wx0 + wx_step n1 + 0.5 iw. */
static void make_deck(uint64_t seed, int occupied, double wx0, double wx_step) {
  deck_state = seed;
  for (int i = 0; i < NBANDS * NCOULS; ++i) aqsntemp[i] = next() - 0.5 + I * (next() - 0.5);
  for (int i = 0; i < NBANDS * NGPOWN; ++i) aqsmtemp_local[i] = next() - 0.5 + I * (next() - 0.5);
  for (int i = 0; i < NGPOWN * NCOULS; ++i) {
    I_eps_array[i] = 0.5 * (next() - 0.3) + I * 0.5 * (next() - 0.5);
    wtilde_array[i] = 0.3 + 8.0 * next() - I * 0.1 * next();
  }
  for (int n1 = 0; n1 < NBANDS; ++n1) {
    occ_array[n1] = n1 < occupied ? 1.0 : 0.0;
    for (int iw = 0; iw < NW; ++iw) wx_array_t[iw + NW * n1] = wx0 + wx_step * n1 + 0.5 * iw;
  }
  for (int igp = 0; igp < NGPOWN; ++igp) vcoul_loc[igp] = 4.0 / (1.0 + igp);
}
#endif
