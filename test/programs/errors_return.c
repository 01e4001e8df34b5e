/* MPI calls that fail under MPI_ERRORS_RETURN, then real communication: every tool must pass the
 * library's own error back and carry on (mpi4py's exception tests do this). Prints each failing
 * call's error class, then the results of correct communication, so a run under any tool stack
 * can be compared line by line with the plain run. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int rank, size;

static void expect_error(const char *what, int rc)
{
    int cls = -1;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
    if (rank == 0) printf("%-44s %s class %d\n", what, rc == MPI_SUCCESS ? "SUCCEEDED" : "error", cls);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    double x[8] = { 0 }, y[8] = { 0 };
    MPI_Request req;
    MPI_Status st;

    /* point-to-point: bad ranks, tags, counts, datatypes, communicators */
    expect_error("Send to rank size+3", MPI_Send(x, 1, MPI_DOUBLE, size + 3, 0, MPI_COMM_WORLD));
    expect_error("Send with tag -5", MPI_Send(x, 1, MPI_DOUBLE, 0, -5, MPI_COMM_WORLD));
    expect_error("Send with count -1", MPI_Send(x, -1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD));
    expect_error("Send of MPI_DATATYPE_NULL", MPI_Send(x, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD));
    expect_error("Send on MPI_COMM_NULL", MPI_Send(x, 1, MPI_DOUBLE, 0, 0, MPI_COMM_NULL));
    expect_error("Isend to rank size+3", MPI_Isend(x, 1, MPI_DOUBLE, size + 3, 0, MPI_COMM_WORLD, &req));
    expect_error("Recv from rank size+3", MPI_Recv(y, 1, MPI_DOUBLE, size + 3, 0, MPI_COMM_WORLD, &st));
    expect_error("Irecv with count -1", MPI_Irecv(y, -1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, &req));
    expect_error("Sendrecv to rank size+3",
                 MPI_Sendrecv(x, 1, MPI_DOUBLE, size + 3, 0, y, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, &st));
    expect_error("Sendrecv_replace to rank size+3",
                 MPI_Sendrecv_replace(x, 1, MPI_DOUBLE, size + 3, 0, 0, 0, MPI_COMM_WORLD, &st));
    expect_error("Send_init to rank size+3", MPI_Send_init(x, 1, MPI_DOUBLE, size + 3, 0, MPI_COMM_WORLD, &req));

    /* collectives: bad roots, counts, communicators */
    expect_error("Bcast with root size+3", MPI_Bcast(x, 1, MPI_DOUBLE, size + 3, MPI_COMM_WORLD));
    expect_error("Reduce with root -7", MPI_Reduce(x, y, 1, MPI_DOUBLE, MPI_SUM, -7, MPI_COMM_WORLD));
    expect_error("Allreduce with MPI_OP_NULL", MPI_Allreduce(x, y, 1, MPI_DOUBLE, MPI_OP_NULL, MPI_COMM_WORLD));
    expect_error("Barrier on MPI_COMM_NULL", MPI_Barrier(MPI_COMM_NULL));
    expect_error("Gather with root size+3", MPI_Gather(x, 1, MPI_DOUBLE, y, 1, MPI_DOUBLE, size + 3, MPI_COMM_WORLD));
    expect_error("Alltoall on MPI_COMM_NULL", MPI_Alltoall(x, 1, MPI_DOUBLE, y, 1, MPI_DOUBLE, MPI_COMM_NULL));

    /* communicators and groups: predefined and null handles, wrong kinds */
    MPI_Comm world = MPI_COMM_WORLD, self = MPI_COMM_SELF, null = MPI_COMM_NULL, out;
    expect_error("Comm_free of MPI_COMM_WORLD", MPI_Comm_free(&world));
    expect_error("Comm_free of MPI_COMM_SELF", MPI_Comm_free(&self));
    expect_error("Comm_free of MPI_COMM_NULL", MPI_Comm_free(&null));
    expect_error("Comm_dup of MPI_COMM_NULL", MPI_Comm_dup(MPI_COMM_NULL, &out));
    expect_error("Comm_split of MPI_COMM_NULL", MPI_Comm_split(MPI_COMM_NULL, 0, 0, &out));
    MPI_Group g = MPI_GROUP_NULL;
    expect_error("Group_free of MPI_GROUP_NULL", MPI_Group_free(&g));
    MPI_Datatype t = MPI_DATATYPE_NULL;
    expect_error("Type_free of MPI_DATATYPE_NULL", MPI_Type_free(&t));
    expect_error("Type_contiguous count -1", MPI_Type_contiguous(-1, MPI_DOUBLE, &t));
    MPI_Request rn = MPI_REQUEST_NULL;
    expect_error("Request_free of MPI_REQUEST_NULL", MPI_Request_free(&rn));
    expect_error("Start of MPI_REQUEST_NULL", MPI_Start(&rn));
    MPI_Win w = MPI_WIN_NULL;
    expect_error("Win_free of MPI_WIN_NULL", MPI_Win_free(&w));
    expect_error("Put on MPI_WIN_NULL", MPI_Put(x, 1, MPI_DOUBLE, 0, 0, 1, MPI_DOUBLE, MPI_WIN_NULL));

    /* then real communication, with results checked by the comparison */
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int i = 0; i < 8; i++) x[i] = rank * 10 + i;
    MPI_Sendrecv(x, 8, MPI_DOUBLE, right, 1, y, 8, MPI_DOUBLE, left, 1, dup, MPI_STATUS_IGNORE);
    double sum = 0, total = 0;
    for (int i = 0; i < 8; i++) sum += y[i];
    MPI_Allreduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Comm_free(&dup);
    MPI_Isend(x, 8, MPI_DOUBLE, right, 2, MPI_COMM_WORLD, &req);
    MPI_Recv(y, 8, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) printf("after the errors: neighbour sum %.1f, total %.1f, received %.1f\n", sum, total, y[7]);
    MPI_Finalize();
    return 0;
}
