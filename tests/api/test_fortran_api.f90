! Bad input at the Fortran module gpp: each case is refused with its status and a
! one-line message naming the problem, the program goes on, and the outputs keep their
! values (nothing is written when a call fails). Wrong types are the compiler's to refuse
! (Library.Fortran.WrongTypeRefused compiles fortran_wrong_type.f90).
!   test_fortran_api            every case
!   test_fortran_api no-device  run with GPP_TEST_NO_DEVICE=1: gpp_init cannot start Kokkos
program test_fortran_api
  use gpp
  use, intrinsic :: iso_c_binding, only: c_loc, c_f_pointer, c_null_ptr, c_ptr
  use, intrinsic :: ieee_arithmetic, only: ieee_value, ieee_quiet_nan, ieee_positive_inf
  implicit none
  integer, parameter :: dp = gpp_dp, ncouls = 19, ngpown = 5, nbands = 6, nw = 2
  complex(dp), allocatable, target :: aqsntemp(:, :), aqsmtemp_local(:, :), I_eps_array(:, :), wtilde_array(:, :)
  complex(dp), allocatable, target :: wide(:, :)
  real(dp), allocatable, target :: wx_array_t(:, :), occ_array(:), vcoul_loc(:)
  complex(dp), pointer :: huge_view(:, :), huge_bands(:, :), null_view(:, :)
  complex(dp) :: achtemp(nw), asxtemp(nw), achstemp
  type(gpp_context) :: ctx
  integer :: status, failures, i, j
  character(len=32) :: mode

  failures = 0
  mode = ''
  if (command_argument_count() > 0) call get_command_argument(1, mode)
  if (mode == 'no-device') then
    call gpp_init(ctx, status)
    call expect('gpp_init without the device', GPP_ERROR_RUNTIME, 'GPP_TEST_NO_DEVICE')
    call finish()
  end if

  allocate (aqsntemp(ncouls, nbands), aqsmtemp_local(ngpown, nbands), I_eps_array(ncouls, ngpown), &
            wtilde_array(ncouls, ngpown), wx_array_t(nw, nbands), occ_array(nbands), vcoul_loc(ngpown), &
            wide(2 * ncouls, ngpown))
  do j = 1, nbands
    do i = 1, ncouls
      aqsntemp(i, j) = cmplx(0.01_dp * i, -0.02_dp * j, dp)
    end do
    aqsmtemp_local(:, j) = cmplx(0.3_dp, 0.1_dp * j, dp)
    wx_array_t(:, j) = [-2.0_dp + j, -1.5_dp + j]
  end do
  do j = 1, ngpown
    do i = 1, ncouls
      I_eps_array(i, j) = cmplx(0.5_dp / (1 + abs(i - 3 * j)), 0.1_dp, dp)
      wtilde_array(i, j) = cmplx(0.5_dp + 0.3_dp * i, -0.01_dp, dp)
    end do
  end do
  wide = (1.0_dp, 0.0_dp)
  occ_array = [1.0_dp, 1.0_dp, 0.5_dp, 0.0_dp, 0.0_dp, 0.0_dp]
  vcoul_loc = [1.0_dp, 0.5_dp, 0.0_dp, 0.25_dp, 0.2_dp]

  call gpp_init(ctx, status)
  call expect('gpp_init', GPP_OK, '')
  if (status /= GPP_OK) call finish()

  ! A section with a stride: refused, not copied.
  call compute_refused('non-contiguous I_eps_array', wide(1:2 * ncouls:2, :), wtilde_array, aqsmtemp_local, &
                       wx_array_t, 4.0_dp, 0.25_dp, GPP_ERROR_ARGUMENT, 'I_eps_array is not contiguous')
  ! aqsmtemp_local as (nbands, ngpown): the wrong shape.
  call compute_refused('transposed aqsmtemp_local', I_eps_array, wtilde_array, transpose(aqsmtemp_local), &
                       wx_array_t, 4.0_dp, 0.25_dp, GPP_ERROR_ARGUMENT, &
                       'aqsmtemp_local is (6, 5); it must be (ngpown, nbands) = (5, 6)')
  call compute_refused('wx_array_t of other bands', I_eps_array, wtilde_array, aqsmtemp_local, &
                       wx_array_t(:, 1:nbands - 1), 4.0_dp, 0.25_dp, GPP_ERROR_ARGUMENT, &
                       'wx_array_t is (2, 5); it must be (nw, nbands) = (2, 6)')
  call compute_refused('limittwo NaN', I_eps_array, wtilde_array, aqsmtemp_local, wx_array_t, 4.0_dp, &
                       ieee_value(1.0_dp, ieee_quiet_nan), GPP_ERROR_ARGUMENT, 'limittwo is not finite')
  ! NaN and Inf in the arrays (restored after).
  I_eps_array(4, 2) = cmplx(ieee_value(1.0_dp, ieee_quiet_nan), 0.0_dp, dp)
  call compute_refused('NaN in I_eps_array', I_eps_array, wtilde_array, aqsmtemp_local, wx_array_t, 4.0_dp, &
                       0.25_dp, GPP_ERROR_ARGUMENT, 'I_eps_array(4, 2) is not finite')
  I_eps_array(4, 2) = (0.1_dp, 0.1_dp)
  wx_array_t(2, 3) = ieee_value(1.0_dp, ieee_positive_inf)
  call compute_refused('Inf in wx_array_t', I_eps_array, wtilde_array, aqsmtemp_local, wx_array_t, 4.0_dp, &
                       0.25_dp, GPP_ERROR_ARGUMENT, 'wx_array_t(2, 3) is not finite')
  wx_array_t(2, 3) = 0.5_dp
  ! Sizes whose arrays could not exist (a view of 2^30 x 2^30 elements over a small array:
  ! refused before an element is read).
  call c_f_pointer(c_loc(wide), huge_view, [2**30, 2**30])
  call c_f_pointer(c_loc(wide), huge_bands, [2**30, nbands])
  call gpp_compute(ctx, huge_bands, aqsmtemp_local, huge_view, wtilde_array, wx_array_t, occ_array, vcoul_loc, &
                   4.0_dp, 0.25_dp, achtemp, asxtemp, achstemp, status)
  call expect('sizes whose product overflows', GPP_ERROR_ARGUMENT, 'larger than any memory')
  ! A null address (an array of C's never allocated).
  call c_f_pointer(c_null_ptr, null_view, [ncouls, ngpown])
  call compute_refused('null array', I_eps_array, null_view, aqsmtemp_local, wx_array_t, 4.0_dp, 0.25_dp, &
                       GPP_ERROR_ARGUMENT, 'wtilde_array is a null pointer')
  ! Options and policies.
  call gpp_set_option(ctx, 'colour', 'blue', status)
  call expect('unknown option', GPP_ERROR_ARGUMENT, "unknown option 'colour'")
  call gpp_set_option(ctx, 'policy', 'v2-branch3', status)
  call expect('set policy', GPP_OK, '')
  call compute_refused('unknown policy', I_eps_array, wtilde_array, aqsmtemp_local, wx_array_t, 4.0_dp, 0.25_dp, &
                       GPP_ERROR_POLICY, "unknown policy 'v2-branch3'")
  call gpp_set_option(ctx, 'policy', '', status)
  ! And a good call: the outputs written.
  achtemp = 0
  asxtemp = 0
  achstemp = 0
  call gpp_compute(ctx, aqsntemp, aqsmtemp_local, I_eps_array, wtilde_array, wx_array_t, occ_array, vcoul_loc, &
                   4.0_dp, 0.25_dp, achtemp, asxtemp, achstemp, status)
  call expect('a good call', GPP_OK, '')
  if (all(achtemp == 0) .or. achstemp == 0) call fail('a good call wrote no sums')
  call gpp_finalize(ctx, status)
  call expect('gpp_finalize', GPP_OK, '')
  call finish()

contains

  subroutine compute_refused(what, eps, wt, aqsm, wx, sexcut, limittwo, want, text)
    character(len=*), intent(in) :: what, text
    complex(dp), intent(in), target :: eps(:, :), wt(:, :), aqsm(:, :)
    real(dp), intent(in), target :: wx(:, :)
    real(dp), intent(in) :: sexcut, limittwo
    integer, intent(in) :: want
    achtemp = (7.0_dp, 7.0_dp)
    asxtemp = (7.0_dp, 7.0_dp)
    achstemp = (7.0_dp, 7.0_dp)
    call gpp_compute(ctx, aqsntemp, aqsm, eps, wt, wx, occ_array, vcoul_loc, sexcut, limittwo, achtemp, asxtemp, &
                     achstemp, status)
    call expect(what, want, text)
    if (any(achtemp /= (7.0_dp, 7.0_dp)) .or. any(asxtemp /= (7.0_dp, 7.0_dp)) .or. achstemp /= (7.0_dp, 7.0_dp)) &
      call fail(what // ': a refused call wrote its outputs')
  end subroutine compute_refused

  subroutine expect(what, want, text)
    character(len=*), intent(in) :: what, text
    integer, intent(in) :: want
    character(len=:), allocatable :: message
    message = gpp_last_error()
    if (status == want .and. (want == GPP_OK .or. index(message, text) > 0)) then
      print '(a, a, a, a)', 'ok   ', what, ': ', message
    else
      print '(a, a, a, i0, a, a, a, i0, a, a)', 'FAIL ', what, ': status ', status, ' (', message, '), expected ', &
        want, ' with ', text
      failures = failures + 1
    end if
  end subroutine expect

  subroutine fail(what)
    character(len=*), intent(in) :: what
    print '(a, a)', 'FAIL ', what
    failures = failures + 1
  end subroutine fail

  subroutine finish()
    if (failures > 0) then
      print '(i0, a)', failures, ' failures'
      stop 1
    end if
    print '(a)', 'passed'
    stop
  end subroutine finish

end program test_fortran_api
