/*
 * doctor.h - what this machine can measure, check by check, with the exact
 * fix for each gap (`perfgate doctor`). Every check reads the live system:
 * sysfs, /proc/sys/kernel, capabilities, perf_event_open(2) probes of the
 * default event set on the calling process, and ELF files given as binaries.
 */
#ifndef PG_RUNNER_DOCTOR_H
#define PG_RUNNER_DOCTOR_H

#include <stdbool.h>
#include <stddef.h>

enum pg_check_status {
        PG_CHECK_OK = 0, /* fine for measuring */
        PG_CHECK_WARN,   /* works, but measurements are noisier or less complete */
        PG_CHECK_MISSING /* the capability is absent; some metrics cannot be measured */
};

struct pg_check {
        char *name; /* stable identifier: "pmu", "event:cycles", "binary:/path:frame-pointers" */
        enum pg_check_status status;
        char *value;   /* what was found ("2", "performance", "not supported (ENOENT)") */
        char *meaning; /* what it means for measurements */
        char *fix;     /* the exact command or change that fixes it; NULL when status is OK */
};

struct pg_doctor {
        size_t n;
        struct pg_check *checks;
        bool can_measure; /* false: not even software events can be counted */
};

/**
 * Run every machine check, then the per-binary checks for @binaries (@nbin
 * paths; frame pointers judged from function prologues in the code, DWARF
 * and separate debuginfo by build-id and debuglink, stripped, PIE).
 * Fills @d (caller releases with pg_doctor_release()). Never fails: a check
 * that cannot read its source reports that as its value.
 */
void pg_doctor_run(struct pg_doctor *d, char *const *binaries, size_t nbin);

void pg_doctor_release(struct pg_doctor *d);

/** "ok", "warn" or "missing". */
const char *pg_check_status_name(enum pg_check_status s);

/** The language a binary's frame-pointer advice is given in. */
enum pg_fp_lang {
        PG_FP_NATIVE, /* C, C++ and the rest: -fno-omit-frame-pointer */
        PG_FP_RUST,   /* a DWARF compile unit in Rust: -C force-frame-pointers=yes */
        PG_FP_GO,     /* .note.go.buildid or .go.buildinfo: Go keeps frame pointers */
};

/** What pg_elf_frame_pointers() judged, in functions (symbols of type FUNC). */
struct pg_fp_share {
        size_t examined;  /* non-leaf functions judged */
        size_t with_fp;   /* of those, the ones that set up a frame pointer */
        size_t toolchain; /* non-leaf functions left out: in the precompiled Rust standard
                              library, which no RUSTFLAGS rebuild (cargo's or rustc's) changes */
        bool own_only;    /* only functions inside DWARF compile units were judged (the
                              binary has debug info: crt and libraries without it are left out) */
        enum pg_fp_lang lang;
};

/**
 * Judge whether the ELF file @path keeps frame pointers, from its code.
 * Counts the function symbols that call something (on x86-64: a
 * direct-call opcode in their body; leaf functions need no frame and GCC
 * gives them none even with -fno-omit-frame-pointer) and, of those, the
 * ones whose first 48 bytes set up a frame pointer: `push %rbp` then
 * `mov %rsp,%rbp` (GCC/Clang x86-64; not only at the entry, because GCC
 * shrink-wraps the prologue past early exits), `mov %rbp,M(%rsp)` then
 * `lea M(%rsp),%rbp` (Go amd64), `stp x29, x30, [sp, #-N]!` (AArch64).
 * With DWARF, only functions inside compile units count, and those of the
 * precompiled Rust standard library (comp_dir under /rustc/ or
 * /usr/src/rustc-) are counted apart in @out->toolchain.
 * Returns 0 and fills @out (zeroed first); PG_EINPUT when @path cannot be
 * opened or is not ELF (pg_error_last() says which); PG_EIO when libdw or
 * libelf cannot be loaded (pg_libdw_init()).
 */
int pg_elf_frame_pointers(const char *path, struct pg_fp_share *out);

/**
 * pg_elf_frame_pointers() in two numbers: returns @out->examined (0 when
 * none or unreadable) and sets *with_fp.
 */
size_t pg_elf_frame_pointer_share(const char *path, size_t *with_fp);

#endif
