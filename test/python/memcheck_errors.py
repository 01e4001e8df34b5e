"""Two MPI memory errors in a Python program, for memcheck (argument: which one):
  isend-write  rank 0 writes a numpy array while its Isend is pending
  irecv-read   rank 1 reads a numpy array before the Wait of its Irecv
Both ranks otherwise communicate correctly; the results are right either way."""
import sys

import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank = comm.Get_rank()
which = sys.argv[1]
data = np.zeros(65536, dtype='d')


def send_then_touch():
    req = comm.Isend(data, dest=1, tag=1)
    data[100] = 42.0  # the error: the buffer belongs to MPI until the Wait
    req.Wait()


def receive_then_peek():
    req = comm.Irecv(data, source=0, tag=1)
    peek = data[7]  # the error: the data has not arrived until the Wait
    req.Wait()
    return peek


comm.Barrier()
if which == 'isend-write':
    if rank == 0:
        send_then_touch()
    elif rank == 1:
        comm.Recv(data, source=0, tag=1)
elif which == 'irecv-read':
    if rank == 0:
        comm.Send(np.arange(65536, dtype='d'), dest=1, tag=1)
    elif rank == 1:
        receive_then_peek()
comm.Barrier()
print(f"rank {rank} done, data[7] = {data[7]}, sum = {data.sum()}")
