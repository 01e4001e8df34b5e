/* legacy_pmpi.c - a classic PMPI interposition library (the mpiP style):
 * it defines MPI_Send/MPI_Finalize itself and forwards to PMPI_*. Used to
 * check that mpii coexists with legacy PMPI tools in LD_PRELOAD.
 * At finalize prints to stderr: legacy_pmpi rank=<r> sends=<n>
 *
 * Build: mpicc.X -shared -fPIC -o liblegacy_pmpi.so legacy_pmpi.c
 */
#include <mpi.h>
#include <stdio.h>

static long sends;

int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
             MPI_Comm comm)
{
    sends++;
    return PMPI_Send(buf, count, datatype, dest, tag, comm);
}

int MPI_Finalize(void)
{
    int rank = -1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fprintf(stderr, "legacy_pmpi rank=%d sends=%ld\n", rank, sends);
    fflush(stderr);
    return PMPI_Finalize();
}
