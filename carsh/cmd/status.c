/* Error values with a builtin's exit status: `return cmd_error(e, 2, "usage: ...");`. */
#include <stdarg.h>

#include "cmd/cmd.h"

int cmd_error(struct cs_err *e, int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_vset(e, fmt, ap);
	va_end(ap);
	return status;
}

int cmd_prefix(struct cs_err *e, int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_vprefix(e, fmt, ap);
	va_end(ap);
	return status;
}

int cmd_errno(struct cs_err *e, int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_verrno(e, fmt, ap);
	va_end(ap);
	return status;
}
