! Compiled by Library.Fortran.WrongTypeRefused: with -DGPP_WRONG_TYPE, aqsntemp is
! complex(4), which the module's explicit interface must refuse at compile time; without
! it the same program compiles (the check can fail).
program fortran_wrong_type
  use gpp
  implicit none
  integer, parameter :: dp = gpp_dp
#ifdef GPP_WRONG_TYPE
  complex(4) :: aqsntemp(3, 2)
#else
  complex(dp) :: aqsntemp(3, 2)
#endif
  complex(dp) :: aqsmtemp_local(2, 2), I_eps_array(3, 2), wtilde_array(3, 2), achtemp(1), asxtemp(1), achstemp
  real(dp) :: wx_array_t(1, 2), occ_array(2), vcoul_loc(2)
  type(gpp_context) :: ctx
  integer :: status
  aqsntemp = 0
  aqsmtemp_local = 0
  I_eps_array = 0
  wtilde_array = 0
  wx_array_t = 1
  occ_array = 1
  vcoul_loc = 1
  call gpp_compute(ctx, aqsntemp, aqsmtemp_local, I_eps_array, wtilde_array, wx_array_t, occ_array, vcoul_loc, &
                   4.0_dp, 0.25_dp, achtemp, asxtemp, achstemp, status)
end program fortran_wrong_type
