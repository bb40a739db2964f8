/*
 * The subcommands, one file each (cli/<name>.c), after git's builtin.h.
 * Adding one: write cli/foo.c with cmd_foo, declare it here, add a row to
 * the table in cli/rfx.c, and add tests/t_cmd_foo.sh and a Makefile line.
 *
 * A command returns the process exit status: 0 success, 1 run-time
 * failure, 2 usage error (RFX_EXIT_*). It prints its own one-line error.
 */
#ifndef RFX_CLI_CMDS_H
#define RFX_CLI_CMDS_H

#define RFX_EXIT_OK 0
#define RFX_EXIT_FAIL 1
#define RFX_EXIT_USAGE 2

struct rfx_cli {
	const char *command_line; /* the full command line, shell-quoted */
	const char *version;      /* rfx version */
	const char *commit;       /* git commit of the build */
	const char *exe_dir;      /* directory of the rfx binary */
	const char *data_dir;     /* default data directory: <exe_dir>/data in
				   * the source tree, else the installed
				   * <exe_dir>/../share/rfx/data */
};

int cmd_variance(int argc, char **argv, const struct rfx_cli *cli);
int cmd_dump(int argc, char **argv, const struct rfx_cli *cli);
int cmd_pointwise(int argc, char **argv, const struct rfx_cli *cli);
int cmd_uci_classify(int argc, char **argv, const struct rfx_cli *cli);
int cmd_mse_table(int argc, char **argv, const struct rfx_cli *cli);
int cmd_clustered(int argc, char **argv, const struct rfx_cli *cli);
int cmd_optis(int argc, char **argv, const struct rfx_cli *cli);
int cmd_svm_classify(int argc, char **argv, const struct rfx_cli *cli);
int cmd_features(int argc, char **argv, const struct rfx_cli *cli);

#endif
