/*
 * Text crosses to the core as UTF-8, whatever the database encoding, so the same page gives the
 * same simhash in every database; text the core returns is converted back. A database in
 * SQL_ASCII has no encoding to convert from or to: its bytes go as they are.
 */
#ifndef SIMHASH_UTF8_TEXT_H
#define SIMHASH_UTF8_TEXT_H

#include "postgres.h"

/* The bytes of t as UTF-8 (t's own bytes when no conversion is needed). */
extern const char *text_utf8(const text *t, size_t *len);

/*
 * UTF-8 bytes as a text value of the database encoding. A character the encoding cannot hold is
 * error 22P05 (untranslatable_character), with a hint; it is never stored as foreign bytes.
 */
extern text *utf8_to_text(const char *utf8, size_t len);

#endif
