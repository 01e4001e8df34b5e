/* dlsym.c: the C library's own dlsym, behind the shim's interposed one (NULL until found, and
 * on machines where dlsym is not interposed). */
#ifndef MPII_DLSYM_H
#define MPII_DLSYM_H
extern void *(*mpii_real_dlsym)(void *, const char *) __attribute__((visibility("hidden")));
#endif
