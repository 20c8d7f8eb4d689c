#include "runtime/cli/cli_options.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "runtime/cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* getopt_long's values for long options: above every short letter, so
 * that optopt tells a short option (< OPT_HELP) from a long one. */
enum { OPT_HELP = 256, OPT_FIRST };

static bool takes_value(enum cli_kind kind)
{
        return kind == CLI_STRING || kind == CLI_INT || kind == CLI_CALL_ARG;
}

static size_t table_len(const struct cli_option *t)
{
        size_t n = 0;

        while (t != NULL && t[n].name != NULL)
                n++;
        return n;
}

/* The n-th option of the command, counting cmd->options then cmd->more. */
static const struct cli_option *nth(const struct cli_command *cmd, size_t i)
{
        size_t n = table_len(cmd->options);
        return i < n ? &cmd->options[i] : &cmd->more[i - n];
}

static int apply(const struct cli_option *o, const char *value, struct sb_error *err)
{
        char option[64];

        switch (o->kind) {
        case CLI_FLAG:
                *o->to.flag = true;
                return 0;
        case CLI_STRING:
                *o->to.string = value;
                return 0;
        case CLI_INT:
                snprintf(option, sizeof(option), "--%s", o->name);
                return cli_parse_int(option, value, o->max, o->to.integer, err);
        case CLI_CALL:
        case CLI_CALL_ARG:
                return o->call(o, value, err);
        }
        return sb_fail(err, EINVAL, "--%s: unknown option kind", o->name);
}

/* "-b, --bundle DIR", or "    --pid-file FILE" for an option without a
 * letter, so that the long names line up. */
static void option_spec(const struct cli_option *o, char *buf, size_t size)
{
        const char *arg = takes_value(o->kind) ? (o->arg != NULL ? o->arg : "VALUE") : NULL;

        snprintf(buf, size, "%c%c%c --%s%s%s", o->letter ? '-' : ' ', o->letter ? o->letter : ' ',
                 o->letter ? ',' : ' ', o->name, arg ? " " : "", arg ? arg : "");
}

enum { HELP_WIDTH = 79, HELP_MAX_COLUMN = 34 };

/* One option's line: the spec, then its help from column `column`,
 * wrapped at HELP_WIDTH with the same indent. */
static void print_option(FILE *out, const char *spec, const char *help, int column)
{
        int at = fprintf(out, "  %s", spec);
        const char *p = help != NULL ? help : "";

        if (at + 2 > column) {
                fputc('\n', out);
                at = 0;
        }
        while (*p != '\0') {
                size_t word = strcspn(p, " ");
                if (at > column && at + 1 + (int)word > HELP_WIDTH) {
                        fputc('\n', out);
                        at = 0;
                }
                if (at < column)
                        at += fprintf(out, "%*s", column - at, "");
                else
                        at += fprintf(out, " ");
                at += fprintf(out, "%.*s", (int)word, p);
                p += word;
                p += strspn(p, " ");
        }
        fputc('\n', out);
}

void cli_print_help(FILE *out, const struct cli_command *cmd)
{
        size_t n = table_len(cmd->options) + table_len(cmd->more);
        const struct cli_option help = { "help", 'h', CLI_FLAG, .help = "print this help" };
        char spec[128];
        int column = 0;

        for (size_t i = 0; i <= n; i++) {
                option_spec(i < n ? nth(cmd, i) : &help, spec, sizeof(spec));
                if ((int)strlen(spec) + 4 > column)
                        column = (int)strlen(spec) + 4;
        }
        if (column > HELP_MAX_COLUMN)
                column = HELP_MAX_COLUMN;
        fputs(cmd->usage, out);
        fputs("\nOptions:\n", out);
        for (size_t i = 0; i <= n; i++) {
                const struct cli_option *o = i < n ? nth(cmd, i) : &help;
                option_spec(o, spec, sizeof(spec));
                print_option(out, spec, o->help, column);
        }
}

