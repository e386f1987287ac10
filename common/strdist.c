/*
 * strdist.c - Levenshtein distance with a cap (see strdist.h): the classic
 * dynamic programme over one row, stopped once every entry of a row is above
 * the cap (the distance can only grow from there).
 */
#include "common/strdist.h"

#include <stdlib.h>
#include <string.h>

#include "common/buf.h"

size_t pg_edit_distance(const char *a, const char *b, size_t cap)
{
        size_t la = strlen(a), lb = strlen(b), *row, d;

        if ((la > lb ? la - lb : lb - la) > cap)
                return cap + 1;
        row = pg_xcalloc(lb + 1, sizeof(*row));
        for (size_t j = 0; j <= lb; j++)
                row[j] = j;
        for (size_t i = 1; i <= la; i++) {
                size_t diag = row[0], lowest;

                row[0] = i;
                lowest = row[0];
                for (size_t j = 1; j <= lb; j++) {
                        size_t up = row[j], v = diag + (a[i - 1] != b[j - 1]);

                        if (up + 1 < v)
                                v = up + 1;
                        if (row[j - 1] + 1 < v)
                                v = row[j - 1] + 1;
                        diag = up;
                        row[j] = v;
                        if (v < lowest)
                                lowest = v;
                }
                if (lowest > cap) {
                        free(row);
                        return cap + 1;
                }
        }
        d = row[lb];
        free(row);
        return d > cap ? cap + 1 : d;
}
