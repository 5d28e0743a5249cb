/* peak_rss.c - run one test and record its peak memory: `peak_rss NAME FILE CMD [ARG...]` runs
 * CMD, appends "NAME KIB" to FILE (the largest resident set of CMD or of any process it waited
 * for, from wait4) and exits as CMD did; a signal that ends CMD ends peak_rss the same way. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static pid_t child;

/* ctest's timeout and ^C reach the test, not only its launcher */
static void pass_on(int sig)
{
    if (child > 0)
        kill(child, sig);
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: peak_rss NAME FILE CMD [ARG...]\n");
        return 64;
    }
    signal(SIGTERM, pass_on);
    signal(SIGINT, pass_on);
    signal(SIGHUP, pass_on);
    child = fork();
    if (child < 0) {
        perror("peak_rss: fork");
        return 70;
    }
    if (child == 0) {
        execvp(argv[3], argv + 3);
        fprintf(stderr, "peak_rss: %s: %s\n", argv[3], strerror(errno));
        _exit(127);
    }
    int status;
    struct rusage ru;
    while (wait4(child, &status, 0, &ru) < 0)
        if (errno != EINTR) {
            perror("peak_rss: wait4");
            return 70;
        }
    FILE *f = fopen(argv[2], "a");
    if (f) {
        fprintf(f, "%s %ld\n", argv[1], ru.ru_maxrss);
        fclose(f);
    }
    if (WIFSIGNALED(status)) {
        signal(WTERMSIG(status), SIG_DFL);
        raise(WTERMSIG(status));
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 70;
}
