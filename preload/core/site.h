/* site.c: the shim linked in by the MPI compiler wrappers (mpii install) */
#ifndef MPII_SITE_H
#define MPII_SITE_H
int mpii_shadowed(void);
void mpii_site_defaults(void);
int mpii_site_mode(void);
void mpii_site_out_dir(int enabled);
#endif
