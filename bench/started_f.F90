! bench/started_f.F90 - says when the rank started (milliseconds of the wall clock, before
! MPI_Init), for bench/cold-build.mjs: the time a user waits for the first rank of a Fortran program.
program started_f
  use mpi
  use iso_c_binding
  implicit none
  type, bind(c) :: timeval
    integer(c_long) :: sec, usec
  end type timeval
  interface
    integer(c_int) function gettimeofday(tv, tz) bind(c, name='gettimeofday')
      import :: timeval, c_int, c_ptr
      type(timeval) :: tv
      type(c_ptr), value :: tz
    end function gettimeofday
  end interface
  type(timeval) :: tv
  integer :: ierr
  ierr = gettimeofday(tv, c_null_ptr)
  print '(a,i0)', 'started ', tv%sec * 1000_c_long + tv%usec / 1000_c_long
  flush(6)
  call MPI_Init(ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
end program started_f
