! Reads a gpp .dat input file record by record as the NERSC GPP benchmark's Fortran
! reader does (sequential unformatted, the compiler's own record markers), prints what
! it read, and writes it back with the same READ/WRITE lists. The tests run it on files
! gpp writes: gfortran must accept them and write back the same bytes (docs/io.md).
!
! usage: fortran_dat_roundtrip IN.dat OUT.dat
program fortran_dat_roundtrip
  implicit none
  integer :: sig_ntband, gvec_ng, ncoul, epsmpi_ngpown_max, peinf_ntband_max
  integer :: peinf_ntband_dist, ipe, ispin, ngpown, ncouls, nstart, nend, sig_fdf, nvband, ng
  double precision :: sig_dw, sig_gamma, e_lk, tol, efermi, sexcut, limittwo, limitone
  integer, allocatable :: peinf_indext_dist(:), inv_igp_index(:), indinv(:)
  double precision, allocatable :: wfnkq_ekq(:), vcoul(:)
  complex(kind=8), allocatable :: aqsmtemp(:, :), aqsntemp(:, :), wtilde_array(:, :), I_eps_array(:, :)
  complex(kind=8) :: asxtemp(3), achtemp(3), asxtempref(3), achtempref(3)
  character(len=4096) :: fin, fout

  call get_command_argument(1, fin)
  call get_command_argument(2, fout)
  open (10, file=trim(fin), form='unformatted', access='sequential', status='old', action='read')
  read (10) sig_ntband, gvec_ng, ncoul, epsmpi_ngpown_max, peinf_ntband_max
  read (10) peinf_ntband_dist, ipe, ispin, ngpown, ncouls
  allocate (peinf_indext_dist(peinf_ntband_max), wfnkq_ekq(sig_ntband), inv_igp_index(epsmpi_ngpown_max))
  allocate (indinv(gvec_ng), aqsmtemp(ncouls, peinf_ntband_max), vcoul(ncoul))
  allocate (wtilde_array(ncouls, ngpown), I_eps_array(ncouls, ngpown), aqsntemp(ncouls, peinf_ntband_max))
  read (10) peinf_indext_dist
  read (10) wfnkq_ekq
  read (10) nstart, nend, sig_fdf, sig_dw, sig_gamma, e_lk
  read (10) inv_igp_index
  read (10) ng, indinv
  read (10) aqsmtemp
  read (10) nvband, tol, efermi
  read (10) vcoul
  read (10) sexcut, limittwo, limitone
  read (10) wtilde_array
  read (10) I_eps_array
  read (10) aqsntemp
  read (10) asxtemp
  read (10) achtemp
  read (10) asxtempref
  read (10) achtempref
  close (10)

  print '(a,5i12)', 'sizes ', sig_ntband, gvec_ng, ncoul, epsmpi_ngpown_max, peinf_ntband_max
  print '(a,5i12)', 'local ', peinf_ntband_dist, ipe, ispin, ngpown, ncouls
  print '(a,4i12)', 'iw ', nstart, nend, sig_fdf, ng
  print '(a,es26.17e3)', 'e_lk ', e_lk
  print '(a,2es26.17e3)', 'I_eps_array(3,5) ', I_eps_array(3, 5)
  print '(a,2es26.17e3)', 'aqsmtemp(7,2) ', aqsmtemp(7, 2)
  print '(a,2es26.17e3)', 'achtempref(3) ', achtempref(3)
  print '(a,2es26.17e3)', 'asxtemp(1) ', asxtemp(1)

  open (11, file=trim(fout), form='unformatted', access='sequential', status='replace', action='write')
  write (11) sig_ntband, gvec_ng, ncoul, epsmpi_ngpown_max, peinf_ntband_max
  write (11) peinf_ntband_dist, ipe, ispin, ngpown, ncouls
  write (11) peinf_indext_dist
  write (11) wfnkq_ekq
  write (11) nstart, nend, sig_fdf, sig_dw, sig_gamma, e_lk
  write (11) inv_igp_index
  write (11) ng, indinv
  write (11) aqsmtemp
  write (11) nvband, tol, efermi
  write (11) vcoul
  write (11) sexcut, limittwo, limitone
  write (11) wtilde_array
  write (11) I_eps_array
  write (11) aqsntemp
  write (11) asxtemp
  write (11) achtemp
  write (11) asxtempref
  write (11) achtempref
  close (11)
end program fortran_dat_roundtrip
