/* E4: MPI_ERROR of a status after a single-completion call is undefined. Prints the value it
 * read (strict mode poisons it; under Valgrind the branch on it is reported). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
    int rank, v = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Request req;
    MPI_Status st;
    if (rank == 0) {
        v = 42;
        MPI_Isend(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
    } else {
        MPI_Irecv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &req);
    }
    MPI_Wait(&req, &st);
    if (st.MPI_ERROR != MPI_SUCCESS) /* MEMCHECK-ACCESS */
        printf("rank %d: MPI_ERROR reads %d\n", rank, st.MPI_ERROR);
    else
        printf("rank %d: MPI_ERROR reads MPI_SUCCESS\n", rank);
    MPI_Finalize();
    return 0;
}
