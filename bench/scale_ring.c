/* scale_ring.c - bench/scale.mjs's job: a ring exchange and an MPI_Allreduce per step, 5 steps,
 * the program of the profile-size measurements. After MPI_Finalize each rank prints its peak
 * resident memory (VmHWM) and rank 0, the profile's writer on one host, how long MPI_Finalize
 * took (where mpii gathers and writes the profile). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + ts.tv_nsec * 1e-9;
}

static long hwm_kb(void)
{
    char line[256];
    long kb = -1;
    FILE *f = fopen("/proc/self/status", "r");
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "VmHWM:", 6) == 0) sscanf(line + 6, "%ld", &kb);
    if (f) fclose(f);
    return kb;
}

int main(int argc, char **argv)
{
    int r, n;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    double x = r, y = 0, s = 0;
    for (int step = 0; step < 5; step++) {
        MPI_Sendrecv(&x, 1, MPI_DOUBLE, (r + 1) % n, 0, &y, 1, MPI_DOUBLE, (r + n - 1) % n, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        MPI_Allreduce(&y, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = now();
    MPI_Finalize();
    double t1 = now();
    printf("scale_ring rank=%d size=%d finalize_ms=%.3f hwm_kb=%ld sum=%g\n", r, n, (t1 - t0) * 1e3, hwm_kb(), s);
    return 0;
}
