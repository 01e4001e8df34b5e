# bench/started.py - says when the rank started (milliseconds of the wall clock, before mpi4py is
# imported), for bench/cold-build.mjs: the time a user waits for the first rank of a Python program.
import time

print(f"started {time.time_ns() // 1_000_000}", flush=True)
from mpi4py import MPI  # noqa: E402

MPI.COMM_WORLD.Barrier()
