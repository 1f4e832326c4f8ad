/* The unit-test runner: every module's suite in one program, so `make check` runs them all. */
#include <stdlib.h>

#include "suites.h"

int main(void)
{
	Suite *(*suites[])(void) = {
	        suite_types,     suite_expr,        suite_params,      suite_csv,
	        suite_cache,     suite_device_pick, suite_parse,       suite_xml,
	        suite_feeder,    suite_options,     suite_kernelcheck, suite_wire,
	        suite_server,    suite_apiwire,     suite_parcopy,     suite_icdtypes,
	        suite_filewatch, suite_envstamp,    suite_vbufstale,   suite_vbufkept,
	        suite_vhome,     suite_includes,    suite_rankwatch,   suite_fexpr,
	        suite_localsize, suite_hazard,      suite_record,
	};
	SRunner *sr = srunner_create(NULL);
	int failed;

	for (size_t i = 0; i < sizeof(suites) / sizeof(suites[0]); i++)
		srunner_add_suite(sr, suites[i]());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
