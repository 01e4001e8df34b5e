/* profile: the layout of the tool's data in the rank's profile, declared in blocks.yaml here
 * (generated: profile_blocks.h; read by preload/tools/profile/report/data.ts).
 *   section "clock"    PF_CLOCK_FIELDS values (labels PF_CLOCK_LABELS): the timer, the
 *                      application's start and end, a calibration pair, Pcontrol state;
 *   section "sites"    a hash table of call sites, one row per (MPI function, calling address[es]):
 *                      the function id + 1 (0 = empty row), `depth` addresses, then PF_NFIELDS
 *                      statistics; the labels name every field of a row, so the reader knows the
 *                      row length and the depth;
 *   section "overflow" one row of PF_NFIELDS per function id: calls that found the table full;
 *   text "function"    "<id> <name>" of each MPI function with a row, written with its first row;
 *   text "module"      one per loaded object that holds a call site: "<start> <end> <bias> <path>"
 *                      (hex addresses of its code, load bias), written when its first site is
 *                      seen, so even a crashed job's addresses can be turned into file:line.
 * Times are in ticks of the timer (TSC cycles, or nanoseconds of CLOCK_MONOTONIC). With option
 * sample=N > 1 a site's first PF_ALWAYS_TIMED calls are timed, then one in N on average: the
 * reader adds the first calls' ticks (PF_TICKS_FIRST) to the later timed calls' ticks scaled by
 * later calls / later timed calls (a first call that sets up a connection is not multiplied). */
#ifndef MPII_PROFILE_H
#define MPII_PROFILE_H

#include "profile_blocks.h" /* PF_* fields, labels and constants: generated from blocks.yaml */
#endif
