/* Where the installed defaults file is, for the static archive (libmpii.a), whose code cannot find
 * its own directory at run time: `mpii install` replaces this member (site_path.o) of the copy it
 * installs with one naming <prefix>/lib/mpii/<mpi>/mpii-defaults. Empty: look next to the library. */
#include "site_path.h"

const char mpii_site_defaults_path[] = "";
