/* The builtin table: adding a command is one new file and one line here. */
#include "cmd/cmd.h"

extern const struct carsh_cmd cmd_run, cmd_set, cmd_unset, cmd_echo, cmd_source, cmd_cd, cmd_time,
        cmd_help, cmd_exit, cmd_devices;

const struct carsh_cmd *const cmd_table[] = {
        &cmd_run,    &cmd_devices, &cmd_time, &cmd_set,  &cmd_unset, &cmd_echo,
        &cmd_source, &cmd_cd,      &cmd_help, &cmd_exit, NULL,
};
