/* SPDX-License-Identifier: GPL-2.0 */
/*
 * errno_name - the symbolic name of the errno values the guest's tests
 * compare against (EINVAL, EOPNOTSUPP, ...), strerror() for the rest.
 * Shared by the guest's C programs (labutil, napiget).
 */
#ifndef LAB_ERRNAME_H
#define LAB_ERRNAME_H

#include <errno.h>
#include <string.h>

static inline const char *errno_name(int err)
{
	switch (err) {
	case EINVAL: return "EINVAL";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case ENOENT: return "ENOENT";
	case ERANGE: return "ERANGE";
	case EBUSY: return "EBUSY";
	case ENODEV: return "ENODEV";
	default: return strerror(err);
	}
}

#endif
