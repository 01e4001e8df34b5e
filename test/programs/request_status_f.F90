! request_status_f.F90 - empty statuses from Fortran (request_status.c's first checks, through the
! Fortran bindings: the shim passes the program's own status on, so the core completes it too).
! Built three ways like fortran_halo.F90: -DUSE_MPIFH, -DUSE_MPI, -DUSE_F08.
! MPI_REQUEST_NULL and an inactive persistent receive through MPI_Request_get_status, MPI_Test,
! MPI_Wait, MPI_Waitany, MPI_Testany and MPI_Waitall; each status filled with garbage first.
! Prints "request_status_f rank <R>: <C> checks, <W> wrong"; each wrong field on stderr; exit 1
! when any is wrong (plain, the libraries leave MPI_ERROR as it was: request_status.c).
program request_status_f
#include "fortran_binding.h"
#ifdef USE_F08
  type(MPI_Status) :: st, sts(2)
  type(MPI_Request) :: req, reqs(2)
#else
  integer :: st(MPI_STATUS_SIZE), sts(MPI_STATUS_SIZE, 2), req, reqs(2)
#endif
  integer :: rank, ierr, idx, buf, checks, wrong, i
  logical :: flag

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  checks = 0
  wrong = 0

  req = MPI_REQUEST_NULL
  call garbage(st)
  call MPI_Request_get_status(req, flag, st, ierr)
  call expect_flag('Request_get_status(null)', flag)
  call expect_empty('Request_get_status(null)', st)
  call garbage(st)
  call MPI_Test(req, flag, st, ierr)
  call expect_flag('Test(null)', flag)
  call expect_empty('Test(null)', st)
  call garbage(st)
  call MPI_Wait(req, st, ierr)
  call expect_empty('Wait(null)', st)

  call MPI_Recv_init(buf, 1, MPI_INTEGER, rank, 5, MPI_COMM_WORLD, req, ierr)
  call garbage(st)
  call MPI_Wait(req, st, ierr)
  call expect_empty('Wait(inactive)', st)
  reqs(1) = MPI_REQUEST_NULL
  reqs(2) = req
  call garbage(st)
  call MPI_Waitany(2, reqs, idx, st, ierr)
  checks = checks + 1
  if (idx /= MPI_UNDEFINED) call wrong_field('Waitany(null, inactive)', 'index', idx, MPI_UNDEFINED)
  call expect_empty('Waitany(null, inactive)', st)
  call garbage(st)
  call MPI_Testany(2, reqs, idx, flag, st, ierr)
  call expect_flag('Testany(null, inactive)', flag)
  call expect_empty('Testany(null, inactive)', st)
#ifdef USE_F08
  do i = 1, 2
    call garbage(sts(i))
  end do
#else
  do i = 1, 2
    call garbage(sts(:, i))
  end do
#endif
  call MPI_Waitall(2, reqs, sts, ierr)
#ifdef USE_F08
  do i = 1, 2
    call expect_empty('Waitall(null, inactive)', sts(i))
  end do
#else
  do i = 1, 2
    call expect_empty('Waitall(null, inactive)', sts(:, i))
  end do
#endif
  call MPI_Request_free(req, ierr)

  print '(a, i0, a, i0, a, i0, a)', 'request_status_f rank ', rank, ': ', checks, ' checks, ', wrong, ' wrong'
  call MPI_Finalize(ierr)
  if (wrong /= 0) stop 1

contains

  subroutine garbage(s)
#ifdef USE_F08
    type(MPI_Status), intent(out) :: s
    s%MPI_SOURCE = 1515870810
    s%MPI_TAG = 1515870810
    s%MPI_ERROR = 1515870810
#else
    integer, intent(out) :: s(MPI_STATUS_SIZE)
    s = 1515870810
#endif
  end subroutine

  subroutine expect_flag(what, f)
    character(*), intent(in) :: what
    logical, intent(in) :: f
    checks = checks + 1
    if (.not. f) call wrong_field(what, 'flag', 0, 1)
  end subroutine

  subroutine expect_empty(what, s)
    character(*), intent(in) :: what
#ifdef USE_F08
    type(MPI_Status), intent(in) :: s
#define FIELD(s, f) s%f
#else
    integer, intent(in) :: s(MPI_STATUS_SIZE)
#define FIELD(s, f) s(f)
#endif
    integer :: count
    checks = checks + 4
    if (FIELD(s, MPI_SOURCE) /= MPI_ANY_SOURCE) call wrong_field(what, 'MPI_SOURCE', FIELD(s, MPI_SOURCE), MPI_ANY_SOURCE)
    if (FIELD(s, MPI_TAG) /= MPI_ANY_TAG) call wrong_field(what, 'MPI_TAG', FIELD(s, MPI_TAG), MPI_ANY_TAG)
    if (FIELD(s, MPI_ERROR) /= MPI_SUCCESS) call wrong_field(what, 'MPI_ERROR', FIELD(s, MPI_ERROR), MPI_SUCCESS)
    call MPI_Get_count(s, MPI_INTEGER, count, ierr)
    if (count /= 0) call wrong_field(what, 'count', count, 0)
  end subroutine

  subroutine wrong_field(what, field, got, want)
    character(*), intent(in) :: what, field
    integer, intent(in) :: got, want
    wrong = wrong + 1
    write (0, '(a, i0, a, a, a, a, a, i0, a, i0)') 'request_status_f rank ', rank, ': ', what, ': ', field, ' is ', got, &
      ', expected ', want
  end subroutine
end program
