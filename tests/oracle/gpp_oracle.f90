! An independent oracle for gpp: Sigma-GPP computed straight from the specification
! (docs/oracle.md; spec sections 1-3), sharing no code with the C++ kernels.
!
! It reads the original input file (Fortran sequential unformatted, spec section 2; gpp
! writes it with `gpp convert DECK.toml FILE.dat`), builds the derived arrays of spec
! section 3 in double precision exactly as the benchmark does (wx with the TOL_Zero
! clamp, occupations with the Fermi-level 0.5, the G' gather with skipped G', limittwo
! and limitone recomputed), then evaluates every (band, G', G, frequency) term with the
! literal 3-way branch in quad precision (real128: 113-bit significand) and accumulates
! in quad precision. Inputs convert to quad exactly, so each printed sum is the exact sum
! of the exact terms of the file's data to ~1e-30 relative to the sum of magnitudes.
!
! It prints, one item per line (`key value...`, lines starting with # are comments):
! asxtemp/achtemp for each frequency and achstemp (the static remainder) with 20
! significant digits, the sum of term magnitudes of each sum (for tolerances), how often
! each branch, the cutoff and the clamp are taken, and a fingerprint of the input data.
!
! usage: gpp_oracle FILE.dat [NSTART NEND]
! NSTART NEND: evaluate the frequencies iw = NSTART..NEND instead of the file's (a .dat
! file holds iw = 1..3 at most; gpp takes up to 1024): wx = e_lk + sig_dw*(iw-2) - e as
! for any iw, start values from records 15 and 16 where 1 <= iw <= 3, zero elsewhere.
program gpp_oracle
  use, intrinsic :: iso_fortran_env, only: int32, int64, real64, real128, error_unit, output_unit
  implicit none
  integer, parameter :: dp = real64, qp = real128

  ! Spec section 1: constants of the benchmark, in double precision as the benchmark has them.
  real(dp), parameter :: TOL_Small = 1.0e-6_dp, TOL_Zero = 1.0e-12_dp
  ! A decision within this relative distance of its threshold could go either way in a
  ! double-precision code (a term rounds to ~1e-14 relative): such terms are counted,
  ! and a deck used as test data must have none.
  real(qp), parameter :: ambiguous = 1.0e-9_qp

  ! record 1, 2, 5, 9, 11
  integer(int32) :: sig_ntband, gvec_ng, ncoul, epsmpi_ngpown_max, peinf_ntband_max
  integer(int32) :: peinf_ntband_dist, ipe, ispin, ngpown, ncouls
  integer(int32) :: nstart, nend, sig_fdf, nvband, ng
  real(dp) :: sig_dw, sig_gamma, e_lk, tol, efermi, sexcut, limittwo_read, limitone_read
  integer(int32), allocatable :: peinf_indext_dist(:), inv_igp_index(:), indinv(:)
  real(dp), allocatable :: wfnkq_ekq(:), vcoul(:)
  complex(dp), allocatable :: aqsmtemp(:, :), aqsntemp(:, :), wtilde_array(:, :), I_eps_array(:, :)
  complex(dp) :: asxtemp0(3), achtemp0(3), asxtempref(3), achtempref(3)
  complex(dp) :: asx0, ach0  ! start values of one iw
  integer :: nstart_arg, nend_arg, ios_arg

  ! spec section 3: derived arrays
  real(dp), allocatable :: wx_array_t(:, :), wx_unclamped(:, :), occ_array(:), vcoul_loc(:)
  complex(dp), allocatable :: aqsmtemp_local(:, :)
  logical, allocatable :: clamped(:, :)
  real(dp) :: limittwo, limitone

  ! results and counts
  complex(qp), allocatable :: ssx_sum(:), sch_sum(:)
  real(qp), allocatable :: ssx_mag(:), sch_mag(:)
  complex(qp) :: achstemp, s_sum, t
  real(qp) :: achstemp_mag, s_mag
  integer(int64) :: n_regular, n_near_pole, n_near_pole_limitone, n_zero, n_cut, n_cut_occ_regular, n_cut_occ_near_pole
  integer(int64) :: n_wx_negative, n_clamp_decides_cut, n_ambiguous
  integer :: n_clamped, n_occupied, n_half, n_empty, n_skipped

  integer :: u, nw, n1, n1true, my_igp, igp, ig, iw, w, branch
  logical :: cut, cut_unclamped
  real(dp) :: e, wx, occ
  complex(qp) :: wtilde, I_eps, sch, ssx, mat, sch_u, ssx_u
  integer :: branch_u
  character(len=4096) :: path
  character(len=32) :: arg

  if (command_argument_count() /= 1 .and. command_argument_count() /= 3) call fail('usage: gpp_oracle FILE.dat [NSTART NEND]')
  call get_command_argument(1, path)
  if (len_trim(path) == 0) call fail('usage: gpp_oracle FILE.dat [NSTART NEND]')

  call read_file(trim(path))
  if (command_argument_count() == 3) then
    call get_command_argument(2, arg)
    read (arg, *, iostat=ios_arg) nstart_arg
    if (ios_arg /= 0) call fail('NSTART must be an integer')
    call get_command_argument(3, arg)
    read (arg, *, iostat=ios_arg) nend_arg
    if (ios_arg /= 0) call fail('NEND must be an integer')
    if (nstart_arg > nend_arg .or. int(nend_arg, int64) - nstart_arg >= 1024) &
      call fail('need NSTART <= NEND and at most 1024 frequencies')
    nstart = nstart_arg
    nend = nend_arg
  end if
  nw = nend - nstart + 1

  ! ---- spec section 3: derived arrays, in double precision as the benchmark builds them
  limitone = 1.0_dp / (TOL_Small * 4.0_dp)
  limittwo = sig_gamma**2
  allocate (wx_array_t(nw, peinf_ntband_dist), wx_unclamped(nw, peinf_ntband_dist), clamped(nw, peinf_ntband_dist))
  allocate (occ_array(peinf_ntband_dist), vcoul_loc(ngpown), aqsmtemp_local(ngpown, peinf_ntband_dist))
  n_clamped = 0
  n_occupied = 0
  n_half = 0
  n_empty = 0
  do n1 = 1, peinf_ntband_dist
    n1true = peinf_indext_dist(n1)
    e = wfnkq_ekq(n1true)
    do iw = nstart, nend
      w = iw - nstart + 1
      wx = e_lk + sig_dw * (iw - 2) - e
      wx_unclamped(w, n1) = wx
      clamped(w, n1) = abs(wx) < TOL_Zero
      if (clamped(w, n1)) then
        wx = TOL_Zero
        n_clamped = n_clamped + 1
      end if
      wx_array_t(w, n1) = wx
    end do
    occ = 0.0_dp
    if (n1true <= nvband) then
      if (abs(e - efermi) < tol) then
        occ = 0.5_dp
        n_half = n_half + 1
      else
        occ = 1.0_dp
        n_occupied = n_occupied + 1
      end if
    else
      n_empty = n_empty + 1
    end if
    occ_array(n1) = occ
  end do
  n_skipped = 0
  do my_igp = 1, ngpown
    igp = indinv(inv_igp_index(my_igp))
    if (igp >= 1 .and. igp <= ncouls) then
      aqsmtemp_local(my_igp, :) = aqsmtemp(igp, 1:peinf_ntband_dist)
      vcoul_loc(my_igp) = vcoul(igp)
    else
      aqsmtemp_local(my_igp, :) = (0.0_dp, 0.0_dp)
      vcoul_loc(my_igp) = 0.0_dp
      n_skipped = n_skipped + 1
    end if
  end do

  ! ---- spec section 1: every term, literal physics, quad precision
  allocate (ssx_sum(nw), sch_sum(nw), ssx_mag(nw), sch_mag(nw))
  ssx_sum = (0.0_qp, 0.0_qp)
  sch_sum = (0.0_qp, 0.0_qp)
  ssx_mag = 0.0_qp
  sch_mag = 0.0_qp
  n_regular = 0
  n_near_pole = 0
  n_near_pole_limitone = 0
  n_zero = 0
  n_cut = 0
  n_cut_occ_regular = 0
  n_cut_occ_near_pole = 0
  n_wx_negative = 0
  n_clamp_decides_cut = 0
  n_ambiguous = 0
  do n1 = 1, peinf_ntband_dist
    do my_igp = 1, ngpown
      do ig = 1, ncouls
        wtilde = cmplx(wtilde_array(ig, my_igp), kind=qp)
        I_eps = cmplx(I_eps_array(ig, my_igp), kind=qp)
        mat = conjg(cmplx(aqsmtemp_local(my_igp, n1), kind=qp)) * cmplx(aqsntemp(ig, n1), kind=qp)
        do w = 1, nw
          call term(wtilde, I_eps, real(wx_array_t(w, n1), qp), .true., sch, ssx, branch, cut)
          select case (branch)
          case (0)
            n_regular = n_regular + 1
          case (1)
            n_near_pole = n_near_pole + 1
          case default
            n_zero = n_zero + 1
          end select
          if (wx_array_t(w, n1) < 0.0_dp) n_wx_negative = n_wx_negative + 1
          if (cut) then
            ! every band, as gpp's branch statistics count; the cut changes results only
            ! for occupied bands (occ > 0), counted per arm
            n_cut = n_cut + 1
            if (occ_array(n1) > 0.0_dp .and. branch == 0) n_cut_occ_regular = n_cut_occ_regular + 1
            if (occ_array(n1) > 0.0_dp .and. branch == 1) n_cut_occ_near_pole = n_cut_occ_near_pole + 1
          end if
          if (clamped(w, n1) .and. occ_array(n1) > 0.0_dp) then
            ! Would the term without the clamp have been cut where the clamped one is not?
            call term(wtilde, I_eps, real(wx_unclamped(w, n1), qp), .false., sch_u, ssx_u, branch_u, cut_unclamped)
            if (cut_unclamped .neqv. cut) n_clamp_decides_cut = n_clamp_decides_cut + 1
          end if
          t = vcoul_loc(my_igp) * occ_array(n1) * ssx * mat
          ssx_sum(w) = ssx_sum(w) + t
          ssx_mag(w) = ssx_mag(w) + abs(real(t, qp)) + abs(aimag(t))
          t = vcoul_loc(my_igp) * sch * mat * 0.5_qp
          sch_sum(w) = sch_sum(w) + t
          sch_mag(w) = sch_mag(w) + abs(real(t, qp)) + abs(aimag(t))
        end do
      end do
    end do
  end do

  ! ---- static remainder (spec section 1):
  ! achstemp = sum_{n1,igp} 0.5 vcoul_loc(igp) conj(aqsmtemp_local(igp,n1)) S(n1,igp),
  ! S(n1,igp) = - sum_ig aqsntemp(ig,n1) I_eps_array(ig,igp)
  achstemp = (0.0_qp, 0.0_qp)
  achstemp_mag = 0.0_qp
  do n1 = 1, peinf_ntband_dist
    do my_igp = 1, ngpown
      s_sum = (0.0_qp, 0.0_qp)
      s_mag = 0.0_qp
      do ig = 1, ncouls
        t = cmplx(aqsntemp(ig, n1), kind=qp) * cmplx(I_eps_array(ig, my_igp), kind=qp)
        s_sum = s_sum - t
        s_mag = s_mag + abs(real(t, qp)) + abs(aimag(t))
      end do
      t = 0.5_qp * vcoul_loc(my_igp) * conjg(cmplx(aqsmtemp_local(my_igp, n1), kind=qp))
      achstemp = achstemp + t * s_sum
      achstemp_mag = achstemp_mag + (abs(real(t, qp)) + abs(aimag(t))) * s_mag
    end do
  end do

  ! ---- output
  write (output_unit, '(a)') '# gpp_oracle: Sigma-GPP from the spec, quad-precision terms and sums (docs/oracle.md)'
  write (output_unit, '(a)') 'oracle_format 1'
  call put_int('nbands', int(peinf_ntband_dist, int64))
  call put_int('ngpown', int(ngpown, int64))
  call put_int('ncouls', int(ncouls, int64))
  call put_int('nstart', int(nstart, int64))
  call put_int('nend', int(nend, int64))
  call put_int('terms_per_sum', int(peinf_ntband_dist, int64) * ngpown * ncouls)
  do iw = nstart, nend
    w = iw - nstart + 1
    write (arg, '(i0)') iw
    ! spec section 1: asxtemp = asxtemp0 - ssx_sum, achtemp = achtemp0 + sch_sum (records
    ! 15 and 16 hold iw = 1..3; other frequencies start from zero)
    asx0 = (0.0_dp, 0.0_dp)
    ach0 = (0.0_dp, 0.0_dp)
    if (iw >= 1 .and. iw <= 3) then
      asx0 = asxtemp0(iw)
      ach0 = achtemp0(iw)
    end if
    call put_complex('achtemp '//trim(arg), cmplx(ach0, kind=qp) + sch_sum(w))
    call put_complex('asxtemp '//trim(arg), cmplx(asx0, kind=qp) - ssx_sum(w))
    call put_real('sch_magnitude '//trim(arg), sch_mag(w) + abs(real(ach0, qp)) + abs(aimag(ach0)))
    call put_real('ssx_magnitude '//trim(arg), ssx_mag(w) + abs(real(asx0, qp)) + abs(aimag(asx0)))
  end do
  call put_complex('achstemp', achstemp)
  call put_real('achstemp_magnitude', achstemp_mag)
  call put_int('branch_regular', n_regular)
  call put_int('branch_near_pole', n_near_pole)
  call put_int('branch_near_pole_limitone', n_near_pole_limitone)
  call put_int('branch_zero', n_zero)
  call put_int('cut', n_cut)
  call put_int('cut_occupied_regular', n_cut_occ_regular)
  call put_int('cut_occupied_near_pole', n_cut_occ_near_pole)
  call put_int('wx_negative_terms', n_wx_negative)
  call put_int('wx_clamped', int(n_clamped, int64))
  call put_int('clamp_decides_cut', n_clamp_decides_cut)
  call put_int('bands_occupied', int(n_occupied, int64))
  call put_int('bands_half', int(n_half, int64))
  call put_int('bands_empty', int(n_empty, int64))
  call put_int('gp_skipped', int(n_skipped, int64))
  call put_int('ambiguous_decisions', n_ambiguous)
  call fingerprint()

contains

  ! One term, spec section 1, literal: complex divide, abs, 3-way branch, then the cutoff.
  ! branch: 0 regular, 1 near pole, 2 zero. With tally, also counts the near-pole terms
  ! taken through delwr >= limitone and the decisions too close to call.
  subroutine term(wtilde, I_eps, wxt, tally, sch, ssx, branch, cut)
    complex(qp), intent(in) :: wtilde, I_eps
    real(qp), intent(in) :: wxt
    logical, intent(in) :: tally
    complex(qp), intent(out) :: sch, ssx
    integer, intent(out) :: branch
    logical, intent(out) :: cut
    complex(qp) :: wtilde2, Omega2, wdiff, delw, cden
    real(qp) :: delwr, wdiffr, lim1, lim2, tz, cut_at

    lim1 = real(limitone, qp)
    lim2 = real(limittwo, qp)
    tz = real(TOL_Zero, qp)
    wtilde2 = wtilde**2
    Omega2 = wtilde2 * I_eps
    wdiff = wxt - wtilde
    delw = wtilde / wdiff
    delwr = real(delw, qp)**2 + aimag(delw)**2
    wdiffr = real(wdiff, qp)**2 + aimag(wdiff)**2
    if (tally) then
      if (abs(wdiffr - lim2) <= ambiguous * lim2 .or. abs(delwr - lim1) <= ambiguous * lim1 .or. &
          abs(delwr - tz) <= ambiguous * tz) n_ambiguous = n_ambiguous + 1
    end if
    if (wdiffr > lim2 .and. delwr < lim1) then
      sch = delw * I_eps
      cden = wxt**2 - wtilde2
      ssx = Omega2 / cden
      branch = 0
    else if (delwr > tz) then
      sch = (0.0_qp, 0.0_qp)
      cden = 4.0_qp * wtilde2 * (delw + 0.5_qp)
      ssx = -Omega2 * delw / cden
      branch = 1
      if (tally .and. wdiffr > lim2) n_near_pole_limitone = n_near_pole_limitone + 1
    else
      sch = (0.0_qp, 0.0_qp)
      ssx = (0.0_qp, 0.0_qp)
      branch = 2
    end if
    cut = .false.
    if (wxt < 0.0_qp) then
      cut_at = real(sexcut, qp) * abs(I_eps)
      if (tally .and. cut_at > 0.0_qp .and. abs(abs(ssx) - cut_at) <= ambiguous * cut_at) n_ambiguous = n_ambiguous + 1
      cut = abs(ssx) > cut_at
    end if
    if (cut) ssx = (0.0_qp, 0.0_qp)
  end subroutine term

  ! Sums over the input data, to tell that a stored result belongs to the data at hand.
  subroutine fingerprint()
    integer(int64) :: k, s
    s = 0
    do k = 1, peinf_ntband_max
      s = s + k * peinf_indext_dist(k)
    end do
    call put_int('fingerprint_peinf_indext_dist', s)
    s = 0
    do k = 1, epsmpi_ngpown_max
      s = s + k * inv_igp_index(k)
    end do
    call put_int('fingerprint_inv_igp_index', s)
    s = 0
    do k = 1, gvec_ng
      s = s + k * indinv(k)
    end do
    call put_int('fingerprint_indinv', s)
    call put_real('fingerprint_wfnkq_ekq', sum(real(wfnkq_ekq, qp)))
    call put_real('fingerprint_vcoul', sum(real(vcoul, qp)))
    call put_complex('fingerprint_aqsmtemp', sum(cmplx(aqsmtemp, kind=qp)))
    call put_complex('fingerprint_aqsntemp', sum(cmplx(aqsntemp, kind=qp)))
    call put_complex('fingerprint_wtilde_array', sum(cmplx(wtilde_array, kind=qp)))
    call put_complex('fingerprint_I_eps_array', sum(cmplx(I_eps_array, kind=qp)))
    call put_real('fingerprint_scalars', real(e_lk, qp) + real(sig_dw, qp) + real(sig_gamma, qp) + real(sexcut, qp) &
                  + real(efermi, qp) + real(tol, qp) + real(nvband, qp))
  end subroutine fingerprint

  ! ---- reading: spec section 2, every record marker checked against the header's sizes
  subroutine read_file(p)
    character(len=*), intent(in) :: p
    integer :: ios
    integer(int64) :: fsize, pos
    character(len=512) :: msg
    integer(int64) :: cplx_bytes

    open (newunit=u, file=p, access='stream', form='unformatted', status='old', action='read', iostat=ios, iomsg=msg)
    if (ios /= 0) call fail(p//': cannot open: '//trim(msg))
    inquire (unit=u, size=fsize)
    call begin_record(1, 20_int64)
    read (u, iostat=ios) sig_ntband, gvec_ng, ncoul, epsmpi_ngpown_max, peinf_ntband_max
    call end_record(1, 20_int64, ios)
    if (min(sig_ntband, gvec_ng, ncoul, epsmpi_ngpown_max, peinf_ntband_max) <= 0) &
      call fail(p//': record 1: every size must be positive')
    call begin_record(2, 20_int64)
    read (u, iostat=ios) peinf_ntband_dist, ipe, ispin, ngpown, ncouls
    call end_record(2, 20_int64, ios)
    if (min(peinf_ntband_dist, ngpown, ncouls) <= 0) call fail(p//': record 2: every size must be positive')
    if (peinf_ntband_dist > peinf_ntband_max) call fail(p//': record 2: peinf_ntband_dist exceeds peinf_ntband_max')
    if (ngpown > epsmpi_ngpown_max) call fail(p//': record 2: ngpown exceeds epsmpi_ngpown_max')
    if (ncouls > ncoul) call fail(p//': record 2: ncouls exceeds ncoul')
    cplx_bytes = 16_int64 * ncouls
    ! A matrix larger than the whole file cannot be in it: refuse before allocating.
    if (cplx_bytes * max(peinf_ntband_max, ngpown) > fsize) call fail(p//': records 1-2: sizes exceed the file')
    allocate (peinf_indext_dist(peinf_ntband_max), wfnkq_ekq(sig_ntband), inv_igp_index(epsmpi_ngpown_max))
    allocate (indinv(gvec_ng), aqsmtemp(ncouls, peinf_ntband_max), vcoul(ncoul))
    allocate (wtilde_array(ncouls, ngpown), I_eps_array(ncouls, ngpown), aqsntemp(ncouls, peinf_ntband_max))

    call begin_record(3, 4_int64 * peinf_ntband_max)
    read (u, iostat=ios) peinf_indext_dist
    call end_record(3, 4_int64 * peinf_ntband_max, ios)
    call begin_record(4, 8_int64 * sig_ntband)
    read (u, iostat=ios) wfnkq_ekq
    call end_record(4, 8_int64 * sig_ntband, ios)
    call begin_record(5, 36_int64)
    read (u, iostat=ios) nstart, nend, sig_fdf, sig_dw, sig_gamma, e_lk
    call end_record(5, 36_int64, ios)
    if (nstart < 1 .or. nend > 3 .or. nstart > nend) call fail(p//': record 5: need 1 <= nstart <= nend <= 3')
    call begin_record(6, 4_int64 * epsmpi_ngpown_max)
    read (u, iostat=ios) inv_igp_index
    call end_record(6, 4_int64 * epsmpi_ngpown_max, ios)
    call begin_record(7, 4_int64 + 4_int64 * gvec_ng)
    read (u, iostat=ios) ng, indinv
    call end_record(7, 4_int64 + 4_int64 * gvec_ng, ios)
    if (ng /= gvec_ng) call fail(p//': record 7: gvec_ng differs from record 1')
    call begin_record(8, cplx_bytes * peinf_ntband_max)
    read (u, iostat=ios) aqsmtemp
    call end_record(8, cplx_bytes * peinf_ntband_max, ios)
    call begin_record(9, 20_int64)
    read (u, iostat=ios) nvband, tol, efermi
    call end_record(9, 20_int64, ios)
    call begin_record(10, 8_int64 * ncoul)
    read (u, iostat=ios) vcoul
    call end_record(10, 8_int64 * ncoul, ios)
    call begin_record(11, 24_int64)
    read (u, iostat=ios) sexcut, limittwo_read, limitone_read
    call end_record(11, 24_int64, ios)
    if (.not. (sexcut >= 0.0_dp)) call fail(p//': record 11: sexcut must be non-negative')
    call begin_record(12, cplx_bytes * ngpown)
    read (u, iostat=ios) wtilde_array
    call end_record(12, cplx_bytes * ngpown, ios)
    call begin_record(13, cplx_bytes * ngpown)
    read (u, iostat=ios) I_eps_array
    call end_record(13, cplx_bytes * ngpown, ios)
    call begin_record(14, cplx_bytes * peinf_ntband_max)
    read (u, iostat=ios) aqsntemp
    call end_record(14, cplx_bytes * peinf_ntband_max, ios)
    call begin_record(15, 48_int64)
    read (u, iostat=ios) asxtemp0
    call end_record(15, 48_int64, ios)
    call begin_record(16, 48_int64)
    read (u, iostat=ios) achtemp0
    call end_record(16, 48_int64, ios)
    call begin_record(17, 48_int64)
    read (u, iostat=ios) asxtempref
    call end_record(17, 48_int64, ios)
    call begin_record(18, 48_int64)
    read (u, iostat=ios) achtempref
    call end_record(18, 48_int64, ios)
    inquire (unit=u, pos=pos)
    if (pos - 1 /= fsize) call fail(p//': trailing data after record 18')
    close (u)

    do n1 = 1, peinf_ntband_dist
      if (peinf_indext_dist(n1) < 1 .or. peinf_indext_dist(n1) > sig_ntband) &
        call fail(p//': record 3: peinf_indext_dist outside 1..sig_ntband')
    end do
    do my_igp = 1, ngpown
      if (inv_igp_index(my_igp) < 1 .or. inv_igp_index(my_igp) > gvec_ng) &
        call fail(p//': record 6: inv_igp_index outside 1..gvec_ng')
    end do
  end subroutine read_file

  subroutine begin_record(rec, nbytes)
    integer, intent(in) :: rec
    integer(int64), intent(in) :: nbytes
    integer(int32) :: marker
    integer :: ios
    read (u, iostat=ios) marker
    if (ios /= 0) call fail(trim(path)//': record '//itoa(rec)//': missing (the file ends)')
    if (int(marker, int64) /= nbytes) &
      call fail(trim(path)//': record '//itoa(rec)//': marker says '//itoa(int(marker, int64))//' bytes, expected '// &
                itoa(nbytes))
  end subroutine begin_record

  subroutine end_record(rec, nbytes, read_status)
    integer, intent(in) :: rec, read_status
    integer(int64), intent(in) :: nbytes
    integer(int32) :: marker
    integer :: ios
    if (read_status /= 0) call fail(trim(path)//': record '//itoa(rec)//': the file ends inside the record')
    read (u, iostat=ios) marker
    if (ios /= 0 .or. int(marker, int64) /= nbytes) &
      call fail(trim(path)//': record '//itoa(rec)//': trailing marker does not match the leading one')
  end subroutine end_record

  function itoa(i) result(s)
    class(*), intent(in) :: i
    character(len=:), allocatable :: s
    character(len=24) :: b
    select type (i)
    type is (integer(int32))
      write (b, '(i0)') i
    type is (integer(int64))
      write (b, '(i0)') i
    class default
      b = '?'
    end select
    s = trim(b)
  end function itoa

  subroutine put_int(key, v)
    character(len=*), intent(in) :: key
    integer(int64), intent(in) :: v
    write (output_unit, '(a,1x,i0)') key, v
  end subroutine put_int

  ! 20 significant digits: one before the point, 19 after.
  subroutine put_real(key, v)
    character(len=*), intent(in) :: key
    real(qp), intent(in) :: v
    write (output_unit, '(a,1x,es27.19e3)') key, v
  end subroutine put_real

  subroutine put_complex(key, v)
    character(len=*), intent(in) :: key
    complex(qp), intent(in) :: v
    write (output_unit, '(a,2(1x,es27.19e3))') key, real(v, qp), aimag(v)
  end subroutine put_complex

  subroutine fail(msg)
    character(len=*), intent(in) :: msg
    write (error_unit, '(a)') 'gpp_oracle: '//msg
    stop 1, quiet=.true.
  end subroutine fail

end program gpp_oracle
