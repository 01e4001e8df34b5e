"""mpi4py features, each section's results gathered to rank 0 and printed in a fixed order, so that
a run under any tool stack can be compared line for line with a plain run. Usage: suite.py DIR
(a scratch directory for the MPI-IO section). Deterministic: no timings, no host names."""
import os
import sys

import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
right, left = (rank + 1) % size, (rank - 1) % size
results = []


def report(name, value):
    """Rank 0 prints every rank's value of this section."""
    values = comm.gather(value, root=0)
    if rank == 0:
        results.append(f"{name}: {values}")


def point_to_point_numpy():
    out = np.arange(1000, dtype='d') * (rank + 1)
    got = np.empty(1000, dtype='d')
    comm.Sendrecv(out, dest=right, sendtag=7, recvbuf=got, source=left, recvtag=7)
    total = float(got.sum())
    # a second receive into part of the same array, after its data was read (memcheck: correct)
    status = MPI.Status()
    if rank % 2 == 0:
        comm.Send([out[:10], MPI.DOUBLE], dest=right, tag=3)
        comm.Recv([got[:10], MPI.DOUBLE], source=left, tag=3, status=status)
    else:
        comm.Recv([got[:10], MPI.DOUBLE], source=left, tag=3, status=status)
        comm.Send([out[:10], MPI.DOUBLE], dest=right, tag=3)
    return [total + float(got[:10].sum()), status.Get_source(), status.Get_tag(), status.Get_count(MPI.DOUBLE)]


def point_to_point_objects():
    # pickled objects, and a small bytearray that shares its page with other Python objects
    comm.send({'from': rank, 'items': list(range(rank + 3)), 'text': 'x' * rank}, dest=right, tag=11)
    obj = comm.recv(source=left, tag=11)
    small = bytearray(b'%d' % rank) * 3
    back = bytearray(len(b'%d' % left) * 3)
    req = comm.Irecv(back, source=left, tag=12)
    comm.Send(small, dest=right, tag=12)
    req.Wait()
    return [obj['from'], sum(obj['items']), len(obj['text']), bytes(back).decode()]


def nonblocking():
    bufs = [np.full(64 * (k + 1), rank * 10 + k, dtype='i') for k in range(4)]
    recv = [np.empty(64 * (k + 1), dtype='i') for k in range(4)]
    reqs = [comm.Irecv(recv[k], source=left, tag=20 + k) for k in range(4)]
    reqs += [comm.Isend(bufs[k], dest=right, tag=20 + k) for k in range(4)]
    statuses = [MPI.Status() for _ in reqs]
    MPI.Request.Waitall(reqs, statuses)
    sums = [int(r.sum()) for r in recv]
    objreq = comm.isend([rank] * 5, dest=right, tag=30)
    got = comm.irecv(source=left, tag=30).wait()
    objreq.wait()
    persistent = comm.Send_init(bufs[0], dest=right, tag=40)
    precv = comm.Recv_init(recv[0], source=left, tag=40)
    for _ in range(3):
        MPI.Prequest.Startall([persistent, precv])
        MPI.Request.Waitall([persistent, precv])
        sums[0] += int(recv[0].sum())  # each round's data is read before the next arrives
    persistent.Free()
    precv.Free()
    return sums + [statuses[0].Get_source(), sum(got)]


def collectives():
    a = np.array([rank + 1.0, 2.0 * rank], dtype='d')
    total = np.empty_like(a)
    comm.Allreduce(a, total, op=MPI.SUM)
    root_sum = np.zeros_like(a)
    comm.Reduce(a, root_sum, op=MPI.MAX, root=0)
    b = np.arange(8, dtype='i') if rank == 0 else np.empty(8, dtype='i')
    comm.Bcast(b, root=0)
    gathered = np.empty(size * 2, dtype='d')
    comm.Allgather(a, gathered)
    send = np.arange(size, dtype='i') + 100 * rank
    recv = np.empty(size, dtype='i')
    comm.Alltoall(send, recv)
    chunk = np.empty(3, dtype='d')
    comm.Scatter(np.arange(3 * size, dtype='d') if rank == 0 else None, chunk, root=0)
    comm.Barrier()
    scan = comm.scan(rank + 1)
    objs = comm.allgather({'r': rank})
    return [total.tolist(), float(root_sum.sum()) if rank == 0 else None, int(b.sum()), gathered.tolist(),
            recv.tolist(), chunk.tolist(), scan, [o['r'] for o in objs], comm.bcast('hello' if rank == 0 else None)]


def communicators():
    dup = comm.Dup()
    half = comm.Split(color=rank % 2, key=-rank)
    inter_ok = None
    if size >= 2:
        # an intercommunicator between the two halves, then merged back
        inter = half.Create_intercomm(0, comm, 1 - rank % 2 if size > 1 else 0, tag=55)
        inter_ok = inter.Get_remote_size()
        merged = inter.Merge(high=bool(rank % 2))
        inter_ok = [inter_ok, merged.Get_size()]
        merged.Free()
        inter.Free()
    result = [dup.allreduce(rank), half.Get_rank(), half.Get_size(), half.allreduce(rank), inter_ok]
    group = comm.Get_group().Incl([0])
    sub = comm.Create(group)
    result.append(sub.Get_size() if sub != MPI.COMM_NULL else None)
    if sub != MPI.COMM_NULL:
        sub.Free()
    group.Free()
    half.Free()
    dup.Free()
    return result


def rma():
    local = np.full(4, -1, dtype='i')
    win = MPI.Win.Create(local, disp_unit=local.itemsize, comm=comm)
    win.Fence()
    win.Put(np.full(2, rank, dtype='i'), right, target=[0, 2, MPI.INT])
    win.Fence()
    got = np.empty(2, dtype='i')
    win.Get(got, left, target=[0, 2, MPI.INT])
    win.Fence()
    win.Accumulate(np.ones(1, dtype='i'), 0, target=[3, 1, MPI.INT], op=MPI.SUM)
    win.Fence()
    win.Free()
    return local.tolist() + got.tolist()


def mpi_io(scratch):
    path = os.path.join(scratch, 'suite.dat')
    fh = MPI.File.Open(comm, path, MPI.MODE_CREATE | MPI.MODE_RDWR)
    data = np.full(16, rank, dtype='i')
    fh.Write_at_all(rank * data.nbytes, data)
    fh.Sync()
    comm.Barrier()
    back = np.empty(16, dtype='i')
    fh.Read_at_all(right * back.nbytes, back)
    size_bytes = fh.Get_size()
    fh.Close()
    comm.Barrier()
    if rank == 0:
        MPI.File.Delete(path)
    return [int(back.sum()), size_bytes]


def errors_returned():
    # mpi4py turns MPI errors into exceptions (MPI_ERRORS_RETURN underneath): the program goes on
    try:
        comm.Send(np.zeros(1), dest=size + 5, tag=1)
        return 'no error'
    except MPI.Exception as e:
        return MPI.Get_error_class(e.Get_error_code()) == MPI.ERR_RANK


for section in (point_to_point_numpy, point_to_point_objects, nonblocking, collectives, communicators, rma):
    report(section.__name__, section())
report('mpi_io', mpi_io(sys.argv[1]))
report('errors_returned', errors_returned())
if rank == 0:
    print('\n'.join(results))
    print('suite done on', size, 'ranks')
