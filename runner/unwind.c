/*
 * unwind.c - libdwfl unwinding from perf's user registers and stack copy
 * (see unwind.h). Register mapping: DWARF x86-64 numbers 0..16 are rax rdx
 * rcx rbx rsi rdi rbp rsp r8..r15 rip (System V psABI, Figure 3.36); perf's
 * PERF_REG_X86_* order is AX BX CX DX SI DI BP SP IP FLAGS CS SS DS ES FS GS
 * R8..R15, and the sampled registers are packed in mask-bit order.
 */
#include "runner/unwind.h"
#include "runner/libdw.h"

#include <string.h>

uint64_t pg_unwind_reg(const struct pg_perf_sample *s, uint64_t regs_mask, unsigned perf_index)
{
        uint32_t slot;

        if (perf_index >= 64 || !(regs_mask & (1ULL << perf_index)) || s->abi == 0)
                return 0;
        slot = (uint32_t) __builtin_popcountll(regs_mask & ((1ULL << perf_index) - 1));
        if (slot >= s->nregs)
                return 0;
        return pg_perf_reg(s, slot);
}

static pid_t pg_next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
        (void) dwfl;
        (void) arg;
        (void) thread_argp;
        return 0;
}

static bool pg_get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
        (void) dwfl;
        (void) tid;
        *thread_argp = arg;
        return true;
}

static bool pg_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
        struct pg_unwinder *u = arg;
        const struct pg_perf_sample *s = u->sample;
        uint64_t off;

        (void) dwfl;
        if (s == NULL || addr < u->sp)
                return false;
        off = addr - u->sp;
        if (off > s->stack_dyn_size || s->stack_dyn_size - off < 8)
                return false;
        memcpy(result, s->stack + off, 8);
        return true;
}

static bool pg_set_initial_registers(Dwfl_Thread *thread, void *arg)
{
        static const unsigned perf_of_dwarf[17] = { 0,  3,  2,  1,  4,  5,  6,  7, 16,
                                                    17, 18, 19, 20, 21, 22, 23, 8 };
        struct pg_unwinder *u = arg;
        Dwarf_Word r[17];

        for (int i = 0; i < 17; i++)
                r[i] = pg_unwind_reg(u->sample, u->regs_mask, perf_of_dwarf[i]);
        return dwfl_thread_state_registers(thread, 0, 17, r);
}

static const Dwfl_Thread_Callbacks pg_unwind_callbacks = {
        .next_thread = pg_next_thread,
        .get_thread = pg_get_thread,
        .memory_read = pg_memory_read,
        .set_initial_registers = pg_set_initial_registers,
};

int pg_unwind_attach(struct pg_unwinder *u, Dwfl *dwfl, pid_t pid, uint64_t regs_mask)
{
        memset(u, 0, sizeof(*u));
        u->regs_mask = regs_mask;
        if (!dwfl_attach_state(dwfl, NULL, pid ? pid : 1, &pg_unwind_callbacks, u))
                return -1;
        u->attached = true;
        return 0;
}

struct pg_unwind_out {
        uint64_t *pcs;
        size_t n, max;
};

static int pg_frame_cb(Dwfl_Frame *f, void *arg)
{
        struct pg_unwind_out *o = arg;
        Dwarf_Addr pc;
        bool activation = false;

        if (!dwfl_frame_pc(f, &pc, &activation) || pc == 0)
                return DWARF_CB_ABORT;
        o->pcs[o->n++] = activation ? pc : pc - 1;
        return o->n < o->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

size_t pg_unwind_sample(struct pg_unwinder *u, Dwfl *dwfl, pid_t tid,
                        const struct pg_perf_sample *s, uint64_t *pcs, size_t max)
{
        struct pg_unwind_out o = { pcs, 0, max };

        if (!u->attached || s->abi == 0 || max == 0)
                return 0;
        u->sample = s;
        u->sp = pg_unwind_reg(s, u->regs_mask, 7);
        /* errors end the walk: keep what was unwound up to the failed read */
        (void) dwfl_getthread_frames(dwfl, tid ? tid : 1, pg_frame_cb, &o);
        u->sample = NULL;
        return o.n;
}
