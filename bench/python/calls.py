"""The per-call cost of a tool stack in a Python MPI program, in two shapes (argument: which):
  hot    one call site: 20,000 8-byte Sendrecv round trips between ranks 0 and 1 (a solver loop)
  sites  many call sites, few calls each, as in a test suite: 3,000 generated functions, each a
         line of its own that makes a collective or point-to-point call on a duplicated
         communicator, with communicators created and freed as it goes
Prints the seconds the workload took (between two barriers) on rank 0."""
import sys
import time

import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
peer = rank ^ 1 if (rank ^ 1) < size else MPI.PROC_NULL


def hot():
    out, got = np.zeros(1), np.zeros(1)
    for _ in range(20000):
        comm.Sendrecv(out, dest=peer, sendtag=1, recvbuf=got, source=peer, recvtag=1)


def sites():
    # 3,000 distinct functions, each with its own code object and line: 3,000 call sites
    src = []
    for i in range(3000):
        kind = i % 4
        body = ('c.allreduce(%d)' % i if kind == 0 else
                'c.Bcast(buf, root=0)' if kind == 1 else
                'c.Sendrecv(buf, dest=peer, recvbuf=tmp, source=peer)' if kind == 2 else
                'c.barrier()')
        src.append('def f%d(c, buf, tmp):\n    return %s\n' % (i, body))
    space = {'peer': peer}
    exec(compile(''.join(src), 'generated_tests.py', 'exec'), space)
    buf, tmp = np.arange(16, dtype='d'), np.empty(16, dtype='d')
    c = comm.Dup()
    for i in range(3000):
        if i % 100 == 99:  # a test suite makes and frees communicators all the time
            c.Free()
            c = comm.Dup()
        space['f%d' % i](c, buf, tmp)
    c.Free()


work = {'hot': hot, 'sites': sites}[sys.argv[1]]
comm.Barrier()
t0 = time.perf_counter()
work()
comm.Barrier()
if rank == 0:
    print(f'{time.perf_counter() - t0:.6f}')
