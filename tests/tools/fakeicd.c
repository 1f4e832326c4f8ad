/*
 * A stand-in OpenCL vendor for tests/shell/icd.sh: an installable client driver (cl_khr_icd)
 * with no platform, which appends "query PID" to $OCL_FAKEICD_MARK whenever it is asked for
 * its platforms (the call that starts a real driver) and "load PID" when it is loaded. The
 * variable begins with OCL_ so that the shell sends it to its workers with the job.
 */
#include <CL/cl.h>
#include <CL/cl_ext.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void mark(const char *what)
{
	const char *path = getenv("OCL_FAKEICD_MARK");
	int fd = path ? open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644) : -1;

	if (fd < 0)
		return;
	dprintf(fd, "%s %d\n", what, (int)getpid());
	close(fd);
}

__attribute__((constructor)) static void loaded(void)
{
	mark("load");
}

CL_API_ENTRY cl_int CL_API_CALL clIcdGetPlatformIDsKHR(cl_uint num_entries,
                                                       cl_platform_id *platforms,
                                                       cl_uint *num_platforms)
{
	(void)num_entries;
	(void)platforms;
	mark("query");
	if (num_platforms)
		*num_platforms = 0;
	return CL_PLATFORM_NOT_FOUND_KHR;
}

/* ocl-icd skips a vendor that does not export it. No platform: never called with one. */
CL_API_ENTRY cl_int CL_API_CALL clGetPlatformInfo(cl_platform_id platform,
                                                  cl_platform_info param_name,
                                                  size_t param_value_size, void *param_value,
                                                  size_t *param_value_size_ret)
{
	(void)platform;
	(void)param_name;
	(void)param_value_size;
	(void)param_value;
	(void)param_value_size_ret;
	return CL_INVALID_PLATFORM;
}

CL_API_ENTRY void *CL_API_CALL clGetExtensionFunctionAddress(const char *name)
{
	return strcmp(name, "clIcdGetPlatformIDsKHR") == 0 ? (void *)clIcdGetPlatformIDsKHR : NULL;
}
