#include "source_hint.h"

#include "catalog/namespace.h"
#include "catalog/pg_namespace.h"
#include "nodes/pg_list.h"

/* Does the search_path name no schema a user's table could be in? */
static bool
search_path_names_no_schema(void)
{
	List	   *path = fetch_search_path(false);
	ListCell   *lc;
	bool		none = true;

	foreach(lc, path)
	{
		Oid			nsp = lfirst_oid(lc);

		if (nsp != PG_CATALOG_NAMESPACE && !isAnyTempNamespace(nsp))
			none = false;
	}
	list_free(path);
	return none;
}

void
sh_source_search_path_hint(void *arg)
{
	int			code = geterrcode();

	(void) arg;
	if (code != ERRCODE_UNDEFINED_TABLE && code != ERRCODE_UNDEFINED_FUNCTION &&
		code != ERRCODE_UNDEFINED_OBJECT)
		return;
	if (!search_path_names_no_schema())
		return;
	errhint("The source query runs with the caller's search_path, which names no schema here "
			"(pg_restore and REFRESH MATERIALIZED VIEW during a restore run with an empty one). "
			"Schema-qualify what the source names, e.g. SELECT id, sh FROM public.pages, or select from "
			"a schema-qualified view.");
}
