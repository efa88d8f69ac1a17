! The Fortran 2008 module `gpp` (docs/library.md): the GPP sums on BerkeleyGW's arrays, as
! Sigma holds them (complex(dp) and real(dp), column-major, the benchmark's shapes),
! through the C interface <gpp/gpp.h> (ISO_C_BINDING). The arrays are passed by address
! and read where they are: an array that is not contiguous (a section with a stride) is
! refused rather than copied by the compiler (the dummies are assumed-shape without the
! CONTIGUOUS attribute, and IS_CONTIGUOUS decides). Every procedure returns a status
! (GPP_OK or an error); none stops the program.
module gpp
  use, intrinsic :: iso_c_binding, only: c_ptr, c_null_ptr, c_int, c_int64_t, c_double, c_double_complex, &
                                         c_char, c_null_char, c_loc, c_associated, c_f_pointer
  implicit none
  private

  integer, parameter, public :: gpp_dp = c_double

  ! gpp_status (gpp.h)
  integer, parameter, public :: GPP_OK = 0, GPP_ERROR_ARGUMENT = 1, GPP_ERROR_RUNTIME = 2, GPP_ERROR_POLICY = 3, &
                                GPP_ERROR_VERIFICATION = 4, GPP_ERROR_MEMORY = 5, GPP_ERROR_MPI = 6, &
                                GPP_ERROR_INTERNAL = 7

  !> A context: Kokkos for the library (started unless it runs, finalized when the last
  !> context that started it is destroyed) and the options of the computations.
  type, public :: gpp_context
    type(c_ptr) :: handle = c_null_ptr
  end type gpp_context

  public :: gpp_init, gpp_finalize, gpp_set_option, gpp_set_tunable, gpp_set_mpi_comm, gpp_compute, &
            gpp_last_error, gpp_record_json, gpp_result_value, gpp_version

  ! gpp_array and gpp_type (gpp.h)
  integer(c_int), parameter :: ARRAY_AQSNTEMP = 0, ARRAY_AQSMTEMP_LOCAL = 1, ARRAY_I_EPS = 2, ARRAY_WTILDE = 3, &
                               ARRAY_WX_T = 4, ARRAY_OCC = 5, ARRAY_VCOUL_LOC = 6
  integer(c_int), parameter :: FLOAT64 = 0, COMPLEX128 = 1

  interface
    integer(c_int) function c_context_create(context, argc, argv) bind(C, name="gpp_context_create")
      import :: c_ptr, c_int
      type(c_ptr), intent(out) :: context
      integer(c_int), value :: argc
      type(c_ptr), value :: argv
    end function
    integer(c_int) function c_context_destroy(context) bind(C, name="gpp_context_destroy")
      import :: c_ptr, c_int
      type(c_ptr), value :: context
    end function
    integer(c_int) function c_set_option(context, name, value) bind(C, name="gpp_set_option")
      import :: c_ptr, c_int, c_char
      type(c_ptr), value :: context
      character(kind=c_char), intent(in) :: name(*), value(*)
    end function
    integer(c_int) function c_set_tunable(context, name, value) bind(C, name="gpp_set_tunable")
      import :: c_ptr, c_int, c_char
      type(c_ptr), value :: context
      character(kind=c_char), intent(in) :: name(*), value(*)
    end function
    integer(c_int) function c_set_mpi_comm(context, comm) bind(C, name="gpp_set_mpi_comm")
      import :: c_ptr, c_int, c_int64_t
      type(c_ptr), value :: context
      integer(c_int64_t), value :: comm
    end function
    integer(c_int) function c_deck_create(deck) bind(C, name="gpp_deck_create")
      import :: c_ptr, c_int
      type(c_ptr), intent(out) :: deck
    end function
    integer(c_int) function c_deck_destroy(deck) bind(C, name="gpp_deck_destroy")
      import :: c_ptr, c_int
      type(c_ptr), value :: deck
    end function
    integer(c_int) function c_deck_set_array(deck, which, type, data, rows, cols) bind(C, name="gpp_deck_set_array")
      import :: c_ptr, c_int, c_int64_t
      type(c_ptr), value :: deck
      integer(c_int), value :: which, type
      type(c_ptr), value :: data
      integer(c_int64_t), value :: rows, cols
    end function
    integer(c_int) function c_deck_set_scalar(deck, name, value) bind(C, name="gpp_deck_set_scalar")
      import :: c_ptr, c_int, c_char, c_double
      type(c_ptr), value :: deck
      character(kind=c_char), intent(in) :: name(*)
      real(c_double), value :: value
    end function
    integer(c_int) function c_compute(context, deck, achtemp, asxtemp, achstemp, nw) bind(C, name="gpp_compute")
      import :: c_ptr, c_int, c_int64_t
      type(c_ptr), value :: context, deck, achtemp, asxtemp, achstemp
      integer(c_int64_t), value :: nw
    end function
    integer(c_int) function c_result_value(context, name, value) bind(C, name="gpp_result_value")
      import :: c_ptr, c_int, c_char, c_double
      type(c_ptr), value :: context
      character(kind=c_char), intent(in) :: name(*)
      real(c_double), intent(out) :: value
    end function
    integer(c_int) function c_report_error(status, message) bind(C, name="gpp_report_error")
      import :: c_int, c_char
      integer(c_int), value :: status
      character(kind=c_char), intent(in) :: message(*)
    end function
    type(c_ptr) function c_last_error() bind(C, name="gpp_last_error")
      import :: c_ptr
    end function
    type(c_ptr) function c_record_json(context) bind(C, name="gpp_record_json")
      import :: c_ptr
      type(c_ptr), value :: context
    end function
    type(c_ptr) function c_version() bind(C, name="gpp_version")
      import :: c_ptr
    end function
    integer(c_int64_t) function c_strlen(s) bind(C, name="strlen")
      import :: c_ptr, c_int64_t
      type(c_ptr), value :: s
    end function
  end interface

contains

  ! A Fortran string as a C string.
  pure function c_string(s) result(c)
    character(len=*), intent(in) :: s
    character(kind=c_char, len=len(s) + 1) :: c
    c = s // c_null_char
  end function c_string

  ! A C string as a Fortran string.
  function f_string(p) result(s)
    type(c_ptr), intent(in) :: p
    character(len=:), allocatable :: s
    character(kind=c_char), pointer :: chars(:)
    integer :: i, n
    if (.not. c_associated(p)) then
      s = ""
      return
    end if
    n = int(c_strlen(p))
    call c_f_pointer(p, chars, [n])
    allocate (character(len=n) :: s)
    do i = 1, n
      s(i:i) = chars(i)
    end do
  end function f_string

  !> Starts the library: a context (Kokkos started unless it runs). kokkos_args:
  !> Kokkos's arguments ("--kokkos-num-threads=8", ...), optional.
  subroutine gpp_init(context, status, kokkos_args)
    type(gpp_context), intent(inout) :: context
    integer, intent(out) :: status
    character(len=*), intent(in), optional :: kokkos_args(:)
    character(kind=c_char, len=:), allocatable, target :: buffer
    type(c_ptr), allocatable, target :: argv(:)
    integer :: i, width, n
    if (c_associated(context%handle)) then
      status = c_report_error(GPP_ERROR_ARGUMENT, c_string("gpp_init: this context is started already"))
      return
    end if
    n = 0
    if (present(kokkos_args)) n = size(kokkos_args)
    if (n == 0) then
      status = c_context_create(context%handle, 0_c_int, c_null_ptr)
      return
    end if
    width = len(kokkos_args) + 1
    allocate (character(kind=c_char, len=width * n) :: buffer)
    allocate (argv(n))
    do i = 1, n
      buffer((i - 1) * width + 1:i * width) = trim(kokkos_args(i)) // c_null_char
      argv(i) = c_loc(buffer((i - 1) * width + 1:(i - 1) * width + 1))
    end do
    status = c_context_create(context%handle, int(n, c_int), c_loc(argv))
  end subroutine gpp_init

  !> Ends a context (Kokkos finalized if it was the last one that started it).
  subroutine gpp_finalize(context, status)
    type(gpp_context), intent(inout) :: context
    integer, intent(out) :: status
    status = c_context_destroy(context%handle)
    context%handle = c_null_ptr
  end subroutine gpp_finalize

  !> An option by name (gpp.h): policy, space, verify, rtol, warmup, repeat,
  !> static_remainder, check_finite, tuning_file.
  subroutine gpp_set_option(context, name, value, status)
    type(gpp_context), intent(in) :: context
    character(len=*), intent(in) :: name, value
    integer, intent(out) :: status
    status = c_set_option(context%handle, c_string(name), c_string(value))
  end subroutine gpp_set_option

  !> A tunable or param of the policy by name ("band-block", "64"); "" unsets it.
  subroutine gpp_set_tunable(context, name, value, status)
    type(gpp_context), intent(in) :: context
    character(len=*), intent(in) :: name, value
    integer, intent(out) :: status
    status = c_set_tunable(context%handle, c_string(name), c_string(value))
  end subroutine gpp_set_tunable

  !> MPI over G': the sums added over `comm` (the mpi module's integer handle, or an
  !> mpi_f08 communicator's %MPI_VAL); each rank passes its own G' columns. -1: alone.
  subroutine gpp_set_mpi_comm(context, comm, status)
    type(gpp_context), intent(in) :: context
    integer, intent(in) :: comm
    integer, intent(out) :: status
    status = c_set_mpi_comm(context%handle, int(comm, c_int64_t))
  end subroutine gpp_set_mpi_comm

  ! Whether to stop: an earlier refusal, or this array not contiguous (reported now).
  logical function refused(name, contiguous, status)
    character(len=*), intent(in) :: name
    logical, intent(in) :: contiguous
    integer, intent(inout) :: status
    refused = .false.
    if (status /= GPP_OK) then
      refused = .true.
    else if (.not. contiguous) then
      status = c_report_error(GPP_ERROR_ARGUMENT, c_string(name // " is not contiguous (a section with a stride): "// &
                                                           "pass a contiguous array; gpp reads arrays in place and "// &
                                                           "does not copy them"))
      refused = .true.
    end if
  end function refused

  !> The sums, as the benchmark's loop accumulates them: achtemp(iw) += sch_sum(iw),
  !> asxtemp(iw) -= ssx_sum(iw), achstemp += the static remainder. The arrays as Sigma
  !> holds them: aqsntemp(ncouls, nbands), aqsmtemp_local(ngpown, nbands),
  !> I_eps_array(ncouls, ngpown), wtilde_array(ncouls, ngpown), wx_array_t(nw, nbands),
  !> occ_array(nbands), vcoul_loc(ngpown); achtemp and asxtemp (nw). Nothing is written
  !> when status /= GPP_OK; gpp_last_error() says why.
  subroutine gpp_compute(context, aqsntemp, aqsmtemp_local, I_eps_array, wtilde_array, wx_array_t, occ_array, &
                         vcoul_loc, sexcut, limittwo, achtemp, asxtemp, achstemp, status, nstart)
    type(gpp_context), intent(in) :: context
    complex(c_double_complex), intent(in), target :: aqsntemp(:, :), aqsmtemp_local(:, :), I_eps_array(:, :), &
                                                     wtilde_array(:, :)
    real(c_double), intent(in), target :: wx_array_t(:, :), occ_array(:), vcoul_loc(:)
    real(c_double), intent(in) :: sexcut, limittwo
    complex(c_double_complex), intent(inout), target :: achtemp(:), asxtemp(:), achstemp
    integer, intent(out) :: status
    integer, intent(in), optional :: nstart
    type(c_ptr) :: deck
    integer :: ignored
    status = GPP_OK
    if (refused("aqsntemp", is_contiguous(aqsntemp), status)) return
    if (refused("aqsmtemp_local", is_contiguous(aqsmtemp_local), status)) return
    if (refused("I_eps_array", is_contiguous(I_eps_array), status)) return
    if (refused("wtilde_array", is_contiguous(wtilde_array), status)) return
    if (refused("wx_array_t", is_contiguous(wx_array_t), status)) return
    if (refused("occ_array", is_contiguous(occ_array), status)) return
    if (refused("vcoul_loc", is_contiguous(vcoul_loc), status)) return
    if (refused("achtemp", is_contiguous(achtemp), status)) return
    if (refused("asxtemp", is_contiguous(asxtemp), status)) return
    if (size(asxtemp) /= size(achtemp)) then
      status = c_report_error(GPP_ERROR_ARGUMENT, c_string("achtemp and asxtemp have different sizes"))
      return
    end if
    status = c_deck_create(deck)
    if (status /= GPP_OK) return
    status = set2c(ARRAY_AQSNTEMP, aqsntemp)
    if (status == GPP_OK) status = set2c(ARRAY_AQSMTEMP_LOCAL, aqsmtemp_local)
    if (status == GPP_OK) status = set2c(ARRAY_I_EPS, I_eps_array)
    if (status == GPP_OK) status = set2c(ARRAY_WTILDE, wtilde_array)
    if (status == GPP_OK) status = set2r(ARRAY_WX_T, wx_array_t)
    if (status == GPP_OK) status = set1r(ARRAY_OCC, occ_array)
    if (status == GPP_OK) status = set1r(ARRAY_VCOUL_LOC, vcoul_loc)
    if (status == GPP_OK) status = c_deck_set_scalar(deck, c_string("sexcut"), sexcut)
    if (status == GPP_OK) status = c_deck_set_scalar(deck, c_string("limittwo"), limittwo)
    if (status == GPP_OK .and. present(nstart)) status = c_deck_set_scalar(deck, c_string("nstart"), real(nstart, c_double))
    if (status == GPP_OK) status = c_compute(context%handle, deck, address1c(achtemp), address1c(asxtemp), &
                                             c_loc(achstemp), size(achtemp, kind=c_int64_t))
    ignored = c_deck_destroy(deck)
  contains
    integer function set2c(which, a)
      integer(c_int), intent(in) :: which
      complex(c_double_complex), intent(in), target :: a(:, :)
      type(c_ptr) :: p
      p = c_null_ptr
      if (size(a, kind=c_int64_t) > 0) p = c_loc(a(1, 1))
      set2c = c_deck_set_array(deck, which, COMPLEX128, p, size(a, 1, kind=c_int64_t), size(a, 2, kind=c_int64_t))
    end function set2c
    integer function set2r(which, a)
      integer(c_int), intent(in) :: which
      real(c_double), intent(in), target :: a(:, :)
      type(c_ptr) :: p
      p = c_null_ptr
      if (size(a, kind=c_int64_t) > 0) p = c_loc(a(1, 1))
      set2r = c_deck_set_array(deck, which, FLOAT64, p, size(a, 1, kind=c_int64_t), size(a, 2, kind=c_int64_t))
    end function set2r
    integer function set1r(which, a)
      integer(c_int), intent(in) :: which
      real(c_double), intent(in), target :: a(:)
      type(c_ptr) :: p
      p = c_null_ptr
      if (size(a, kind=c_int64_t) > 0) p = c_loc(a(1))
      set1r = c_deck_set_array(deck, which, FLOAT64, p, size(a, kind=c_int64_t), 1_c_int64_t)
    end function set1r
    type(c_ptr) function address1c(a)
      complex(c_double_complex), intent(in), target :: a(:)
      address1c = c_null_ptr
      if (size(a, kind=c_int64_t) > 0) address1c = c_loc(a(1))
    end function address1c
  end subroutine gpp_compute

  !> The message of the last call that failed ("" if none).
  function gpp_last_error() result(message)
    character(len=:), allocatable :: message
    message = f_string(c_last_error())
  end function gpp_last_error

  !> The last computation's run record as JSON (the schema of `gpp run --json`).
  function gpp_record_json(context) result(json)
    type(gpp_context), intent(in) :: context
    character(len=:), allocatable :: json
    json = f_string(c_record_json(context%handle))
  end function gpp_record_json

  !> A value of the last computation: time_median, time_min, time_max, transfer_s,
  !> static_s, rel_error, verified, repeat.
  subroutine gpp_result_value(context, name, value, status)
    type(gpp_context), intent(in) :: context
    character(len=*), intent(in) :: name
    real(c_double), intent(out) :: value
    integer, intent(out) :: status
    status = c_result_value(context%handle, c_string(name), value)
  end subroutine gpp_result_value

  !> The library's version.
  function gpp_version() result(v)
    character(len=:), allocatable :: v
    v = f_string(c_version())
  end function gpp_version

end module gpp
