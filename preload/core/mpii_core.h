/* What a built-in tool includes to reach the core: the layer below (MPII_CALL_NEXT, mpii_next),
 * per-instance storage, the calling address and the object holding it, the rank and logging, small
 * helpers. The core's
 * own .c files include the module headers they use instead, so that the include graph is the
 * layering (docs/architecture-c-core.md). */
#ifndef MPII_CORE_H
#define MPII_CORE_H
#include "util.h"
#include "log.h"
#include "dispatch.h"
#include "object_of.h"
#endif
