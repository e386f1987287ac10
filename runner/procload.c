/*
 * procload.c - other load on the machine from /proc/stat (procload.h).
 */
#include "runner/procload.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "common/error.h"

int pg_proc_cpu_parse(const char *text, size_t len, struct pg_proc_cpu *out)
{
        uint64_t v[8] = { 0 };
        size_t i = 0, n = 0;

        memset(out, 0, sizeof(*out));
        if (len < 4 || memcmp(text, "cpu ", 4) != 0)
                return PG_EINPUT;
        i = 4;
        while (n < 8) {
                uint64_t x = 0;
                size_t digits = 0;

                while (i < len && text[i] == ' ')
                        i++;
                while (i < len && text[i] >= '0' && text[i] <= '9') {
                        uint64_t d = (uint64_t) (text[i] - '0');
                        if (x > (UINT64_MAX - d) / 10)
                                return PG_EINPUT;
                        x = x * 10 + d;
                        i++;
                        digits++;
                }
                if (!digits)
                        break;
                if (i < len && text[i] != ' ' && text[i] != '\n')
                        return PG_EINPUT;
                v[n++] = x;
        }
        if (n < 4)
                return PG_EINPUT;
        /* proc(5): user nice system idle iowait irq softirq steal; guest and
         * guest_nice are already counted in user and nice */
        out->busy = v[0] + v[1] + v[2] + v[5] + v[6];
        out->idle = v[3] + v[4];
        out->steal = v[7];
        out->ok = true;
        return 0;
}

void pg_proc_cpu_read(struct pg_proc_cpu *out)
{
        char buf[256];
        ssize_t got;
        int fd = open("/proc/stat", O_RDONLY | O_CLOEXEC);

        memset(out, 0, sizeof(*out));
        if (fd < 0)
                return;
        got = read(fd, buf, sizeof(buf));
        close(fd);
        if (got > 0)
                (void) pg_proc_cpu_parse(buf, (size_t) got, out);
}

bool pg_proc_load_compute(const struct pg_proc_cpu *before, const struct pg_proc_cpu *after,
                          double own_cpu_ns, uint64_t wall_ns, long clk_tck, struct pg_load *out)
{
        uint64_t busy, idle, steal, total;
        double other;

        memset(out, 0, sizeof(*out));
        if (!before->ok || !after->ok || !wall_ns || clk_tck <= 0 || after->busy < before->busy ||
            after->idle < before->idle || after->steal < before->steal)
                return false;
        busy = after->busy - before->busy;
        idle = after->idle - before->idle;
        steal = after->steal - before->steal;
        total = busy + idle + steal;
        other = ((double) busy * 1e9 / (double) clk_tck - own_cpu_ns) / (double) wall_ns;
        out->present = true;
        out->other_cpus = other > 0 ? other : 0;
        out->steal = total ? (double) steal / (double) total : 0;
        out->window_ns = wall_ns;
        return true;
}
