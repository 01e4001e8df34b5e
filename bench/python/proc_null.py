"""N iterations of two mpi4py calls that move nothing (Sendrecv and Send to MPI.PROC_NULL): the
per-call cost of Python, mpi4py and the tool stack without any communication. Argument: N."""
import sys

import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
out, got = np.zeros(1), np.zeros(1)
for _ in range(int(sys.argv[1])):
    comm.Sendrecv(out, dest=MPI.PROC_NULL, sendtag=1, recvbuf=got, source=MPI.PROC_NULL, recvtag=1)
    comm.Send(out, dest=MPI.PROC_NULL)
