#include "utf8_text.h"

#include "pg_compat.h"

#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "utils/elog.h"

static bool
converts(void)
{
	int			encoding = GetDatabaseEncoding();

	return encoding != PG_UTF8 && encoding != PG_SQL_ASCII;
}

const char *
text_utf8(const text *t, size_t *len)
{
	const char *data = VARDATA_ANY(t);
	char	   *converted;

	*len = VARSIZE_ANY_EXHDR(t);
	if (!converts())
		return data;
	converted = pg_server_to_any(data, (int) *len, PG_UTF8);
	if (converted != data)
		*len = strlen(converted);
	return converted;
}

static void
untranslatable_hint(void *arg)
{
	if (geterrcode() == ERRCODE_UNTRANSLATABLE_CHARACTER)
		errhint("The text holds a character (from a character reference such as &#x4E00;) that the "
				"database encoding %s cannot hold. A database in UTF8 holds every character.",
				GetDatabaseEncodingName());
}

text *
utf8_to_text(const char *utf8, size_t len)
{
	ErrorContextCallback hint;
	char	   *converted;
	text	   *result;

	if (!converts())
		return cstring_to_text_with_len(utf8, (int) len);
	hint.callback = untranslatable_hint;
	hint.arg = NULL;
	hint.previous = error_context_stack;
	error_context_stack = &hint;
	converted = pg_any_to_server(utf8, (int) len, PG_UTF8);
	error_context_stack = hint.previous;
	result = cstring_to_text(converted);
	if (converted != utf8)
		pfree(converted);
	return result;
}
