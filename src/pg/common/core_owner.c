#include "core_owner.h"

#include "utils/memutils.h"

struct CoreOwner
{
	MemoryContextCallback callback;
	void		(*release) (void *);
	void	   *object;
};

static void
release_callback(void *arg)
{
	core_owner_release((CoreOwner *) arg);
}

CoreOwner *
core_owner_new(void (*release) (void *))
{
	CoreOwner  *owner = palloc0(sizeof(CoreOwner));

	owner->release = release;
	owner->callback.func = release_callback;
	owner->callback.arg = owner;
	MemoryContextRegisterResetCallback(CurrentMemoryContext, &owner->callback);
	return owner;
}

void
core_owner_adopt(CoreOwner *owner, void *object)
{
	owner->object = object;
}

void
core_owner_release(CoreOwner *owner)
{
	if (owner->object)
		owner->release(owner->object);
	owner->object = NULL;
}
