! gpp from Fortran: a non-uniform deck in arrays as BerkeleyGW's Sigma holds them
! (complex(dp) and real(dp), column-major, the benchmark's shapes), its sums through the
! module gpp, and the same sums from the benchmark's loop written here, in the same
! program. It exits 1 when they differ beyond the bound of two double-precision sums of
! the same n terms (docs/oracle.md, docs/gpp-spec.md section 8): for each value,
! atol = 2 (128 + 4 sqrt(n)) u M, u = 2**-53, M the summed magnitude of its terms: 128 u M
! bounds the terms' own rounding, 4 sqrt(n) u M the rounding of a sum of n terms, and each
! of the two sums has both. The loop with one bug (no conjugate on aqsmtemp_local) must
! differ beyond it, so the check can fail.
program gpp_example_fortran
  use gpp
  implicit none
  integer, parameter :: dp = gpp_dp
  integer, parameter :: ncouls = 53, ngpown = 13, nbands = 21, nw = 3
  real(dp), parameter :: sexcut = 4.0_dp, gamma = 0.5_dp, limittwo = gamma**2
  complex(dp), allocatable :: aqsntemp(:, :), aqsmtemp_local(:, :), I_eps_array(:, :), wtilde_array(:, :)
  real(dp), allocatable :: wx_array_t(:, :), occ_array(:), vcoul_loc(:)
  complex(dp) :: achtemp(nw), asxtemp(nw), achstemp
  complex(dp) :: ref_ach(nw), ref_asx(nw), ref_achs, bug_ach(nw), bug_asx(nw), bug_achs
  real(dp) :: m_ach(nw), m_asx(nw), m_achs, bm_ach(nw), bm_asx(nw), bm_achs
  real(dp) :: seed, worst, bug, median
  type(gpp_context) :: ctx
  integer :: status
  logical :: ok

  seed = 20261129.0_dp
  call make_deck()
  call benchmark_loop(.true., ref_ach, ref_asx, ref_achs, m_ach, m_asx, m_achs)
  call benchmark_loop(.false., bug_ach, bug_asx, bug_achs, bm_ach, bm_asx, bm_achs)
  bug = max(ratio(bug_ach, ref_ach, m_ach), ratio(bug_asx, ref_asx, m_asx))
  print '(a, es10.3, a)', 'the loop without the conjugate: ', bug, ' atol from the loop (must be > 1)'
  ok = bug > 1

  call gpp_init(ctx, status)
  call check('gpp_init')
  call gpp_set_option(ctx, 'repeat', '3', status)
  call check('repeat')
  ! The benchmark accumulates: achtemp(iw) = achtemp(iw) + sch, asxtemp(iw) = asxtemp(iw) - ssx.
  achtemp = (0.0_dp, 0.0_dp)
  asxtemp = (0.0_dp, 0.0_dp)
  achstemp = (0.0_dp, 0.0_dp)
  call gpp_compute(ctx, aqsntemp, aqsmtemp_local, I_eps_array, wtilde_array, wx_array_t, occ_array, vcoul_loc, &
                   sexcut, limittwo, achtemp, asxtemp, achstemp, status)
  call check('gpp_compute')
  call gpp_result_value(ctx, 'time_median', median, status)
  call check('time_median')
  worst = max(ratio(achtemp, ref_ach, m_ach), ratio(asxtemp, ref_asx, m_asx), &
              ratio([achstemp], [ref_achs], [m_achs]))
  print '(a, a, a, 2es24.16)', 'gpp ', gpp_version(), ': achtemp(1) = ', achtemp(1)
  print '(a, es10.3, a, es10.3, a)', 'kernel median ', median, ' s; ', worst, ' atol from the loop'
  ok = ok .and. worst <= 1
  call gpp_finalize(ctx, status)
  call check('gpp_finalize')
  if (.not. ok) then
    print '(a)', 'gpp_example_fortran: the sums DIFFER from the loop'
    stop 1
  end if
  print '(a)', 'gpp_example_fortran: the sums agree with the loop'

contains

  ! Uniform numbers in [0, 1): Park and Miller's minimal standard generator, exact in real(dp).
  real(dp) function next()
    seed = mod(16807.0_dp * seed, 2147483647.0_dp)
    next = seed / 2147483647.0_dp
  end function next

  ! Every arm of the physics: wtilde near and far from the frequencies, some tiny (the
  ! zero arm), occupied, half-occupied and empty bands, wx of both signs, a skipped G'.
  subroutine make_deck()
    integer :: ig, igp, n1, iw
    real(dp) :: e, re, amp, wx
    allocate (aqsntemp(ncouls, nbands), aqsmtemp_local(ngpown, nbands), I_eps_array(ncouls, ngpown), &
              wtilde_array(ncouls, ngpown), wx_array_t(nw, nbands), occ_array(nbands), vcoul_loc(ngpown))
    do n1 = 1, nbands
      do ig = 1, ncouls
        aqsntemp(ig, n1) = cmplx(next() - 0.5_dp, next() - 0.5_dp, dp)
      end do
      do igp = 1, ngpown
        aqsmtemp_local(igp, n1) = cmplx(next() - 0.5_dp, next() - 0.5_dp, dp)
      end do
      if (n1 <= 9) then
        e = -7.0_dp + 0.7_dp * n1 + 0.1_dp * next()
      else
        e = 0.5_dp + 1.3_dp * (n1 - 9) + 0.1_dp * next()
      end if
      occ_array(n1) = merge(1.0_dp, merge(0.5_dp, 0.0_dp, n1 == 9), n1 < 9)
      do iw = 1, nw
        wx = -1.5_dp + 0.5_dp * (iw - 1) - e
        if (abs(wx) < 1.0e-12_dp) wx = 1.0e-12_dp
        wx_array_t(iw, n1) = wx
      end do
    end do
    do igp = 1, ngpown
      vcoul_loc(igp) = merge(0.0_dp, 8.0_dp / (0.5_dp + igp), igp == 6)
      do ig = 1, ncouls
        amp = 0.9_dp / (1.0_dp + 0.1_dp * abs(ig - 4 * igp))
        I_eps_array(ig, igp) = cmplx(amp * (next() - 0.3_dp), amp * (next() - 0.5_dp), dp)
        re = 0.2_dp + 12.0_dp * next()**2
        if (mod(ig + 3 * igp, 89) == 7) re = 1.0e-9_dp
        wtilde_array(ig, igp) = cmplx(re, -0.05_dp * re * next(), dp)
      end do
    end do
  end subroutine make_deck

  ! The benchmark's loop (docs/gpp-spec.md section 1), and each sum's summed magnitude.
  subroutine benchmark_loop(conjugate, ach, asx, achs, mach, masx, machs)
    logical, intent(in) :: conjugate
    complex(dp), intent(out) :: ach(nw), asx(nw), achs
    real(dp), intent(out) :: mach(nw), masx(nw), machs
    real(dp), parameter :: TOL_Small = 1.0e-6_dp, TOL_Zero = 1.0e-12_dp, limitone = 1.0_dp / (4.0_dp * TOL_Small)
    complex(dp) :: wtilde, wtilde2, Omega2, wdiff, delw, sch, ssx, cden, matngmatmgp, ssx_term, sch_term, S
    real(dp) :: wxt, delwr, wdiffr, m
    integer :: n1, igp, ig, iw
    ach = 0
    asx = 0
    mach = 0
    masx = 0
    do n1 = 1, nbands
      do igp = 1, ngpown
        do ig = 1, ncouls
          do iw = 1, nw
            wtilde = wtilde_array(ig, igp)
            wtilde2 = wtilde**2
            Omega2 = wtilde2 * I_eps_array(ig, igp)
            wxt = wx_array_t(iw, n1)
            wdiff = wxt - wtilde
            delw = wtilde / wdiff
            delwr = real(delw * conjg(delw), dp)
            wdiffr = real(wdiff * conjg(wdiff), dp)
            if (wdiffr > limittwo .and. delwr < limitone) then
              sch = delw * I_eps_array(ig, igp)
              cden = wxt**2 - wtilde2
              ssx = Omega2 / cden
            else if (delwr > TOL_Zero) then
              sch = 0
              cden = 4.0_dp * wtilde2 * (delw + 0.5_dp)
              ssx = -Omega2 * delw / cden
            else
              sch = 0
              ssx = 0
            end if
            if (conjugate) then
              matngmatmgp = conjg(aqsmtemp_local(igp, n1)) * aqsntemp(ig, n1)
            else
              matngmatmgp = aqsmtemp_local(igp, n1) * aqsntemp(ig, n1)
            end if
            if (abs(ssx) > sexcut * abs(I_eps_array(ig, igp)) .and. wxt < 0.0_dp) ssx = 0
            ssx_term = vcoul_loc(igp) * occ_array(n1) * ssx * matngmatmgp
            sch_term = vcoul_loc(igp) * sch * matngmatmgp * 0.5_dp
            asx(iw) = asx(iw) - ssx_term
            ach(iw) = ach(iw) + sch_term
            masx(iw) = masx(iw) + abs(ssx_term)
            mach(iw) = mach(iw) + abs(sch_term)
          end do
        end do
      end do
    end do
    ! The static remainder: S = -(aqsntemp^T I_eps_array), summed with v(G') conj(aqsmtemp_local) / 2.
    achs = 0
    machs = 0
    do n1 = 1, nbands
      do igp = 1, ngpown
        S = 0
        m = 0
        do ig = 1, ncouls
          S = S - aqsntemp(ig, n1) * I_eps_array(ig, igp)
          m = m + abs(aqsntemp(ig, n1) * I_eps_array(ig, igp))
        end do
        achs = achs + 0.5_dp * vcoul_loc(igp) * conjg(aqsmtemp_local(igp, n1)) * S
        machs = machs + 0.5_dp * abs(vcoul_loc(igp)) * abs(aqsmtemp_local(igp, n1)) * m
      end do
    end do
  end subroutine benchmark_loop

  ! The worst |a - b| / atol over the values.
  real(dp) function ratio(a, b, mag)
    complex(dp), intent(in) :: a(:), b(:)
    real(dp), intent(in) :: mag(:)
    real(dp) :: atol, n
    integer :: i
    n = real(nbands, dp) * ngpown * ncouls
    ratio = 0
    do i = 1, size(a)
      atol = 2.0_dp * (128.0_dp + 4.0_dp * sqrt(n)) * epsilon(1.0_dp) / 2.0_dp * mag(i)
      ratio = max(ratio, abs(a(i) - b(i)) / atol)
    end do
  end function ratio

  subroutine check(what)
    character(len=*), intent(in) :: what
    if (status /= GPP_OK) then
      print '(a, a, a, i0, a, a)', 'gpp_example_fortran: ', what, ': status ', status, ': ', gpp_last_error()
      stop 1
    end if
  end subroutine check

end program gpp_example_fortran
