/* The builtin table: adding a command is one new file and one line here. */
#include "cmd/cmd.h"

extern const struct carsh_cmd cmd_run, cmd_set, cmd_unset, cmd_echo, cmd_source, cmd_cd, cmd_time,
        cmd_help, cmd_exit, cmd_devices, cmd_virtbuf, cmd_jobs, cmd_sync, cmd_repeat, cmd_check,
        cmd_peast, cmd_graph, cmd_pack, cmd_partition, cmd_pipeline, cmd_server;

const struct carsh_cmd *const cmd_table[] = {
        &cmd_run,    &cmd_virtbuf, &cmd_sync,  &cmd_jobs, &cmd_repeat,    &cmd_devices,
        &cmd_time,   &cmd_set,     &cmd_unset, &cmd_echo, &cmd_source,    &cmd_cd,
        &cmd_check,  &cmd_peast,   &cmd_graph, &cmd_pack, &cmd_partition, &cmd_pipeline,
        &cmd_server, &cmd_help,    &cmd_exit,  NULL,
};
