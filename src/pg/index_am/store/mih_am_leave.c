/*
 * The merge worker leaves its database when a command needs the database alone. DROP DATABASE,
 * ALTER DATABASE ... RENAME TO and ... SET TABLESPACE (dbcommands.c: dropdb, RenameDatabase,
 * movedb) take AccessExclusiveLock on the database object, CREATE DATABASE ... TEMPLATE a
 * ShareLock, and then wait up to 5 seconds for every other backend connected to it to leave, or
 * fail ("being accessed by other users"). PostgreSQL 15-18 tell only autovacuum workers to go (19
 * also background workers started with BGWORKER_INTERRUPTIBLE, which the worker sets there), and
 * the database's owner cannot terminate ours. So the worker looks for such a command itself: it
 * tries, without waiting, the RowExclusiveLock on the database object that every backend takes as
 * it connects (InitPostgres). That lock conflicts with those commands' locks whether they hold
 * them or wait for them, and with nothing else a backend takes, so the test never makes them wait.
 * The worker tests while idle, between its looks, and in its merges' loops (every
 * LEAVE_CHECK_MS): there it leaves as a worker terminated at that point does (a FATAL error at a
 * point where CHECK_FOR_INTERRUPTS would end it), which a merge survives (t/012, t/014).
 */
#include "store/mih_store.h"

#include "catalog/pg_database.h"
#include "miscadmin.h"
#include "storage/lock.h"
#include "utils/timestamp.h"

/* How often a merge of the worker tests the lock: well inside the commands' 5-second wait. */
#define LEAVE_CHECK_MS		100

/* Whether this backend is a merge worker: the others never leave. */
static bool is_worker = false;
static TimestampTz checked_at = 0;

void
mih_leave_when_wanted(void)
{
	is_worker = true;
}

bool
mih_database_wanted(void)
{
	LOCKTAG		tag;

	SET_LOCKTAG_OBJECT(tag, InvalidOid, DatabaseRelationId, MyDatabaseId, 0);
	if (LockAcquire(&tag, RowExclusiveLock, true, true) == LOCKACQUIRE_NOT_AVAIL)
		return true;
	LockRelease(&tag, RowExclusiveLock, true);
	return false;
}

void
mih_leave_if_wanted(void)
{
	TimestampTz now;

	if (!is_worker || !INTERRUPTS_CAN_BE_PROCESSED())
		return;
	now = GetCurrentTimestamp();
	if (!TimestampDifferenceExceeds(checked_at, now, LEAVE_CHECK_MS))
		return;
	checked_at = now;
	if (mih_database_wanted())
		ereport(FATAL,
				(errcode(ERRCODE_ADMIN_SHUTDOWN),
				 errmsg("simhash_mih merge worker leaves database %u in a merge: a command needs the database alone",
						MyDatabaseId)));
}
