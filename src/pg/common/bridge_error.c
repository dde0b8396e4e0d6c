#include "bridge_error.h"

void
sh_raise_bridge_error(sh_status status, const sh_error *err, int invalid_code)
{
	switch (status)
	{
		case SH_OK:
			return;
		case SH_ERR_OUT_OF_MEMORY:
			ereport(ERROR,
					(errcode(ERRCODE_OUT_OF_MEMORY),
					 errmsg("out of memory in simhash"),
					 errdetail("%s", err->message)));
			break;
		case SH_ERR_INVALID_ARGUMENT:
			ereport(ERROR, (errcode(invalid_code), errmsg("%s", err->message)));
			break;
		case SH_ERR_LIMIT_EXCEEDED:
			ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED), errmsg("%s", err->message)));
			break;
		case SH_ERR_INTERNAL:
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg("internal error in simhash: %s", err->message)));
			break;
	}
	elog(ERROR, "unknown simhash bridge status %d", (int) status);
}
