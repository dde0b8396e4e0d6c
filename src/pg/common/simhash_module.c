/*
 * Library entry: module magic, the load-time CPU check, the extension's settings, and what the
 * other wings set up at load time (module_init.h).
 */
#include "postgres.h"

#include "fmgr.h"

#include "module_init.h"
#include "settings.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

void
_PG_init(void)
{
#if defined(__x86_64__) && defined(__POPCNT__)
	/* Built with -mpopcnt: refuse to load where the instruction would fault. */
	__builtin_cpu_init();
	if (!__builtin_cpu_supports("popcnt"))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("simhash requires a CPU with the POPCNT instruction")));
#endif

	sh_define_settings();
	mih_init_reloptions();
	simhash_dedup_init();
}
