/*
 * host.c - the host fingerprint (see host.h). Every probe tolerates a
 * missing or unreadable file; strings it stores are UTF-8 sanitised.
 */
#include "runner/host.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/json.h"

static char *pg_clean(const char *s, size_t len)
{
        struct pg_buf b = PG_BUF_INIT;
        while (len && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\n'))
                len--;
        while (len && (*s == ' ' || *s == '\t')) {
                s++;
                len--;
        }
        pg_utf8_sanitize(&b, s, len);
        if (!b.len)
                pg_buf_puts(&b, "unknown");
        return pg_buf_detach(&b, NULL);
}

/* Value of the first "key : value" line of /proc/cpuinfo whose key is @key. */
static char *pg_cpuinfo_field(const char *text, const char *key)
{
        size_t klen = strlen(key);
        for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
                const char *colon;
                size_t eol = strcspn(p, "\n");
                if (strncmp(p, key, klen) != 0 ||
                    (p[klen] != ' ' && p[klen] != '\t' && p[klen] != ':'))
                        continue;
                colon = memchr(p, ':', eol);
                if (!colon)
                        continue;
                return pg_clean(colon + 1, (size_t) (p + eol - colon - 1));
        }
        return NULL;
}

static bool pg_cpuinfo_has_flag(const char *text, const char *flag)
{
        char *flags = pg_cpuinfo_field(text, "flags");
        bool found = false;
        if (flags) {
                size_t fl = strlen(flag);
                for (char *p = flags; (p = strstr(p, flag)) != NULL; p += fl) {
                        if ((p == flags || p[-1] == ' ') && (p[fl] == ' ' || p[fl] == '\0')) {
                                found = true;
                                break;
                        }
                }
        }
        free(flags);
        return found;
}

static int pg_str_cmp(const void *a, const void *b)
{
        return strcmp(*(char *const *) a, *(char *const *) b);
}

static void pg_host_pmus(struct pg_host *h)
{
        const char *root = "/sys/bus/event_source/devices";
        DIR *d = opendir(root);
        struct dirent *de;

        if (!d)
                return;
        while ((de = readdir(d)) != NULL) {
                char *cpus;
                struct stat st;
                bool core;

                if (de->d_name[0] == '.')
                        continue;
                cpus = pg_xasprintf("%s/%s/cpus", root, de->d_name);
                core = strcmp(de->d_name, "cpu") == 0 || stat(cpus, &st) == 0;
                free(cpus);
                if (!core)
                        continue;
                h->pmu = pg_xreallocarray(h->pmu, h->npmu + 1, sizeof(char *));
                h->pmu[h->npmu++] = pg_clean(de->d_name, strlen(de->d_name));
        }
        closedir(d);
        if (h->npmu)
                qsort(h->pmu, h->npmu, sizeof(char *), pg_str_cmp);
}

void pg_host_probe(struct pg_host *h)
{
        struct pg_buf cpuinfo = PG_BUF_INIT, paranoid = PG_BUF_INIT;
        struct utsname u;
        long n;

        memset(h, 0, sizeof(*h));
        if (pg_read_file("/proc/cpuinfo", &cpuinfo) == 0) {
                h->cpu = pg_cpuinfo_field(cpuinfo.ptr, "model name");
                if (!h->cpu)
                        h->cpu = pg_cpuinfo_field(cpuinfo.ptr, "Hardware");
                if (!h->cpu)
                        h->cpu = pg_cpuinfo_field(cpuinfo.ptr, "CPU part");
                h->virtualized = pg_cpuinfo_has_flag(cpuinfo.ptr, "hypervisor");
        }
        if (!h->cpu)
                h->cpu = pg_xstrdup("unknown");
        if (access("/sys/hypervisor/type", F_OK) == 0)
                h->virtualized = true;
        n = sysconf(_SC_NPROCESSORS_ONLN);
        h->cpus = n > 0 ? (uint64_t) n : 1;
        if (uname(&u) == 0) {
                h->kernel = pg_clean(u.release, strlen(u.release));
                h->arch = pg_clean(u.machine, strlen(u.machine));
        } else {
                h->kernel = pg_xstrdup("unknown");
                h->arch = pg_xstrdup("unknown");
        }
        pg_host_pmus(h);
        h->perf_event_paranoid = -9;
        if (pg_read_file("/proc/sys/kernel/perf_event_paranoid", &paranoid) == 0 && paranoid.len)
                h->perf_event_paranoid = atoi(paranoid.ptr);
        pg_buf_release(&cpuinfo);
        pg_buf_release(&paranoid);
}

void pg_host_release(struct pg_host *h)
{
        free(h->cpu);
        free(h->kernel);
        free(h->arch);
        for (size_t i = 0; i < h->npmu; i++)
                free(h->pmu[i]);
        free(h->pmu);
        memset(h, 0, sizeof(*h));
}

void pg_host_copy(struct pg_host *dst, const struct pg_host *src)
{
        *dst = *src;
        dst->cpu = src->cpu ? pg_xstrdup(src->cpu) : NULL;
        dst->kernel = src->kernel ? pg_xstrdup(src->kernel) : NULL;
        dst->arch = src->arch ? pg_xstrdup(src->arch) : NULL;
        dst->pmu = src->npmu ? pg_xcalloc(src->npmu, sizeof(char *)) : NULL;
        for (size_t i = 0; i < src->npmu; i++)
                dst->pmu[i] = pg_xstrdup(src->pmu[i]);
}

bool pg_host_privileged(void)
{
        struct pg_buf st = PG_BUF_INIT;
        unsigned long long caps = 0;
        const char *p;

        if (pg_read_file("/proc/self/status", &st) == 0 && (p = strstr(st.ptr, "CapEff:")) != NULL)
                caps = strtoull(p + 7, NULL, 16);
        pg_buf_release(&st);
        return (caps & (1ull << 38)) || (caps & (1ull << 21));
}
