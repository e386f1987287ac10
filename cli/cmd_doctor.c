/*
 * cmd_doctor.c - `perfgate doctor [BINARY...] [--json]`: one line per check
 * (status, what was found, what it means, the fix), or the same as JSON.
 * Exit status 0 unless this machine cannot measure at all (3).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/json.h"
#include "runner/doctor.h"

const char pg_usage_doctor[] =
    "usage: perfgate doctor [BINARY...] [--json]\n"
    "\n"
    "Check what this machine can measure and print the exact fix for each gap:\n"
    "the core PMU and every event of the default set (supported, not supported,\n"
    "permission), virtualization, kernel.perf_event_paranoid and privileges,\n"
    "kernel.kptr_restrict, perf_event_max_sample_rate, perf_event_max_stack,\n"
    "nmi_watchdog, perf_event_mlock_kb, CPU governor, boost, SMT, isolated CPUs,\n"
    "load, and valgrind for --counters simulated. For each BINARY: symbols,\n"
    "debuginfo (in the file, by build-id, by debuglink), frame pointers (judged\n"
    "from function prologues) and PIE.\n"
    "\n"
    "options:\n"
    "  --json        print {\"can_measure\": bool, \"checks\": [...]} as JSON\n"
    "  -h, --help    show this help\n"
    "\n"
    "exit status: 0 the machine can measure (warnings included), 2 usage error,\n"
    "3 not even software events can be counted\n";

static void pg_print_json(const struct pg_doctor *d)
{
        cJSON *root = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(root, "checks");
        struct pg_buf b = PG_BUF_INIT;

        cJSON_AddBoolToObject(root, "can_measure", d->can_measure);
        for (size_t i = 0; i < d->n; i++) {
                const struct pg_check *c = &d->checks[i];
                cJSON *o = cJSON_CreateObject();
                cJSON_AddStringToObject(o, "name", c->name);
                cJSON_AddStringToObject(o, "status", pg_check_status_name(c->status));
                cJSON_AddStringToObject(o, "value", c->value);
                cJSON_AddStringToObject(o, "meaning", c->meaning);
                if (c->fix)
                        cJSON_AddStringToObject(o, "fix", c->fix);
                else
                        cJSON_AddNullToObject(o, "fix");
                cJSON_AddItemToArray(arr, o);
        }
        if (pg_json_write(&b, root) == 0)
                fputs(b.ptr, stdout);
        pg_buf_release(&b);
        cJSON_Delete(root);
}

/* Length of the kind of check @name ("event" of "event:cycles"), 0 when it has none. */
static size_t pg_check_kind(const char *name)
{
        const char *colon = strchr(name, ':');
        return colon ? (size_t) (colon - name) : 0;
}

/* Whether @b says what @a says about another thing of the same kind (a
 * gap, not an ok): the text prints them as one block. */
static bool pg_check_same(const struct pg_check *a, const struct pg_check *b)
{
        size_t k = pg_check_kind(a->name);

        return a->status != PG_CHECK_OK && k && k == pg_check_kind(b->name) &&
               strncmp(a->name, b->name, k) == 0 && a->status == b->status &&
               strcmp(a->value, b->value) == 0 && strcmp(a->meaning, b->meaning) == 0 &&
               (a->fix == b->fix || (a->fix && b->fix && strcmp(a->fix, b->fix) == 0));
}

static void pg_print_text(const struct pg_doctor *d, bool color)
{
        bool *shown = pg_xcalloc(d->n + 1, sizeof(bool));

        for (size_t i = 0; i < d->n; i++) {
                const struct pg_check *c = &d->checks[i];
                const char *st = pg_check_status_name(c->status);
                const char *on = "", *off = "";
                struct pg_buf names = PG_BUF_INIT;
                size_t same = 1;

                if (shown[i])
                        continue;
                if (color) {
                        on = c->status == PG_CHECK_OK     ? "\033[32m"
                             : c->status == PG_CHECK_WARN ? "\033[33m"
                                                          : "\033[31m";
                        off = "\033[0m";
                }
                /* identical gaps of one kind (16 hardware events without a
                 * PMU) are one block listing them: "event:cycles, instructions" */
                pg_buf_printf(&names, "%s", c->name);
                for (size_t j = i + 1; j < d->n; j++)
                        if (!shown[j] && pg_check_same(c, &d->checks[j])) {
                                shown[j] = true;
                                pg_buf_printf(&names, ", %s",
                                              d->checks[j].name + pg_check_kind(c->name) + 1);
                                same++;
                        }
                if (same > 1)
                        pg_buf_printf(&names, " (%zu)", same);
                printf("%s%-7s%s %s: %s\n", on, st, off, names.ptr, c->value);
                pg_buf_release(&names);
                printf("        %s\n", c->meaning);
                if (c->fix)
                        printf("        fix: %s\n", c->fix);
        }
        free(shown);
        printf("\n%s\n", d->can_measure
                             ? "perfgate can measure on this machine (see warnings above)"
                             : "perfgate cannot count even software events here");
}

int cmd_doctor(int argc, char **argv)
{
        static const struct option opts[] = { { "json", no_argument, NULL, 'j' },
                                              { "help", no_argument, NULL, 'h' },
                                              { NULL, 0, NULL, 0 } };
        struct pg_doctor d;
        bool json = false;
        int c;

        optind = 1;
        while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
                switch (c) {
                case 'j':
                        json = true;
                        break;
                case 'h':
                        fputs(pg_usage_doctor, stdout);
                        return 0;
                default:
                        return pg_cli_usage_error("doctor", "unknown option");
                }
        }
        pg_doctor_run(&d, argv + optind, (size_t) (argc - optind));
        if (json)
                pg_print_json(&d);
        else
                pg_print_text(&d, pg_cli_color(STDOUT_FILENO));
        c = d.can_measure ? PG_EXIT_OK : PG_EXIT_MEASURE;
        pg_doctor_release(&d);
        return c;
}
