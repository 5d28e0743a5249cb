/* rvs_json.c - a small JSON writer for the programs' machine-readable reports */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "rvs_json.h"

/* Write s as a JSON string literal. */
static void put_string(FILE *f, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    fputc('"', f);
    while (*p) {
        unsigned char c = *p;
        int n = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
        int ok = n > 0 && !(n == 2 && c < 0xc2);
        for (int i = 1; ok && i < n; i++)
            ok = (p[i] & 0xc0) == 0x80;
        if (!ok) { /* not UTF-8: the replacement character, one byte consumed */
            fputs("\xef\xbf\xbd", f);
            p++;
        } else if (c == '"' || c == '\\') {
            fputc('\\', f);
            fputc(c, f);
            p++;
        } else if (c < 0x20) {
            const char *esc = c == '\n' ? "\\n" : c == '\t' ? "\\t" : c == '\r' ? "\\r" : NULL;
            if (esc)
                fputs(esc, f);
            else
                fprintf(f, "\\u%04x", c);
            p++;
        } else {
            fwrite(p, 1, (size_t)n, f);
            p += n;
        }
    }
    fputc('"', f);
}

/* The separator and key before a value at the current level. */
static void lead(rvs_json *j, const char *key)
{
    if (j->count[j->depth]++)
        fputc(',', j->f);
    if (key) {
        put_string(j->f, key);
        fputc(':', j->f);
    }
}

/* Start the report's object on f. */
void rvs_json_begin(rvs_json *j, FILE *f)
{
    memset(j, 0, sizeof *j);
    j->f = f;
    j->close[0] = '}';
    fputc('{', f);
}

/* Open a nested object or array. */
static void open_level(rvs_json *j, const char *key, char open, char close)
{
    if (j->skipped || j->depth + 1 >= RVS_JSON_DEPTH) {
        j->skipped++;
        return;
    }
    lead(j, key);
    fputc(open, j->f);
    j->depth++;
    j->count[j->depth] = 0;
    j->close[j->depth] = close;
}

void rvs_json_object(rvs_json *j, const char *key)
{
    open_level(j, key, '{', '}');
}
void rvs_json_array(rvs_json *j, const char *key)
{
    open_level(j, key, '[', ']');
}

/* Close the innermost object or array. */
void rvs_json_end(rvs_json *j)
{
    if (j->skipped) {
        j->skipped--;
        return;
    }
    if (j->depth > 0)
        fputc(j->close[j->depth--], j->f);
}

/* Close every level, end the line, flush. */
int rvs_json_finish(rvs_json *j)
{
    j->skipped = 0;
    while (j->depth > 0)
        rvs_json_end(j);
    fputs("}\n", j->f);
    return fflush(j->f) != 0 || ferror(j->f) ? -1 : 0;
}

/* Values. */
void rvs_json_str(rvs_json *j, const char *key, const char *s)
{
    lead(j, key);
    if (s)
        put_string(j->f, s);
    else
        fputs("null", j->f);
}

void rvs_json_int(rvs_json *j, const char *key, int64_t v)
{
    lead(j, key);
    fprintf(j->f, "%lld", (long long)v);
}

/* Finite numbers with the fewest digits (up to 17) that read back exactly; others are null. */
void rvs_json_num(rvs_json *j, const char *key, double v)
{
    char buf[32];
    lead(j, key);
    if (!isfinite(v)) {
        fputs("null", j->f);
        return;
    }
    int d = 15;
    snprintf(buf, sizeof buf, "%.*g", d, v);
    while (d < 17 && strtod(buf, NULL) != v)
        snprintf(buf, sizeof buf, "%.*g", ++d, v);
    fputs(buf, j->f);
}

void rvs_json_bool(rvs_json *j, const char *key, int v)
{
    lead(j, key);
    fputs(v ? "true" : "false", j->f);
}

void rvs_json_null(rvs_json *j, const char *key)
{
    lead(j, key);
    fputs("null", j->f);
}
