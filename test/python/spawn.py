"""Dynamic processes: rank 0 of the job spawns two children of spawn_child.py (with this
interpreter), sends them work through the intercommunicator and sums their answers."""
import os
import sys

from mpi4py import MPI

comm = MPI.COMM_WORLD
child = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'spawn_child.py')
inter = comm.Spawn(sys.executable, args=[child], maxprocs=2, root=0)
inter.bcast(21, root=MPI.ROOT if comm.Get_rank() == 0 else MPI.PROC_NULL)
answers = inter.gather(None, root=MPI.ROOT if comm.Get_rank() == 0 else MPI.PROC_NULL)
inter.Disconnect()
if comm.Get_rank() == 0:
    print('children answered', answers, 'remote size', len(answers))
