/* The standard's empty status (status.h). */
#include "status.h"

void mpii_status_set_empty(MPI_Status *st)
{
    if (st == MPI_STATUS_IGNORE) return;
    st->MPI_SOURCE = MPI_ANY_SOURCE;
    st->MPI_TAG = MPI_ANY_TAG;
    st->MPI_ERROR = MPI_SUCCESS;
    MPII_PMPI(MPI_Status_set_elements_x, MPI_STATUS_SET_ELEMENTS_X_T)(st, MPI_BYTE, 0);
    MPII_PMPI(MPI_Status_set_cancelled, MPI_STATUS_SET_CANCELLED_T)(st, 0);
}
