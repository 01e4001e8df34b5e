! fortran_binding.h - the MPI binding a Fortran test program is built for, chosen by the
! preprocessor (-DUSE_MPIFH: include 'mpif.h'; -DUSE_MPI: use mpi; -DUSE_F08: use mpi_f08).
! #include it right after the program statement.
#if defined(USE_F08)
  use mpi_f08
#elif defined(USE_MPI)
  use mpi
#endif
  implicit none
#if defined(USE_MPIFH)
  include 'mpif.h'
#endif
