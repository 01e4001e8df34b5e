/* Reading a tool instance's options: the CLI exports MPII_OPT_<n>="key=value;key=value" for the n-th tool of TOOLS
 * (values already checked against the tool's manifest). The typed reader below is what the
 * generated mpii_<tool>_options() functions call (src/gen/tools-c.ts); tools never parse text. */
#ifndef MPII_OPTIONS_H
#define MPII_OPTIONS_H
#include <stddef.h>

enum { MPII_OPTION_INT, MPII_OPTION_NUMBER, MPII_OPTION_BOOL, MPII_OPTION_STRING, MPII_OPTION_ENUM };

/* One option of a tool: where its value goes in the tool's options struct and what it may be. */
typedef struct {
    const char *key;
    int type;                  /* MPII_OPTION_* */
    size_t offset;             /* of the field: long long, double, int, const char * or int (enum index) */
    double min, max;           /* int and number: values outside are clamped */
    const char *const *values; /* enum: the names, NULL-terminated */
} mpii_option_spec_t;

/* Overwrite the fields of `out` (already holding the defaults) with the values this instance was
 * given. A value that does not parse keeps the default, with one line on stderr. Strings are
 * copied and live for the process. Called once per instance, never per MPI call. */
void mpii_options_read(int tool_id, const char *tool, const mpii_option_spec_t *spec, size_t n, void *out);
/* The MPI library's tool list took tool ids 1..listed (dispatch.c): the n-th tool of TOOLS, whose
 * options MPII_OPT_<n> holds, is tool id n + listed. */
void mpii_options_shift(int listed);
#endif
