/*
 * Ownership of C++ core objects from C: an object is released when the memory context it was
 * registered in is reset or deleted (also after an error or a cancel), or earlier by
 * core_owner_release. Nothing C++ outlives the query that made it.
 */
#ifndef SIMHASH_CORE_OWNER_H
#define SIMHASH_CORE_OWNER_H

#include "postgres.h"

typedef struct CoreOwner CoreOwner;

/*
 * The owner is made, and registered with CurrentMemoryContext, before the object it will own: once
 * a C++ object exists nothing may fail (palloc can) before someone owns it. So:
 *     owner = core_owner_new(release);
 *     status = sh_xxx_new(..., &object, ...);   -- no PostgreSQL call in between
 *     core_owner_adopt(owner, object);          -- cannot fail
 * release is called at most once, with the adopted object.
 */
extern CoreOwner *core_owner_new(void (*release) (void *));
extern void core_owner_adopt(CoreOwner *owner, void *object);
extern void core_owner_release(CoreOwner *owner);

#endif
