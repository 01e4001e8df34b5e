/* profile_file.c: the rank's profile file. The functions tools use are also in the public API
 * (mpii_tool.h), with the same prototypes. */
#ifndef MPII_PROFILE_FILE_H
#define MPII_PROFILE_FILE_H
#include <stddef.h>
#include <stdint.h>

void mpii_profile_begin(const char *out_dir);
void mpii_profile_started(const char *spawned_subdir);
void mpii_profile_attach_dir(const char *dir);
void mpii_profile_add_tool(int tool_id, const char *name, const char *origin);
void mpii_profile_finish(void);
void mpii_profile_mark_aborted(void);
uint64_t *mpii_profile_counters(int tool_id, const char *section, size_t n, const char *labels);
int mpii_profile_text(int tool_id, const char *section, const char *text);
void mpii_profile_event(int tool_id, unsigned kind, int64_t value, const char *name);
/* `s` as a quoted JSON string into out (snprintf-like: returns the length it needs) */
size_t mpii_json_string(char *out, size_t cap, const char *s);
#endif
