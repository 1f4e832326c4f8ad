/* One Check suite per module; check_main.c runs them all. */
#ifndef CARSH_TESTS_SUITES_H
#define CARSH_TESTS_SUITES_H

#include <check.h>

Suite *suite_types(void);
Suite *suite_expr(void);
Suite *suite_params(void);
Suite *suite_csv(void);
Suite *suite_cache(void);
Suite *suite_device_pick(void);
Suite *suite_parse(void);
Suite *suite_xml(void);
Suite *suite_feeder(void);
Suite *suite_options(void);
Suite *suite_kernelcheck(void);
Suite *suite_wire(void);
Suite *suite_server(void);
Suite *suite_apiwire(void);
Suite *suite_parcopy(void);
Suite *suite_icdtypes(void);
Suite *suite_filewatch(void);
Suite *suite_envstamp(void);
Suite *suite_vbufstale(void);
Suite *suite_vbufkept(void);
Suite *suite_vhome(void);
Suite *suite_hazard(void);
Suite *suite_includes(void);
Suite *suite_rankwatch(void);
Suite *suite_fexpr(void);
Suite *suite_localsize(void);
Suite *suite_record(void);

#endif
