"""A Python MPI program without mpi4py, for MPICH: the interpreter loads libmpich with
dlopen(RTLD_LOCAL) through ctypes after mpii's shim, the way mpi4py (and Julia's MPI.jl, R's Rmpi)
load an MPI library, and calls it from Python lines. (No mpi4py built for MPICH can be installed
here: see docs/python.md.) Handle values are MPICH's (mpi.h); prints rank 0's gathered results."""
import ctypes
import os

import numpy as np

lib = ctypes.CDLL('libmpich.so.12', mode=os.RTLD_LOCAL | os.RTLD_NOW)
COMM_WORLD, INT, DOUBLE, SUM, MAX = 0x44000000, 0x4c000405, 0x4c00080b, 0x58000003, 0x58000001
STATUS_IGNORE = ctypes.c_void_p(1)


def ptr(a):
    return a.ctypes.data_as(ctypes.c_void_p)


def check(rc):
    assert rc == 0, f'MPI error {rc}'


check(lib.MPI_Init(None, None))
rank, size = ctypes.c_int(), ctypes.c_int()
lib.MPI_Comm_rank(COMM_WORLD, ctypes.byref(rank))
lib.MPI_Comm_size(COMM_WORLD, ctypes.byref(size))
rank, size = rank.value, size.value
right, left = (rank + 1) % size, (rank - 1) % size


def exchange(out, got):
    check(lib.MPI_Sendrecv(ptr(out), len(out), DOUBLE, right, 5, ptr(got), len(got), DOUBLE, left, 5,
                           COMM_WORLD, STATUS_IGNORE))


out = np.arange(4096, dtype='d') * (rank + 1)
got = np.empty_like(out)
acc = np.zeros(1, dtype='d')
for _ in range(10):
    exchange(out, got)
    acc += got.sum()  # each round's data is read before the next round overwrites it
total = np.empty(1, dtype='d')
check(lib.MPI_Allreduce(ptr(acc), ptr(total), 1, DOUBLE, SUM, COMM_WORLD))
req = ctypes.c_int()
ints = np.full(100, rank, dtype='i')
back = np.empty(100, dtype='i')
check(lib.MPI_Irecv(ptr(back), 100, INT, left, 9, COMM_WORLD, ctypes.byref(req)))
check(lib.MPI_Send(ptr(ints), 100, INT, right, 9, COMM_WORLD))
check(lib.MPI_Wait(ctypes.byref(req), STATUS_IGNORE))
biggest = np.empty(1, dtype='i')
check(lib.MPI_Reduce(ptr(back[:1].copy()), ptr(biggest), 1, INT, MAX, 0, COMM_WORLD))
check(lib.MPI_Barrier(COMM_WORLD))
if rank == 0:
    print(f'ranks {size} total {total[0]:.1f} left-neighbour {back[0]} largest {biggest[0]}')
check(lib.MPI_Finalize())
