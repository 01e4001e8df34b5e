/* site_path.c: where the installed defaults file is (a member `mpii install` replaces). */
#ifndef MPII_SITE_PATH_H
#define MPII_SITE_PATH_H
extern const char mpii_site_defaults_path[];
#endif
