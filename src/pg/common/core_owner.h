/*
 * Ownership of C++ core objects from C: an object is released when the memory context it was
 * registered in is reset or deleted (also after an error or a cancel), or earlier by
 * core_owner_release. Nothing C++ outlives the query that made it.
 */
#ifndef SIMHASH_CORE_OWNER_H
#define SIMHASH_CORE_OWNER_H

#include "postgres.h"

typedef struct CoreOwner CoreOwner;

/* Registers object with CurrentMemoryContext; release is called at most once. */
extern CoreOwner *core_owner_register(void *object, void (*release) (void *));
extern void core_owner_release(CoreOwner *owner);

#endif
