"""Rank 1 raises after some communication; run as `python -m mpi4py abort.py`, which turns an
unhandled exception into MPI_Abort, so the whole job ends with an error."""
import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
for i in range(20):
    comm.Allreduce(np.ones(4), np.empty(4))
comm.Barrier()
if comm.Get_rank() == 1:
    raise RuntimeError('rank 1 gives up')
comm.Barrier()
