! fortran_halo.F90 - a token ring and a 1-D halo exchange in Fortran, built three ways:
!   -DUSE_MPIFH (include 'mpif.h', with -fallow-argument-mismatch), -DUSE_MPI (use mpi), -DUSE_F08 (use mpi_f08).
! Ring: rank 0 starts an integer token, every rank adds 1 per lap (ITERS laps), statuses checked.
! Halo: a non-periodic Cartesian line of ranks, each owning columns a(:,1:2) of N doubles with
! halos a(:,0) and a(:,3); per iteration one blocking exchange (MPI_Sendrecv) and one nonblocking
! (Irecv/Isend/Waitall), then an Allreduce with MPI_IN_PLACE. Messages: ring 1 int each way per
! lap, halo 2 x N doubles to each neighbour per iteration (sendrecv + isend), then rank 0 sends
! rank 1 two sections with gaps (N/2 doubles each: every other element of a column, received into
! every other element of another; the first quarter of two columns), and a short message
! the way Quantum ESPRESSO's mp_get does it: N/4 doubles into a receive of N, then MPI_Get_count
! (under overlap the receive runs in the background; the count must still be the message's).
! Prints "fortran_halo ok size=<P> token=<T> sum=<S>" from rank 0; exits 1 on any mismatch.
program fortran_halo
#include "fortran_binding.h"
#ifdef USE_F08
  type(MPI_Status) :: st, sts(4)
  type(MPI_Request) :: reqs(4)
  type(MPI_Comm) :: cart
#define SRC(s) s%MPI_SOURCE
#define TAGOF(s) s%MPI_TAG
#define SRCN(s, i) s(i)%MPI_SOURCE
#else
  integer :: st(MPI_STATUS_SIZE), sts(MPI_STATUS_SIZE, 4), reqs(4), cart
#define SRC(s) s(MPI_SOURCE)
#define TAGOF(s) s(MPI_TAG)
#define SRCN(s, i) s(MPI_SOURCE, i)
#endif
  integer, parameter :: n = 512, iters = 5
  integer :: rank, nprocs, ierr, token, nxt, prv, it, left, right, cnt, dims(1), bad, allbad, r
  logical :: periods(1)
  double precision, allocatable :: a(:, :), got(:)
  double precision :: total, expect

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  bad = 0

  nxt = mod(rank + 1, nprocs)
  prv = mod(rank + nprocs - 1, nprocs)
  token = 0
  do it = 1, iters
    if (rank == 0) then
      token = token + 1
      call MPI_Send(token, 1, MPI_INTEGER, nxt, 7, MPI_COMM_WORLD, ierr)
      call MPI_Recv(token, 1, MPI_INTEGER, prv, 7, MPI_COMM_WORLD, st, ierr)
      if (SRC(st) /= prv .or. TAGOF(st) /= 7) bad = bad + 1
      call MPI_Get_count(st, MPI_INTEGER, cnt, ierr)
      if (cnt /= 1) bad = bad + 1
    else
      call MPI_Recv(token, 1, MPI_INTEGER, prv, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
      token = token + 1
      call MPI_Send(token, 1, MPI_INTEGER, nxt, 7, MPI_COMM_WORLD, ierr)
    end if
  end do
  if (rank == 0 .and. token /= iters * nprocs) bad = bad + 1

  dims(1) = nprocs
  periods(1) = .false.
  call MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, .false., cart, ierr)
  call MPI_Cart_shift(cart, 0, 1, left, right, ierr)
  allocate(a(n, 0:3))
  total = 0
  do it = 1, iters
    a = -1d0
    a(:, 1) = rank * 1000 + it
    a(:, 2) = rank * 1000 + it + 0.5d0
    ! blocking: my right column to the right neighbour's left halo, and the mirror image
    call MPI_Sendrecv(a(:, 2), n, MPI_DOUBLE_PRECISION, right, 1, a(:, 0), n, MPI_DOUBLE_PRECISION, left, 1, &
                      cart, st, ierr)
    call MPI_Sendrecv(a(:, 1), n, MPI_DOUBLE_PRECISION, left, 2, a(:, 3), n, MPI_DOUBLE_PRECISION, right, 2, &
                      cart, MPI_STATUS_IGNORE, ierr)
    call check_halos()
    a(:, 0) = -1d0
    a(:, 3) = -1d0
    ! nonblocking: the same exchange again
    call MPI_Irecv(a(:, 0), n, MPI_DOUBLE_PRECISION, left, 3, cart, reqs(1), ierr)
    call MPI_Irecv(a(:, 3), n, MPI_DOUBLE_PRECISION, right, 4, cart, reqs(2), ierr)
    call MPI_Isend(a(:, 2), n, MPI_DOUBLE_PRECISION, right, 3, cart, reqs(3), ierr)
    call MPI_Isend(a(:, 1), n, MPI_DOUBLE_PRECISION, left, 4, cart, reqs(4), ierr)
    call MPI_Waitall(4, reqs, sts, ierr)
    if (left /= MPI_PROC_NULL .and. SRCN(sts, 1) /= left) bad = bad + 1
    if (any(reqs /= MPI_REQUEST_NULL)) bad = bad + 1
    call check_halos()
    total = sum(a(:, 1:2))
    call MPI_Allreduce(MPI_IN_PLACE, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, cart, ierr)
    expect = 0
    do r = 0, nprocs - 1
      expect = expect + n * (2d0 * (r * 1000 + it) + 0.5d0)
    end do
    if (total /= expect) bad = bad + 1
  end do
  ! sections with gaps, which mpi_f08 passes as descriptors (MPICH, Open MPI 6): every other
  ! element of a column into every other element of another (the gaps must stay as they were),
  ! then the first quarter of two columns (a 2-D section) into a contiguous receive
  if (nprocs > 1 .and. rank == 0) then
    a(:, 1) = [(dble(r), r = 1, n)]
    a(:, 2) = [(dble(n + r), r = 1, n)]
    call MPI_Send(a(1:n:2, 1), n / 2, MPI_DOUBLE_PRECISION, 1, 9, MPI_COMM_WORLD, ierr)
    call MPI_Send(a(1:n/4, 1:2), n / 2, MPI_DOUBLE_PRECISION, 1, 11, MPI_COMM_WORLD, ierr)
  else if (rank == 1) then
    a(:, 2) = -1d0
    call MPI_Recv(a(1:n:2, 2), n / 2, MPI_DOUBLE_PRECISION, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    if (any(a(1:n:2, 2) /= [(dble(2 * r - 1), r = 1, n / 2)])) bad = bad + 1
    if (any(a(2:n:2, 2) /= -1d0)) bad = bad + 1
    a(:, 3) = -1d0
    call MPI_Recv(a(1:n/2, 3), n / 2, MPI_DOUBLE_PRECISION, 0, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    if (any(a(1:n/2, 3) /= [(dble(r), r = 1, n / 4), (dble(n + r), r = 1, n / 4)])) bad = bad + 1
  end if
  ! a short message into a larger receive (its own allocation: overlap's page-exclusive heap)
  allocate(got(n))
  got = -1d0
  if (nprocs > 1 .and. rank == 0) then
    call MPI_Send(a(1:n/4, 1), n / 4, MPI_DOUBLE_PRECISION, 1, 10, MPI_COMM_WORLD, ierr)
  else if (rank == 1) then
    call MPI_Recv(got, n, MPI_DOUBLE_PRECISION, 0, 10, MPI_COMM_WORLD, st, ierr)
    call MPI_Get_count(st, MPI_DOUBLE_PRECISION, cnt, ierr)
    if (cnt /= n / 4 .or. SRC(st) /= 0 .or. TAGOF(st) /= 10) bad = bad + 1
    if (any(got(1:n/4) /= [(dble(r), r = 1, n / 4)]) .or. any(got(n/4+1:) /= -1d0)) bad = bad + 1
  end if
  deallocate(got)
  call MPI_Comm_free(cart, ierr)
  if (cart /= MPI_COMM_NULL) bad = bad + 1

  call MPI_Allreduce(bad, allbad, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (allbad == 0) then
      print '(a,i0,a,i0,a,f0.1)', 'fortran_halo ok size=', nprocs, ' token=', token, ' sum=', total
    else
      print '(a,i0,a)', 'fortran_halo FAIL (', allbad, ' mismatches)'
    end if
  end if
  call MPI_Finalize(ierr)
  if (allbad /= 0) call exit(1)

contains

  subroutine check_halos()
    if (left /= MPI_PROC_NULL) then
      if (any(a(:, 0) /= left * 1000 + it + 0.5d0)) bad = bad + 1
    else
      if (any(a(:, 0) /= -1d0)) bad = bad + 1
    end if
    if (right /= MPI_PROC_NULL) then
      if (any(a(:, 3) /= right * 1000 + it)) bad = bad + 1
    else
      if (any(a(:, 3) /= -1d0)) bad = bad + 1
    end if
  end subroutine
end program
