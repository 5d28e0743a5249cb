/* rvs_stdio.c - a program's standard streams: the rule for a closed one (rvskit(7)), and the
 * reader's warnings, held until the program ends well */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "rvs_tool.h"

static int stdin_closed;

/* A closed descriptor 0-2 gets /dev/null, so that no file opened later takes its number (an
 * output file on 2 would receive the messages); a closed stdout ends the program at once. */
void rvs_tool_check_stdio(void)
{
    static int done;
    if (done)
        return;
    done = 1;
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
            continue;
        int null = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
        if (null >= 0 && null != fd) {
            dup2(null, fd);
            close(null);
        }
        stdin_closed |= fd == 0;
        if (fd == 1)
            rvs_tool_die(RVS_EX_IOERR, "stdout",
                         "closed (send the output to a file, or to /dev/null to discard it)");
    }
}

int rvs_tool_stdin_closed(void)
{
    return stdin_closed;
}

void rvs_tool_need_stdin(const char *path)
{
    if (stdin_closed && strcmp(rvs_tool_input_name(path), "stdin") == 0)
        rvs_tool_die(RVS_EX_NOINPUT, "stdin", "closed");
}

/* Warnings wait for the end of a program that succeeds: one that fails says one line. */
#define MAX_WARNINGS 8
static char warnings[MAX_WARNINGS][320];
static int nwarnings;

static void print_warnings(void)
{
    for (int i = 0; i < nwarnings; i++)
        fputs(warnings[i], stderr);
    nwarnings = 0;
}

void rvs_tool_warn(const char *file, const char *what)
{
    static int registered;
    if (nwarnings == MAX_WARNINGS)
        return;
    if (!registered)
        registered = atexit(print_warnings) == 0;
    snprintf(warnings[nwarnings++], sizeof warnings[0], "%s: %s: %s\n", rvs_tool_prog(), file, what);
}

void rvs_tool_drop_warnings(void)
{
    nwarnings = 0;
}
