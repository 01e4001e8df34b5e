! pingpong_f.F90 - bench/pingpong.c in Fortran: ranks 0 and 1 bounce an 8-byte message ITERS
! times (first argument, default 100000) after 1000 warm-up rounds; prints the half round trip.
! Built with -DUSE_F08 (use mpi_f08) or without (include 'mpif.h', -fallow-argument-mismatch).
program pingpong_f
#ifdef USE_F08
  use mpi_f08
#endif
  implicit none
#ifndef USE_F08
  include 'mpif.h'
#endif
  integer :: rank, ierr, i, iters
  integer(8) :: msg
  double precision :: t0, t1
  character(len=32) :: arg
  iters = 100000
  if (command_argument_count() > 0) then
    call get_command_argument(1, arg)
    read (arg, *) iters
  end if
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  msg = 0
  do i = 1, 1000 + iters
    if (i == 1001) t0 = MPI_Wtime()
    if (rank == 0) then
      call MPI_Send(msg, 8, MPI_BYTE, 1, 0, MPI_COMM_WORLD, ierr)
      call MPI_Recv(msg, 8, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    else if (rank == 1) then
      call MPI_Recv(msg, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
      call MPI_Send(msg, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD, ierr)
    end if
  end do
  t1 = MPI_Wtime()
  if (rank == 0) print '(a,i0,a,f0.1)', 'pingpong_f iters=', iters, ' half_rtt_ns=', (t1 - t0) / iters / 2 * 1d9
  call MPI_Finalize(ierr)
end program
