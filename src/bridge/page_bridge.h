/* C API of the page pipeline (src/core/page_simhash.hpp, page_min_hashes.hpp, page_resemblance.hpp,
 * html_text.hpp). */
#ifndef SIMHASH_PAGE_BRIDGE_H
#define SIMHASH_PAGE_BRIDGE_H

#include <stddef.h>
#include <stdint.h>

#include "bridge_common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { SH_UNIT_WORD = 0, SH_UNIT_CHARACTER = 1 } sh_unit;
typedef enum { SH_WEIGHT_DISTINCT = 0, SH_WEIGHT_FREQUENCY = 1, SH_WEIGHT_LOG = 2 } sh_weighting;
typedef enum { SH_METHOD_MINHASH = 0, SH_METHOD_CHARIKAR = 1 } sh_method;
/* What a page is built for: one result each. */
typedef enum { SH_RESULT_SIMHASH = 0, SH_RESULT_MIN_HASHES = 1, SH_RESULT_RESEMBLANCE = 2 } sh_page_result;

/* Bytes of a resemblance sketch (src/core/resemblance_sketch.hpp). */
#define SH_RESEMBLANCE_BYTES 64

typedef struct sh_page_options
{
	sh_unit		unit;
	int			size;
	int			fold_case;
	sh_weighting weighting;
	sh_method	method;
	int			html;
	sh_page_result result;		/* which of sh_page_simhash, _min_hashes, _resemblance */
} sh_page_options;

typedef struct sh_page sh_page;			/* opaque: C++ memory */
typedef struct sh_html_text sh_html_text;	/* opaque: C++ memory */

sh_status	sh_page_new(const sh_page_options *options, sh_page **page, sh_error *err) SH_NOEXCEPT;
sh_status	sh_page_feed(sh_page *page, const char *data, size_t len, sh_error *err) SH_NOEXCEPT;
sh_status	sh_page_simhash(sh_page *page, uint64_t *result, sh_error *err) SH_NOEXCEPT;
/* The page's 128 min-hashes (the legacy fingerprints) into result[0..127]. */
sh_status	sh_page_min_hashes(sh_page *page, uint64_t *result, sh_error *err) SH_NOEXCEPT;
/* The page's resemblance sketch into result[0..63]. */
sh_status	sh_page_resemblance(sh_page *page, uint8_t *result, sh_error *err) SH_NOEXCEPT;
void		sh_page_free(sh_page *page) SH_NOEXCEPT;

/* The resemblance estimate of two sketches, 0..1. */
double		sh_resemblance(const uint8_t *a, const uint8_t *b) SH_NOEXCEPT;

sh_status	sh_html_text_new(sh_html_text **h, sh_error *err) SH_NOEXCEPT;
/* Appends the visible text of the next piece to the result buffer. */
sh_status	sh_html_text_feed(sh_html_text *h, const char *data, size_t len, sh_error *err) SH_NOEXCEPT;
/* Ends the document; *data stays valid until sh_html_text_free. */
sh_status	sh_html_text_result(sh_html_text *h, const char **data, size_t *len, sh_error *err) SH_NOEXCEPT;
void		sh_html_text_free(sh_html_text *h) SH_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif
