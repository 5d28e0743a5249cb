/* test_progress.c - progress on a terminal never runs backwards: a compressed read reports its
 * input bytes, then the text it parses against another total (issue 13: a .mtx.gz showed 100%,
 * 37%, 87%). stderr is put on a pseudo-terminal and what the programs' layer writes there is
 * read back. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "rvs_test.h"
#include "rvs_tool.h"

/* Everything written to the terminal so far (non-blocking reads of the master side). */
static size_t drain(int master, char *buf, size_t cap, size_t used)
{
    ssize_t n;
    while (used + 1 < cap && (n = read(master, buf + used, cap - 1 - used)) > 0)
        used += (size_t)n;
    buf[used] = 0;
    return used;
}

/* Check that the "what NN%" figures of text never fall within a phase, that the phases come
 * in the order reading, parsing, and that want[] (a "|"-joined list) is what was shown. */
static void check_shown(const char *text, const char *want)
{
    char shown[512] = "", word[16];
    int last = -1, phase = 0, pct;
    for (const char *p = strstr(text, "pmf: "); p; p = strstr(p + 1, "pmf: ")) {
        if (sscanf(p, "pmf: %15s %d%%", word, &pct) != 2)
            continue;
        int ph = strcmp(word, "parsing") == 0;
        CHECKF(ph >= phase, "phase '%s' after parsing", word);
        if (ph != phase)
            last = -1;
        phase = ph;
        CHECKF(pct > last && pct <= 100, "%s %d%% after %d%%", word, pct, last);
        last = pct;
        snprintf(shown + strlen(shown), sizeof shown - strlen(shown), "%s%s %d", shown[0] ? "|" : "", word, pct);
    }
    CHECKF(strcmp(shown, want) == 0, "shown '%s', want '%s'", shown, want);
}

int main(void)
{
    int master = posix_openpt(O_RDWR | O_NOCTTY);
    if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0) {
        printf("no pseudo-terminal: skipped\n");
        return RVS_TEST_SKIP;
    }
    int slave = open(ptsname(master), O_RDWR | O_NOCTTY);
    CHECK(slave >= 0);
    fcntl(master, F_SETFL, O_NONBLOCK);
    int saved = dup(2);
    dup2(slave, 2);
    rvs_tool_init("pmf");
    char buf[8192];
    size_t used = 0;

    /* a .gz read: input bytes, then the text; the first half second shows nothing */
    rvs_tool_progress(NULL, 1, 1000);
    usleep(600000);
    rvs_tool_progress(NULL, 500, 1000);
    rvs_tool_progress(NULL, 300, 1000); /* out of order: not shown */
    rvs_tool_progress(NULL, 1000, 1000);
    rvs_tool_progress(NULL, 3700, 10000); /* the parse phase, against the text's length */
    rvs_tool_progress(NULL, 8700, 10000);
    rvs_tool_progress(NULL, 8700, 10000); /* no change: not shown again */
    rvs_tool_progress(NULL, 10000, 10000);
    fflush(stderr);
    usleep(50000);
    used = drain(master, buf, sizeof buf, used);
    check_shown(buf, "reading 50|reading 100|parsing 37|parsing 87|parsing 100");

    /* a total that changes before 100% does not start a phase, nor fall back */
    rvs_tool_progress_done();
    used = 0;
    rvs_tool_progress(NULL, 400, 1000);
    rvs_tool_progress(NULL, 200, 800);
    rvs_tool_progress(NULL, 700, 800);
    fflush(stderr);
    usleep(50000);
    used = drain(master, buf, sizeof buf, used);
    check_shown(buf, "reading 40|reading 87");
    rvs_tool_progress_done();

    dup2(saved, 2);
    close(slave);
    close(master);
    return rvs_test_done();
}
