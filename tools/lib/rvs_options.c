/* rvs_options.c - command-line seams every program shares: what a refused option was, --threads */
#include <ctype.h>
#include <getopt.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rvs_tool.h"

/* getopt_long refused argv[optind - 1]. missing: 1 it lacks its value, 0 it does not, -1 not
 * known (getopt_long without a leading ':' says '?' for both): say which it was. */
static noreturn void refuse(char **argv, int missing)
{
    const char *arg = argv[optind - 1], *next = argv[optind];
    /* a short option inside a bundle ("-zt") leaves optind on the bundle itself */
    int in_bundle = optopt > 0 && optopt < 256 && next && next[0] == '-' && next[1] && next[1] != '-' &&
                    memchr(next + 1, optopt, strlen(next) - 2) != NULL;
    if (!in_bundle && strncmp(arg, "--", 2) == 0) {
        int n = (int)strcspn(arg, "=");
        if (optopt == 0)
            rvs_tool_usage("unknown option '%.*s'", n, arg);
        if (arg[n] == '=')
            rvs_tool_usage("option '%.*s' takes no value", n, arg);
        rvs_tool_usage("option '%s' needs a value", arg);
    }
    if (missing == 1)
        rvs_tool_usage("option '-%c' needs a value", optopt);
    /* a missing value leaves nothing after the option; anything after it means unknown */
    if (missing == 0 || in_bundle || next != NULL || arg[strlen(arg) - 1] != optopt)
        rvs_tool_usage("unknown option '-%c'", optopt);
    rvs_tool_usage("option '-%c' is unknown or needs a value", optopt);
}

/* Usage error for the option getopt_long just refused. */
void rvs_tool_bad_option(char **argv)
{
    refuse(argv, -1);
}

/* getopt_long that dies with the right message on a refused option. */
int rvs_tool_getopt(int argc, char **argv, const char *optstring, const struct option *longopts)
{
    char colon[128];
    snprintf(colon, sizeof colon, ":%s", optstring);
    int c = getopt_long(argc, argv, colon, longopts, NULL);
    if (c == ':' || c == '?')
        refuse(argv, c == ':');
    return c;
}

/* --threads N: OpenMP threads for the rest of the program. */
void rvs_tool_set_threads(const char *value)
{
    rvs_tool_fit_threads("--threads", (int)rvs_tool_parse_int("--threads", value, 1, 1 << 16));
}

/* BYTES with an optional K, M or G suffix (powers of 1024, "iB" or "B" may follow); dies on
 * anything else. */
size_t rvs_tool_parse_bytes(const char *opt, const char *s)
{
    char *end;
    double v = strtod(s, &end);
    double mult = 1;
    if (*end) {
        switch (toupper((unsigned char)*end)) {
        case 'K': mult = 1024.0; break;
        case 'M': mult = 1024.0 * 1024; break;
        case 'G': mult = 1024.0 * 1024 * 1024; break;
        default: mult = 0;
        }
        end++;
        if (*end == 'i' || *end == 'I')
            end++;
        if (*end == 'b' || *end == 'B')
            end++;
    }
    if (end == s || *end || mult == 0 || !(v >= 1) || v * mult > 1e18)
        rvs_tool_usage("%s: '%s' is not a size in bytes (like 4096, 64M, 2G)", opt, s);
    return (size_t)(v * mult);
}

/* A format option's value: a format's id, or 0 for "auto"; anything else is a usage error. */
int rvs_tool_parse_format(const char *opt, const char *s)
{
    const rvs_format_ops *ops;
    if (strcmp(s, "auto") == 0)
        return 0;
    if (!(ops = rvs_format_by_name(s)))
        rvs_tool_usage("%s: unknown format '%s' (auto or one of %s)", opt, s, rvs_format_names());
    return (int)ops->id;
}
