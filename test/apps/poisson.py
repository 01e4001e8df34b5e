# A PETSc solve through petsc4py (Debian's python3-petsc4py, built for Open MPI), written for
# mpii's checks of production libraries: the 2-D Poisson equation on an N x N grid (5-point
# Laplacian, distributed by rows), conjugate gradients with block Jacobi and ILU, to a relative
# tolerance of 1e-10. PETSc's own MPI traffic: the matrix assembly's scatter, VecScatter's
# neighbour exchanges in every MatMult, and an MPI_Allreduce in every dot product and norm.
# Prints the iteration count and the residual and solution norms: what must stay the same under a
# tool. Usage: mpirun -np 2 python3 poisson.py [N]
import sys

import petsc4py

petsc4py.init(sys.argv[:1])
from petsc4py import PETSc  # noqa: E402 (after init, as petsc4py requires)

n = int(sys.argv[1]) if len(sys.argv) > 1 else 64
A = PETSc.Mat().createAIJ([n * n, n * n], nnz=5)
start, end = A.getOwnershipRange()
for row in range(start, end):
    i, j = divmod(row, n)
    A.setValue(row, row, 4.0)
    for di, dj in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        if 0 <= i + di < n and 0 <= j + dj < n:
            A.setValue(row, (i + di) * n + j + dj, -1.0)
A.assemble()

x, b = A.createVecs()
b.set(1.0)
ksp = PETSc.KSP().create()
ksp.setOperators(A)
ksp.setType('cg')
ksp.getPC().setType('bjacobi')
ksp.setTolerances(rtol=1e-10)
ksp.solve(b, x)

r = b.duplicate()
A.mult(x, r)
r.aypx(-1.0, b)
rnorm, xnorm = r.norm(), x.norm()  # collective: every rank takes part
if PETSc.COMM_WORLD.getRank() == 0:
    print(f'poisson n {n} ranks {PETSc.COMM_WORLD.getSize()} iterations {ksp.getIterationNumber()}')
    print(f'poisson residual {rnorm:.6e} solution {xnorm:.12e}')
