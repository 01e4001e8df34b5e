"""Python threads calling MPI at MPI_THREAD_MULTIPLE (mpi4py's default level): the main thread
exchanges alone first, then alongside two threading.Threads, every call from the same line. A tool
that keeps an unlocked path while one thread calls MPI must count every call. Two ranks; prints
'threads ok' from rank 0."""
import threading

import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
assert MPI.Query_thread() == MPI.THREAD_MULTIPLE, MPI.Query_thread()
peer = comm.Get_rank() ^ 1


def exchange(tag, n):
    out, got = np.full(4, tag, dtype='i'), np.empty(4, dtype='i')
    for _ in range(n):
        comm.Sendrecv(out, dest=peer, sendtag=tag, recvbuf=got, source=peer, recvtag=tag)
        assert got[0] == tag, (got, tag)


exchange(9, 100)  # alone
others = [threading.Thread(target=exchange, args=(tag, 300)) for tag in (1, 2)]
for t in others:
    t.start()
exchange(3, 300)  # while the others run
for t in others:
    t.join()
comm.Barrier()
if comm.Get_rank() == 0:
    print('threads ok')
