/*
 * A hint for errors of a user's source query that come from an empty search_path.
 *
 * A source query is the caller's SQL and runs under the caller's search_path. pg_restore (and
 * REFRESH MATERIALIZED VIEW during a restore) runs with an empty one, so a source that names
 * "pages" instead of "public.pages" fails there with a bare "relation does not exist". While a
 * source runs, the reader pushes this callback; for an undefined table, function, operator or type
 * under a search_path that names no schema besides pg_catalog and pg_temp it adds a hint that says
 * why and what to write instead.
 */
#ifndef SIMHASH_SOURCE_HINT_H
#define SIMHASH_SOURCE_HINT_H

#include "postgres.h"

/* An ErrorContextCallback's callback; its arg is unused. */
extern void sh_source_search_path_hint(void *arg);

#endif
