/* session.c - MPI-4 sessions only (no MPI_Init): session -> group "mpi://WORLD" -> communicator,
 * an Allreduce, then MPI_Session_finalize. Checks that the session path starts the tool stack. */
#include <mpi.h>
#include <stdio.h>

int main(void)
{
    MPI_Session session;
    MPI_Group world;
    MPI_Comm comm;
    int rank, size, sum = 0;

    MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &session);
    MPI_Group_from_session_pset(session, "mpi://WORLD", &world);
    MPI_Comm_create_from_group(world, "mpii.session.test", MPI_INFO_NULL, MPI_ERRORS_RETURN, &comm);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, comm);
    if (rank == 0) printf("session %s size=%d sum=%d\n", sum == size * (size - 1) / 2 ? "ok" : "WRONG", size, sum);
    MPI_Comm_free(&comm);
    MPI_Group_free(&world);
    MPI_Session_finalize(&session);
    return sum == size * (size - 1) / 2 ? 0 : 1;
}
