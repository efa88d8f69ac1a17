#!/usr/bin/env python3
"""gpp from Python: a non-uniform deck in NumPy arrays (Fortran order, the benchmark's
shapes), its sums through the module gpp with two policies, and the same sums from the
benchmark's loop written here in NumPy. Exits 1 when they differ beyond the bound of two
double-precision sums of the same n terms (docs/oracle.md): atol = 2 (128 + 4 sqrt(n)) u M,
u = 2^-53, M the terms' summed magnitude; the loop with one bug (no sexcut cutoff) must
differ beyond it, so the check can fail.

  PYTHONPATH=PREFIX/lib/python3.X/site-packages python3 gpp_example.py"""
import sys

import numpy as np

import gpp

TOL_ZERO, LIMITONE = 1e-12, 1.0 / (4.0 * 1e-6)


def make_deck(ncouls=47, ngpown=12, nbands=16, nw=2, seed=11):
    """Every arm of the physics: wtilde near and far from the frequencies, a few tiny (the
    zero arm), occupied, half-occupied and empty bands, wx of both signs, a skipped G'."""
    rng = np.random.default_rng(seed)
    F = dict(order="F")
    aqsntemp = np.asfortranarray(rng.random((ncouls, nbands)) - 0.5 + 1j * (rng.random((ncouls, nbands)) - 0.5))
    aqsmtemp_local = np.asfortranarray(rng.random((ngpown, nbands)) - 0.5 + 1j * (rng.random((ngpown, nbands)) - 0.5))
    ig, igp = np.meshgrid(np.arange(ncouls), np.arange(ngpown), indexing="ij")
    amp = 0.9 / (1.0 + 0.1 * np.abs(ig - 4 * igp))
    I_eps_array = np.asfortranarray(amp * (rng.random(amp.shape) - 0.3) + 1j * amp * (rng.random(amp.shape) - 0.5))
    re = 0.2 + 12.0 * rng.random(amp.shape) ** 2
    re[(ig + 5 * igp) % 71 == 3] = 1e-9
    wtilde_array = np.asfortranarray(re - 0.05j * re * rng.random(amp.shape))
    n1 = np.arange(nbands)
    e = np.where(n1 < 7, -6.0 + 0.8 * n1, 0.5 + 1.4 * (n1 - 7)) + 0.1 * rng.random(nbands)
    wx = -1.5 + 0.5 * np.arange(nw)[:, None] - e[None, :]
    wx[np.abs(wx) < TOL_ZERO] = TOL_ZERO
    wx_array_t = np.asfortranarray(wx)
    occ_array = np.where(n1 < 6, 1.0, np.where(n1 == 6, 0.5, 0.0))
    vcoul_loc = 8.0 / (0.5 + np.arange(ngpown))
    vcoul_loc[3] = 0.0
    return dict(aqsntemp=aqsntemp, aqsmtemp_local=aqsmtemp_local, I_eps_array=I_eps_array,
                wtilde_array=wtilde_array, wx_array_t=wx_array_t, occ_array=np.array(occ_array, **F),
                vcoul_loc=np.array(vcoul_loc, **F)), dict(sexcut=4.0, limittwo=0.25)


def benchmark_loop(d, sexcut, limittwo, cutoff=True):
    """The benchmark's loop (docs/gpp-spec.md section 1), vectorised over (G, G') for each
    band and frequency; returns achtemp, asxtemp, achstemp and each one's summed magnitude."""
    wt, eps = d["wtilde_array"], d["I_eps_array"]
    wt2, nw, nbands = wt * wt, d["wx_array_t"].shape[0], d["aqsntemp"].shape[1]
    ach, asx = np.zeros(nw, complex), np.zeros(nw, complex)
    m_ach, m_asx = np.zeros(nw), np.zeros(nw)
    for n1 in range(nbands):
        mat = np.conj(d["aqsmtemp_local"][:, n1])[None, :] * d["aqsntemp"][:, n1][:, None]
        for iw in range(nw):
            wxt = d["wx_array_t"][iw, n1]
            wdiff = wxt - wt
            delw = wt / wdiff
            delwr, wdiffr = np.abs(delw) ** 2, np.abs(wdiff) ** 2
            regular = (wdiffr > limittwo) & (delwr < LIMITONE)
            near = ~regular & (delwr > TOL_ZERO)
            with np.errstate(all="ignore"):
                sch = np.where(regular, delw * eps, 0)
                ssx = np.where(regular, wt2 * eps / (wxt * wxt - wt2),
                               np.where(near, -wt2 * eps * delw / (4 * wt2 * (delw + 0.5)), 0))
            if cutoff and wxt < 0:
                ssx = np.where(np.abs(ssx) > sexcut * np.abs(eps), 0, ssx)
            ssx_t = d["vcoul_loc"][None, :] * d["occ_array"][n1] * ssx * mat
            sch_t = d["vcoul_loc"][None, :] * sch * mat * 0.5
            asx[iw] -= ssx_t.sum()
            ach[iw] += sch_t.sum()
            m_asx[iw] += np.abs(ssx_t).sum()
            m_ach[iw] += np.abs(sch_t).sum()
    S = -(d["aqsntemp"].T @ eps)  # (nbands, ngpown)
    terms = 0.5 * d["vcoul_loc"][None, :] * np.conj(d["aqsmtemp_local"].T) * S
    m_achs = (0.5 * np.abs(d["vcoul_loc"])[None, :] * np.abs(d["aqsmtemp_local"].T)
              * (np.abs(d["aqsntemp"]).T @ np.abs(eps))).sum()
    return ach, asx, terms.sum(), m_ach, m_asx, m_achs


def atols(d, magnitudes):
    n = d["aqsntemp"].shape[1] * d["I_eps_array"].shape[1] * d["aqsntemp"].shape[0]
    return 2.0 * (128.0 + 4.0 * np.sqrt(n)) * 2.0 ** -53 * np.asarray(magnitudes)


def main():
    print("imported gpp from", gpp.__file__)
    print("gpp", gpp.version(), gpp.build_features())
    deck, scalars = make_deck()
    ach, asx, achs, m_ach, m_asx, m_achs = benchmark_loop(deck, **scalars)
    bug = benchmark_loop(deck, **scalars, cutoff=False)
    bug_worst = (np.abs(bug[1] - asx) / atols(deck, m_asx)).max()
    print(f"the loop without the sexcut cutoff: {bug_worst:.3g} atol from the loop (must be > 1)")
    ok = bug_worst > 1
    for policy in ("v0-collapse3", "host"):
        r = gpp.compute(**deck, **scalars, policy=policy, space="host", repeat=3)
        worst = max((np.abs(r["achtemp"] - ach) / atols(deck, m_ach)).max(),
                    (np.abs(r["asxtemp"] - asx) / atols(deck, m_asx)).max(),
                    abs(r["achstemp"] - achs) / atols(deck, m_achs))
        print(f"{policy:13s} median {r['time_median']:.3g} s, achtemp = {r['achtemp']}, "
              f"{worst:.3g} atol from the loop: {'agrees' if worst <= 1 else 'DIFFERS'}")
        ok = ok and worst <= 1
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
