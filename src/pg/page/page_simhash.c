/*
 * simhash(text, ...), simhash_html(text, ...), fingerprints(text, ...), fingerprints_html(text, ...),
 * resemblance_sketch(text, ...), resemblance_sketch_html(text, ...)
 * and html_text(text): the page pipeline of the core, fed in 1 MB pieces with an interrupt check
 * between them, so a huge page can be cancelled.
 *
 * The core's state is C++ memory, owned through core_owner.h: an error or a cancel between pieces
 * cannot leak it.
 */
#include "simhash_type.h"

#include "miscadmin.h"
#include "utils/builtins.h"

#include "bridge_error.h"
#include "core_owner.h"
#include "utf8_text.h"
#include "fingerprints_type.h"
#include "resemblance_sketch_type.h"
#include "page_bridge.h"

#define PIECE_BYTES (1024 * 1024)

PG_FUNCTION_INFO_V1(simhash_text);
PG_FUNCTION_INFO_V1(simhash_html);
PG_FUNCTION_INFO_V1(fingerprints_text);
PG_FUNCTION_INFO_V1(fingerprints_html);
PG_FUNCTION_INFO_V1(resemblance_sketch_text);
PG_FUNCTION_INFO_V1(resemblance_sketch_html);
PG_FUNCTION_INFO_V1(html_text);

static void
free_page(void *p)
{
	sh_page_free((sh_page *) p);
}

static void
free_html_text(void *p)
{
	sh_html_text_free((sh_html_text *) p);
}

static sh_unit
parse_unit(const char *name)
{
	if (pg_strcasecmp(name, "word") == 0)
		return SH_UNIT_WORD;
	if (pg_strcasecmp(name, "character") == 0 || pg_strcasecmp(name, "char") == 0)
		return SH_UNIT_CHARACTER;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unknown shingle unit \"%s\"", name),
			 errhint("Use 'word' or 'character'.")));
	pg_unreachable();
}

static sh_weighting
parse_weighting(const char *name)
{
	if (pg_strcasecmp(name, "distinct") == 0)
		return SH_WEIGHT_DISTINCT;
	if (pg_strcasecmp(name, "frequency") == 0)
		return SH_WEIGHT_FREQUENCY;
	if (pg_strcasecmp(name, "log") == 0)
		return SH_WEIGHT_LOG;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unknown weighting \"%s\"", name),
			 errhint("Use 'distinct', 'frequency' or 'log'.")));
	pg_unreachable();
}

static sh_method
parse_method(const char *name)
{
	if (pg_strcasecmp(name, "minhash") == 0)
		return SH_METHOD_MINHASH;
	if (pg_strcasecmp(name, "charikar") == 0)
		return SH_METHOD_CHARIKAR;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unknown method \"%s\"", name),
			 errhint("Use 'minhash' or 'charikar'.")));
	pg_unreachable();
}

/*
 * Runs the pipeline over argument 0 with the options in arguments 1..3 (shingle text, size int,
 * fold_case bool). The caller reads the result from the page, then releases *owner.
 */
static sh_page *
fed_page(FunctionCallInfo fcinfo, bool html, sh_weighting weighting, sh_method method,
		 sh_page_result what, CoreOwner **owner)
{
	size_t		len;
	const char *data = text_utf8(PG_GETARG_TEXT_PP(0), &len);
	sh_page_options options;
	sh_page    *page;
	sh_error	err;
	sh_status	status;

	options.unit = parse_unit(text_to_cstring(PG_GETARG_TEXT_PP(1)));
	options.size = PG_GETARG_INT32(2);
	options.fold_case = PG_GETARG_BOOL(3);
	options.weighting = weighting;
	options.method = method;
	options.html = html;
	options.result = what;
	if (options.size < 1 || options.size > 64)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("shingle size must be between 1 and 64, got %d", options.size)));

	*owner = core_owner_new(free_page);
	status = sh_page_new(&options, &page, &err);
	core_owner_adopt(*owner, page);
	sh_raise_bridge_error(status, &err, ERRCODE_INVALID_PARAMETER_VALUE);
	for (size_t done = 0; done < len; done += PIECE_BYTES)
	{
		CHECK_FOR_INTERRUPTS();
		status = sh_page_feed(page, data + done, Min((size_t) PIECE_BYTES, len - done), &err);
		sh_raise_bridge_error(status, &err, ERRCODE_INVALID_PARAMETER_VALUE);
	}
	return page;
}

