/* C API of the threshold-analysis heat map (src/core/heatmap_svg.hpp). */
#ifndef SIMHASH_HEATMAP_BRIDGE_H
#define SIMHASH_HEATMAP_BRIDGE_H

#include <stddef.h>
#include <stdint.h>

#include "bridge_common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sh_heatmap_options
{
	int			log_scale;
	int			fp_threshold;
	int			sh_threshold;
	const char *title;			/* NUL-terminated UTF-8 */
} sh_heatmap_options;

typedef struct sh_svg sh_svg;	/* opaque: C++ memory */

/* Cells are parallel arrays (x = fingerprint difference, y = simhash difference, pairs). */
sh_status	sh_heatmap_svg(const int64_t *x, const int64_t *y, const int64_t *pairs, size_t n,
						   const sh_heatmap_options *options, sh_svg **svg, sh_error *err) SH_NOEXCEPT;
/* The document; valid until sh_svg_free. */
const char *sh_svg_text(const sh_svg *svg, size_t *len) SH_NOEXCEPT;
void		sh_svg_free(sh_svg *svg) SH_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif
