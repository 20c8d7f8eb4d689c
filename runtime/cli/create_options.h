/* The options `create` and `run` share: runc's create flags, as one table
 * (runtime/cli/cli_options.h) that fills a struct create_request. */
#ifndef SB_CREATE_OPTIONS_H
#define SB_CREATE_OPTIONS_H

#include "runtime/cli/cli_options.h"

struct create_request;

/* Six options and the entry that ends the table. */
#define CREATE_OPTIONS_LEN 8

/* Fill table with the shared options, each writing into req. */
void create_options_table(struct create_request *req, struct cli_option table[CREATE_OPTIONS_LEN]);

#endif
