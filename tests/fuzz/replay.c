/* replay.c - main for builds without libFuzzer: run a fuzz target once on every file named, or
 * every file in every folder named (the corpus), so each kept input is a test in every build */
#include <dirent.h>
#include <sys/stat.h>
#define FUZZ_REPLAY_MAIN
#include "fuzz_common.h"

/* Run the target on one file; 0 when it could be read. */
static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    size_t cap = 1 << 16, n = 0, got;
    uint8_t *buf = malloc(cap);
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap)
            buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    if (!buf)
        return -1;
    /* an exact-size copy, so a read past the input is past the allocation */
    uint8_t *exact = malloc(n ? n : 1);
    memcpy(exact, buf, n);
    free(buf);
    LLVMFuzzerTestOneInput(exact, n);
    free(exact);
    return 0;
}

int main(int argc, char **argv)
{
    int files = 0;
    LLVMFuzzerInitialize(&argc, &argv);
    for (int i = 1; i < argc; i++) {
        struct stat sb;
        if (stat(argv[i], &sb) == 0 && S_ISDIR(sb.st_mode)) {
            DIR *d = opendir(argv[i]);
            struct dirent *e;
            while (d && (e = readdir(d))) {
                char path[4096];
                if (e->d_name[0] == '.')
                    continue;
                snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
                if (replay_file(path) == 0)
                    files++;
            }
            if (d)
                closedir(d);
        } else if (replay_file(argv[i]) == 0) {
            files++;
        } else {
            fprintf(stderr, "replay: cannot read %s\n", argv[i]);
            return 2;
        }
    }
    printf("%d inputs replayed without a finding\n", files);
    return files > 0 ? 0 : 1;
}
