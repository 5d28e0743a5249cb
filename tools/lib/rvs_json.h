/* rvs_json.h - a small JSON writer for the programs' machine-readable reports */
#ifndef RVS_JSON_H
#define RVS_JSON_H

#include <stdint.h>
#include <stdio.h>

#define RVS_JSON_DEPTH 16

/* One report: a single JSON object on one line. Keys are given with each value inside objects
 * and are NULL inside arrays. Strings are escaped (control characters, quotes, backslashes;
 * invalid UTF-8 bytes become U+FFFD), numbers that are not finite become null, so the output
 * always parses. Nesting deeper than RVS_JSON_DEPTH is a programming error (ignored). */
typedef struct {
    FILE *f;
    int depth;
    int count[RVS_JSON_DEPTH];  /* values written so far at each level */
    char close[RVS_JSON_DEPTH]; /* '}' or ']': how each open level ends */
    int skipped;                /* levels refused for depth, closed by rvs_json_end as no-ops */
} rvs_json;

/* Start the report's object on f. */
void rvs_json_begin(rvs_json *j, FILE *f);
/* Open an object or an array as the value of key. */
void rvs_json_object(rvs_json *j, const char *key);
void rvs_json_array(rvs_json *j, const char *key);
/* Close the innermost object or array. */
void rvs_json_end(rvs_json *j);
/* Values: a string (NULL writes null), an integer, a number, a boolean, null. */
void rvs_json_str(rvs_json *j, const char *key, const char *s);
void rvs_json_int(rvs_json *j, const char *key, int64_t v);
void rvs_json_num(rvs_json *j, const char *key, double v);
void rvs_json_bool(rvs_json *j, const char *key, int v);
void rvs_json_null(rvs_json *j, const char *key);
/* Close every open level, end the line and flush: 0, or -1 when writing failed. */
int rvs_json_finish(rvs_json *j);

#endif
