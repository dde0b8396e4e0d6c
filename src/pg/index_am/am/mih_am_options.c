/*
 * The options of a simhash_mih index: "blocks", "compact", "pending_limit" and "base_share"
 * (MihOptions), and what tells a simhash_mih index from another.
 */
#include "am/mih_am.h"

#include "access/reloptions.h"
#include "utils/guc.h"

static relopt_kind mih_relopt_kind;

void
mih_init_reloptions(void)
{
	mih_relopt_kind = add_reloption_kind();
	/* 0 (the default) lets the build choose from the row count. */
	add_int_reloption(mih_relopt_kind, "blocks",
					  "number of blocks, and of sorted tables, the 64 bits are split into (2..6)",
					  0, MIH_MIN_TABLES, MIH_MAX_TABLES, AccessExclusiveLock);
	add_bool_reloption(mih_relopt_kind, "compact",
					   "tables 1..m-1 hold 4-byte keys instead of (hash, row) entries: a smaller index, "
					   "nearest neighbours read table 0",
					   false, AccessExclusiveLock);
	/* As gin_pending_list_limit: the most a scan reads unsorted (twice that while a flush runs). */
	add_int_reloption(mih_relopt_kind, "pending_limit",
					  "kB of unsorted pending rows after which an insert writes them as a sorted run",
					  MIH_PENDING_LIMIT_DEFAULT, 64, MAX_KILOBYTES, ShareUpdateExclusiveLock);
	add_int_reloption(mih_relopt_kind, "base_share",
					  "the other runs merge into the biggest once they hold 1/base_share of its rows (0: never)",
					  MIH_BASE_SHARE_DEFAULT, 0, 1024, ShareUpdateExclusiveLock);
}

bytea *
mih_options(Datum reloptions, bool validate)
{
	static const relopt_parse_elt tab[] = {
		{"blocks", RELOPT_TYPE_INT, offsetof(MihOptions, blocks)},
		{"compact", RELOPT_TYPE_BOOL, offsetof(MihOptions, compact)},
		{"pending_limit", RELOPT_TYPE_INT, offsetof(MihOptions, pending_limit)},
		{"base_share", RELOPT_TYPE_INT, offsetof(MihOptions, base_share)},
	};

	return (bytea *) build_reloptions(reloptions, validate, mih_relopt_kind,
									  sizeof(MihOptions), tab, lengthof(tab));
}

/*
 * True if the index is a simhash_mih index: its access method's options are these (the handler's
 * routine names mih_options), whatever name CREATE ACCESS METHOD gave the method.
 */
bool
mih_is_ours(Relation index)
{
	return index->rd_indam->amoptions == mih_options;
}