/* Arguments: (content text, shingle text, size int, fold_case bool, weighting text, method text). */
static uint64
page_simhash(FunctionCallInfo fcinfo, bool html)
{
	sh_weighting weighting = parse_weighting(text_to_cstring(PG_GETARG_TEXT_PP(4)));
	sh_method	method = parse_method(text_to_cstring(PG_GETARG_TEXT_PP(5)));
	CoreOwner  *owner;
	sh_page    *page = fed_page(fcinfo, html, weighting, method, SH_RESULT_SIMHASH, &owner);
	sh_error	err;
	sh_status	status;
	uint64_t	result = 0;

	status = sh_page_simhash(page, &result, &err);
	sh_raise_bridge_error(status, &err, ERRCODE_INVALID_PARAMETER_VALUE);
	core_owner_release(owner);
	return result;
}

/* Arguments: (content text, shingle text, size int, fold_case bool). */
static Fingerprints *
page_fingerprints(FunctionCallInfo fcinfo, bool html)
{
	CoreOwner  *owner;
	sh_page    *page = fed_page(fcinfo, html, SH_WEIGHT_DISTINCT, SH_METHOD_MINHASH, SH_RESULT_MIN_HASHES, &owner);
	Fingerprints *result = palloc(sizeof(Fingerprints));
	sh_error	err;
	sh_status	status;

	status = sh_page_min_hashes(page, result->entries, &err);
	sh_raise_bridge_error(status, &err, ERRCODE_INVALID_PARAMETER_VALUE);
	core_owner_release(owner);
	return result;
}

/* Arguments: (content text, shingle text, size int, fold_case bool). */
static ResemblanceSketch *
page_resemblance(FunctionCallInfo fcinfo, bool html)
{
	CoreOwner  *owner;
	sh_page    *page = fed_page(fcinfo, html, SH_WEIGHT_DISTINCT, SH_METHOD_MINHASH, SH_RESULT_RESEMBLANCE, &owner);
	ResemblanceSketch *result = palloc(sizeof(ResemblanceSketch));
	sh_error	err;
	sh_status	status;

	status = sh_page_resemblance(page, result->bytes, &err);
	sh_raise_bridge_error(status, &err, ERRCODE_INVALID_PARAMETER_VALUE);
	core_owner_release(owner);
	return result;
}

Datum
simhash_text(PG_FUNCTION_ARGS)
{
	PG_RETURN_SIMHASH(page_simhash(fcinfo, false));
}

Datum
simhash_html(PG_FUNCTION_ARGS)
{
	PG_RETURN_SIMHASH(page_simhash(fcinfo, true));
}

Datum
fingerprints_text(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(page_fingerprints(fcinfo, false));
}

Datum
fingerprints_html(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(page_fingerprints(fcinfo, true));
}

Datum
resemblance_sketch_text(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(page_resemblance(fcinfo, false));
}

Datum
resemblance_sketch_html(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(page_resemblance(fcinfo, true));
}

Datum
html_text(PG_FUNCTION_ARGS)
{
	size_t		len;
	const char *data = text_utf8(PG_GETARG_TEXT_PP(0), &len);
	sh_html_text *extractor;
	sh_error	err;
	sh_status	status;
	CoreOwner  *owner;
	const char *out;
	size_t		out_len;
	text	   *result;

	owner = core_owner_new(free_html_text);
	status = sh_html_text_new(&extractor, &err);
	core_owner_adopt(owner, extractor);
	sh_raise_bridge_error(status, &err, ERRCODE_INVALID_PARAMETER_VALUE);
	for (size_t done = 0; done < len; done += PIECE_BYTES)
	{
		CHECK_FOR_INTERRUPTS();
		status = sh_html_text_feed(extractor, data + done, Min((size_t) PIECE_BYTES, len - done), &err);
		sh_raise_bridge_error(status, &err, ERRCODE_INVALID_PARAMETER_VALUE);
	}
	status = sh_html_text_result(extractor, &out, &out_len, &err);
	sh_raise_bridge_error(status, &err, ERRCODE_INVALID_PARAMETER_VALUE);
	result = utf8_to_text(out, out_len);
	core_owner_release(owner);
	PG_RETURN_TEXT_P(result);
}
