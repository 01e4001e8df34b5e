/* Small elements from MPI_Alloc_mem, each attached to a dynamic window (MPICH's own test
 * rma/linked_list does this): the library expects them where the allocator puts them, next to
 * each other. Open MPI's osc/rdma counts attached regions by page (at most 32 per window by
 * default): when memcheck gave every small allocation a page of its own, the 33rd attach failed
 * (MPI_ERR_RMA_ATTACH, exit 69). A correct program: memcheck must find nothing and change nothing.
 * Each rank reads its left neighbour's elements with MPI_Get. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#define NELEM 100

typedef struct {
    int value;
    int pad;
    double weight;
} elem_t; /* 16 B */

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    MPI_Win win;
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    elem_t *mine[NELEM];
    MPI_Aint disp[NELEM], theirs[NELEM];
    for (int i = 0; i < NELEM; i++) {
        MPI_Alloc_mem(sizeof(elem_t), MPI_INFO_NULL, &mine[i]);
        mine[i]->value = rank * 1000 + i;
        mine[i]->weight = 0.5 * i;
        int rc = MPI_Win_attach(win, mine[i], sizeof(elem_t));
        if (rc != MPI_SUCCESS) {
            char msg[MPI_MAX_ERROR_STRING];
            int len = 0;
            MPI_Error_string(rc, msg, &len);
            fprintf(stderr, "rank %d: MPI_Win_attach of element %d failed: %s\n", rank, i, msg);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
        MPI_Get_address(mine[i], &disp[i]);
    }
    /* my elements' addresses go to the right neighbour, the left one's come here */
    MPI_Sendrecv(disp, NELEM, MPI_AINT, right, 0, theirs, NELEM, MPI_AINT, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    int got[NELEM];
    MPI_Win_lock_all(0, win);
    for (int i = 0; i < NELEM; i++) MPI_Get(&got[i], 1, MPI_INT, left, theirs[i], 1, MPI_INT, win);
    MPI_Win_unlock_all(win);
    long sum = 0;
    int wrong = 0;
    for (int i = 0; i < NELEM; i++) {
        sum += got[i];
        wrong += got[i] != left * 1000 + i;
    }
    printf("rank %d read %d elements from rank %d, sum %ld, %d wrong\n", rank, NELEM, left, sum, wrong);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < NELEM; i++) {
        MPI_Win_detach(win, mine[i]);
        MPI_Free_mem(mine[i]);
    }
    MPI_Win_free(&win);
    MPI_Finalize();
    return wrong != 0;
}
