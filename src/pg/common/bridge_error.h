/*
 * Turns a bridge status into a PostgreSQL error. Called from C after the bridge call returned,
 * never from inside a C++ frame.
 */
#ifndef SIMHASH_BRIDGE_ERROR_H
#define SIMHASH_BRIDGE_ERROR_H

#include "postgres.h"

#include "bridge_common.h"

/* Raises ERROR unless status is SH_OK; invalid_code is the SQLSTATE for SH_ERR_INVALID_ARGUMENT. */
extern void sh_raise_bridge_error(sh_status status, const sh_error *err, int invalid_code);

#endif