/* getopt_long also takes a unique prefix of a long name ("--bund"): a
 * spelling --help does not list, so refused. token is the argument as
 * written, "--bundle" or "--bundle=DIR". */
static bool spelt_out(const char *token, const char *name)
{
        size_t len = strlen(name);

        return strncmp(token, "--", 2) == 0 && strncmp(token + 2, name, len) == 0 &&
               (token[2 + len] == '\0' || token[2 + len] == '=');
}

/* The argument that named the long option getopt_long just returned: the
 * last one it consumed, or the one before when that was the value. */
static const char *long_token(char **argv, bool value)
{
        if (value && optarg == argv[optind - 1])
                return argv[optind - 2];
        return argv[optind - 1];
}

static int abbreviated(const struct cli_command *cmd, const char *token, struct sb_error *err)
{
        return sb_fail(err, 0, "%s: unknown option \"%.*s\"", cmd->name, (int)strcspn(token, "="),
                       token);
}

/* The option getopt refused, as the user wrote it: "-x" for a short one
 * (it may sit in a cluster like "-dx"), else the argument itself. */
static void refused_name(char **argv, char *buf, size_t size)
{
        if (optopt > 0 && optopt < OPT_HELP)
                snprintf(buf, size, "-%c", optopt);
        else
                snprintf(buf, size, "%s", argv[optind - 1]);
}

int cli_parse(const struct cli_command *cmd, int argc, char **argv, int *next, struct sb_error *err)
{
        size_t n = table_len(cmd->options) + table_len(cmd->more);
        _cleanup_free_ struct option *longopts = calloc(n + 2, sizeof(*longopts));
        /* "+": stop at the first positional argument; ":": tell a missing
         * value (':') from an unknown option ('?'). Each letter and ':'. */
        _cleanup_free_ char *shortopts = calloc(2 * n + 5, 1);
        char name[256];
        int c;

        if (longopts == NULL || shortopts == NULL)
                return sb_fail(err, ENOMEM, "%s: options", cmd->name);
        strcpy(shortopts, "+:h");
        for (size_t i = 0; i < n; i++) {
                const struct cli_option *o = nth(cmd, i);
                longopts[i] =
                        (struct option){ o->name,
                                         takes_value(o->kind) ? required_argument : no_argument,
                                         NULL, OPT_FIRST + (int)i };
                if (o->letter != 0) {
                        size_t len = strlen(shortopts);
                        shortopts[len] = o->letter;
                        if (takes_value(o->kind))
                                shortopts[len + 1] = ':';
                }
        }
        longopts[n] = (struct option){ "help", no_argument, NULL, OPT_HELP };

        /* optind 0 makes glibc reinitialise its state: main's getopt pass
         * over the global options came first. */
        optind = 0;
        opterr = 0;
        while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
                const struct cli_option *o = NULL;

                if (c == OPT_HELP && !spelt_out(long_token(argv, false), "help"))
                        return abbreviated(cmd, long_token(argv, false), err);
                if (c == 'h' || c == OPT_HELP) {
                        cli_print_help(stdout, cmd);
                        return 1;
                }
                if (c == ':') {
                        refused_name(argv, name, sizeof(name));
                        return sb_fail(err, 0, "%s: option \"%s\" needs a value", cmd->name, name);
                }
                if (c >= OPT_FIRST && c < OPT_FIRST + (int)n) {
                        o = nth(cmd, (size_t)(c - OPT_FIRST));
                        const char *token = long_token(argv, takes_value(o->kind));
                        if (!spelt_out(token, o->name))
                                return abbreviated(cmd, token, err);
                } else {
                        for (size_t i = 0; i < n && c != '?'; i++)
                                if (nth(cmd, i)->letter == c)
                                        o = nth(cmd, i);
                }
                if (o == NULL) {
                        refused_name(argv, name, sizeof(name));
                        return sb_fail(err, 0, "%s: unknown option \"%s\"", cmd->name, name);
                }
                if (apply(o, optarg, err) < 0)
                        return -1;
        }
        *next = optind;
        return 0;
}
