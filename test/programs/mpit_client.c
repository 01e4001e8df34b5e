/* A generic MPI_T client: what any tool walking the MPI_T interface would see. Rank 0 prints
 *   before init: <number of performance variables before MPI_Init>
 *   pvar <index> <name> class=<c> bind=<comm|none|other> readonly=<0|1> continuous=<0|1> lookup=<ok|BAD>
 *   category <index> <name> pvars=<i,j,…>
 *   mpii category: <index>|none
 * (lookup: MPI_T_pvar_get_index of the name and class gives the index back.) `--no-init` (first
 * argument) never calls MPI_Init: MPI_T alone, in a process of its own. With
 * `--counter NAME` it then exercises one counter of class COUNTER on rank 0 while rank 0 sends
 * 4 KiB messages to rank 1 with MPI_Send (overlap converts them):
 *   counter <name>: <after 3 sends, started> <after 2 more, stopped> <after 1 more, restarted>
 *                   <after reset> <after 1 more> <readreset> <after readreset>              */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

static void sends(int k, char *buf)
{
    for (int i = 0; i < k; i++) {
        if (rank == 0) MPI_Send(buf, 4096, MPI_CHAR, 1, 7, MPI_COMM_WORLD);
        else if (rank == 1) MPI_Recv(buf, 4096, MPI_CHAR, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
}

static void counter(const char *name)
{
    int idx, count;
    MPI_T_pvar_session s;
    MPI_T_pvar_handle h;
    unsigned long v[7];
    char *buf = malloc(1 << 16); /* after MPI_Init, >= heap-min: pages of its own */
    memset(buf, 1, 1 << 16);
    if (MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_COUNTER, &idx) != MPI_SUCCESS) {
        if (rank == 0) printf("counter %s: not found\n", name);
        free(buf);
        return;
    }
    MPI_T_pvar_session_create(&s);
    MPI_T_pvar_handle_alloc(s, idx, NULL, &h, &count);
    MPI_T_pvar_start(s, h);
    sends(3, buf);
    MPI_T_pvar_read(s, h, &v[0]);
    MPI_T_pvar_stop(s, h);
    sends(2, buf);
    MPI_T_pvar_read(s, h, &v[1]);
    MPI_T_pvar_start(s, h);
    sends(1, buf);
    MPI_T_pvar_read(s, h, &v[2]);
    MPI_T_pvar_reset(s, h);
    MPI_T_pvar_read(s, h, &v[3]);
    sends(1, buf);
    MPI_T_pvar_read(s, h, &v[4]);
    MPI_T_pvar_readreset(s, h, &v[5]);
    MPI_T_pvar_read(s, h, &v[6]);
    if (rank == 0)
        printf("counter %s: %lu %lu %lu %lu %lu %lu %lu\n", name, v[0], v[1], v[2], v[3], v[4], v[5], v[6]);
    MPI_T_pvar_handle_free(s, &h);
    MPI_T_pvar_session_free(&s);
    free(buf);
}

int main(int argc, char **argv)
{
    int provided, before = -1, n = 0, ncat = 0;
    int init = !(argc > 1 && strcmp(argv[1], "--no-init") == 0); /* MPI_T alone, no MPI_Init */
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_T_pvar_get_num(&before);
    if (init) {
        MPI_Init(&argc, &argv);
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &size);
    }
    MPI_T_pvar_get_num(&n);
    if (rank == 0) printf("before init: %d\n", before);
    for (int i = 0; i < n && rank == 0; i++) {
        char name[256], desc[1024];
        int nl = sizeof name, dl = sizeof desc, verb, cls, bind, ro, cont, at, back = -1;
        MPI_Datatype type;
        MPI_T_enum en;
        if (MPI_T_pvar_get_info(i, name, &nl, &verb, &cls, &type, &en, desc, &dl, &bind, &ro, &cont, &at) != MPI_SUCCESS) {
            printf("pvar %d: get_info failed\n", i);
            continue;
        }
        int ok = MPI_T_pvar_get_index(name, cls, &back) == MPI_SUCCESS && back == i;
        printf("pvar %d %s class=%d bind=%s readonly=%d continuous=%d lookup=%s\n", i, name, cls,
               bind == MPI_T_BIND_MPI_COMM ? "comm" : bind == MPI_T_BIND_NO_OBJECT ? "none" : "other", ro, cont,
               ok ? "ok" : "BAD");
    }
    MPI_T_category_get_num(&ncat);
    for (int c = 0; c < ncat && rank == 0; c++) {
        char name[256];
        int nl = sizeof name, ncv, npv = 0, ncc;
        if (MPI_T_category_get_info(c, name, &nl, NULL, NULL, &ncv, &npv, &ncc) != MPI_SUCCESS) continue;
        if (npv == 0) continue;
        int *idx = malloc(sizeof(int) * (size_t) npv);
        MPI_T_category_get_pvars(c, npv, idx);
        printf("category %d %s pvars=", c, name);
        for (int k = 0; k < npv; k++) printf("%s%d", k ? "," : "", idx[k]);
        printf("\n");
        free(idx);
    }
    int mc = -1;
    if (rank == 0) {
        if (MPI_T_category_get_index("mpii", &mc) == MPI_SUCCESS) printf("mpii category: %d\n", mc);
        else printf("mpii category: none\n");
    }
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], "--counter") == 0) counter(argv[i + 1]);
    MPI_T_finalize();
    if (init) MPI_Finalize();
    return 0;
}
