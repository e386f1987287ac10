/*
 * sample.c - placeholder until the sampling issue lands: reports that
 * profiles are not available, so `perfgate run` stores no profile.
 */
#include "runner/sample.h"

#include "common/error.h"

int pg_sample_profile(const struct pg_sample_opts *o, struct pg_profile *out,
                      struct pg_buf *warnings)
{
        (void) o;
        (void) out;
        (void) warnings;
        return pg_error_set(PG_ENOTSUP, "sampling is not built into this perfgate yet");
}
