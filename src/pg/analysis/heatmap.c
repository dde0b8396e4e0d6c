/*
 * simhash_heatmap_svg(histogram, scale, d, k, title): the threshold analysis heat map as a
 * standalone SVG document, drawn by the core from a histogram query's rows.
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/builtins.h"

#include "bridge_error.h"
#include "core_owner.h"
#include "heatmap_bridge.h"
#include "int_source.h"

PG_FUNCTION_INFO_V1(simhash_heatmap_svg);

static void
free_svg(void *svg)
{
	sh_svg_free((sh_svg *) svg);
}

Datum
simhash_heatmap_svg(PG_FUNCTION_ARGS)
{
	char	   *histogram = text_to_cstring(PG_GETARG_TEXT_PP(0));
	char	   *scale = text_to_cstring(PG_GETARG_TEXT_PP(1));
	sh_heatmap_options options;
	IntColumns	cells;
	sh_svg	   *svg;
	sh_error	err;
	sh_status	status;
	CoreOwner  *owner;
	const char *doc;
	size_t		len;
	text	   *result;

	if (pg_strcasecmp(scale, "log") == 0)
		options.log_scale = 1;
	else if (pg_strcasecmp(scale, "linear") == 0)
		options.log_scale = 0;
	else
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown colour scale \"%s\"", scale),
				 errhint("Use 'log' or 'linear'.")));
	options.fp_threshold = PG_GETARG_INT32(2);
	options.sh_threshold = PG_GETARG_INT32(3);
	options.title = text_to_cstring(PG_GETARG_TEXT_PP(4));

	cells = read_int_source(histogram, 3, NULL);
	if (cells.skipped > 0)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg_plural("the histogram query returned %lld row with a NULL",
							   "the histogram query returned %lld rows with a NULL",
							   cells.skipped, (long long) cells.skipped),
				 errhint("It must return (fp_diff, sh_diff, pairs) without NULLs.")));
	owner = core_owner_new(free_svg);
	status = sh_heatmap_svg(cells.values[0], cells.values[1], cells.values[2], cells.n, &options, &svg, &err);
	core_owner_adopt(owner, svg);
	sh_raise_bridge_error(status, &err, ERRCODE_INVALID_PARAMETER_VALUE);
	doc = sh_svg_text(svg, &len);
	result = cstring_to_text_with_len(doc, (int) len);
	core_owner_release(owner);
	PG_RETURN_TEXT_P(result);
}
