/* Tools compiled into the shim. They register exactly like external ones (QMPI API only); this
 * table just lets TOOLS name them without a .so path. It is generated from the tools' manifests
 * (preload/tools/<name>/tool.yaml → mpii_tools.c, src/gen/tools-c.ts): the core names no tool. */
#ifndef MPII_BUILTIN_TOOLS_H
#define MPII_BUILTIN_TOOLS_H
typedef struct {
    const char *name;
    void (*init)(int tool_id);
} mpii_builtin_t;

/* ends with { 0, 0 } */
extern const mpii_builtin_t mpii_builtins[] __attribute__((visibility("hidden")));
#endif
