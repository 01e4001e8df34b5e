"""A spawned child (spawn.py): answers its parent's number times its rank plus one."""
from mpi4py import MPI

parent = MPI.Comm.Get_parent()
n = parent.bcast(None, root=0)
parent.gather(n * (MPI.COMM_WORLD.Get_rank() + 1), root=0)
parent.Disconnect()
