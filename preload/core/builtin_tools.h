/* Tools compiled into the shim. They register exactly like external ones (QMPI API only);
 * this table just lets TOOLS name them without a .so path. */
#ifndef MPII_BUILTIN_TOOLS_H
#define MPII_BUILTIN_TOOLS_H
typedef struct {
    const char *name;
    void (*init)(int tool_id);
} mpii_builtin_t;

void mpii_noop_init(int tool_id);
void mpii_trace_count_init(int tool_id);
void mpii_profile_init(int tool_id);
void mpii_monitor_init(int tool_id);
void mpii_overlap_init(int tool_id);
void mpii_memcheck_init(int tool_id);

static const mpii_builtin_t mpii_builtins[] = {
    { "noop", mpii_noop_init },
    { "trace-count", mpii_trace_count_init },
    { "profile", mpii_profile_init },
    { "monitor", mpii_monitor_init },
    { "overlap", mpii_overlap_init },
    { "memcheck", mpii_memcheck_init },
    { 0, 0 },
};
#endif
