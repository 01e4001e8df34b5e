"""A program built on a package nobody here wrote, mpi4py-fft (Debian's python3-mpi4py-fft): a
distributed 3-D FFT of a known field, forward and back (its pencil transposes are Alltoallw
calls on sub-communicators). Prints rounded numbers that do not depend on timing."""
import numpy as np
from mpi4py import MPI
from mpi4py_fft import PFFT, newDistArray

comm = MPI.COMM_WORLD
fft = PFFT(comm, (32, 24, 16), axes=(0, 1, 2), dtype=np.float64, grid=(-1,))
u = newDistArray(fft, False)
x = [np.arange(n) for n in (32, 24, 16)]
local = [xi[s] for xi, s in zip(x, u.local_slice())]
X, Y, Z = np.meshgrid(*local, indexing='ij')
u[:] = np.sin(2 * np.pi * X / 32) * np.cos(4 * np.pi * Y / 24) + 0.01 * Z
u_hat = fft.forward(u, newDistArray(fft, True))
back = fft.backward(u_hat, newDistArray(fft, False))
err = comm.allreduce(float(np.max(np.abs(back - u))), op=MPI.MAX)
energy = comm.allreduce(float(np.sum(np.abs(u_hat) ** 2)), op=MPI.SUM)
if comm.Get_rank() == 0:
    print(f'ranks {comm.Get_size()} spectral energy {energy:.6e} round trip error below 1e-12: {err < 1e-12}')
