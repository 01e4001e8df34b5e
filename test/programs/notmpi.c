/* notmpi.c - a plain C program with no MPI at all, built with plain `cc`.
 * Used to check that mpii reports "not an MPI program" instead of silently
 * producing an empty profile.
 */
#include <stdio.h>

int main(void)
{
    printf("hello\n");
    return 0;
}
