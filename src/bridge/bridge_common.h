/*
 * Conventions shared by every bridge header (C API over the C++ core).
 *
 * Bridge functions are noexcept on the C++ side. Those that can fail report through an
 * sh_status plus an sh_error the caller owns; the C glue turns that into ereport(ERROR) after
 * the bridge call has returned, so no PostgreSQL error ever unwinds a C++ frame.
 */
#ifndef SIMHASH_BRIDGE_COMMON_H
#define SIMHASH_BRIDGE_COMMON_H

#ifdef __cplusplus
#define SH_NOEXCEPT noexcept
#else
#define SH_NOEXCEPT
#endif

typedef enum
{
	SH_OK = 0,
	SH_ERR_OUT_OF_MEMORY,		/* std::bad_alloc */
	SH_ERR_INVALID_ARGUMENT,	/* the caller's input was rejected; message says why */
	SH_ERR_LIMIT_EXCEEDED,		/* a documented size limit would be crossed */
	SH_ERR_INTERNAL				/* any other exception: a bug */
} sh_status;

#define SH_ERROR_MESSAGE_LEN 256

typedef struct sh_error
{
	char		message[SH_ERROR_MESSAGE_LEN];
} sh_error;

#endif
