/* How many bytes the instruction that faulted reads or writes, from its encoding (x86-64).
 * A page fault gives the first address an access touched, not its size: a vector load that
 * reads eight received ints at once (numpy's sum, memcpy) would otherwise decide one element
 * and leave seven "never read". Only the instruction families compilers and libc use on data
 * are told apart (scalar, SSE/AVX/AVX-512 vectors, string moves); anything else answers 0, and
 * the caller falls back to one element, which keeps "never read" a lower bound. */
#define _GNU_SOURCE
#include <stdint.h>
#include <ucontext.h>
#include "access_width.h"

#if defined(__x86_64__)

/* SSE opcodes (after 0F) whose F3/F2 forms are scalar (ss/sd): moves, conversions, arithmetic,
 * compares. */
static int scalar_sse(uint8_t op)
{
    return op == 0x10 || op == 0x11 || (op >= 0x2a && op <= 0x2f) || (op >= 0x51 && op <= 0x5f) || op == 0xc2;
}

/* Width of a VEX/EVEX-encoded access: opcode map 1 scalar forms by pp, else the vector length.
 * vcvtsi2ss/sd (2A) read an integer: 4 bytes, 8 with W. */
static unsigned vector_width(unsigned map, unsigned pp, uint8_t op, unsigned length, int w)
{
    if (map == 1 && op == 0x2a && (pp == 2 || pp == 3)) return w ? 8 : 4;
    if (map == 1 && scalar_sse(op) && (pp == 2 || pp == 3)) return pp == 2 ? 4 : 8;
    if (map == 1 && (op == 0x6e || op == 0x7e || op == 0xd6)) return 8; /* vmovd/vmovq */
    return length;
}

unsigned mc_access_width(const void *context)
{
    if (!context) return 0;
    const ucontext_t *uc = context;
    const uint8_t *p = (const uint8_t *) uc->uc_mcontext.gregs[REG_RIP];
    if (!p) return 0;
    int opsize16 = 0, rexw = 0;
    uint8_t rep = 0;
    for (int i = 0; i < 14; i++, p++) { /* legacy prefixes */
        uint8_t b = *p;
        if (b == 0x66) opsize16 = 1;
        else if (b == 0xf2 || b == 0xf3)
            rep = b;
        else if (!(b == 0x2e || b == 0x36 || b == 0x3e || b == 0x26 || b == 0x64 || b == 0x65 || b == 0x67 ||
                   b == 0xf0))
            break;
    }
    if ((*p & 0xf0) == 0x40) rexw = *p++ & 8;
    switch (*p) {
    case 0xc5: return vector_width(1, p[1] & 3, p[2], p[1] & 4 ? 32 : 16, 0);
    case 0xc4: return vector_width(p[1] & 0x1f, p[2] & 3, p[3], p[2] & 4 ? 32 : 16, p[2] >> 7);
    case 0x62: return vector_width(p[1] & 7, p[2] & 3, p[4], 16u << (p[3] >> 5 & 3), p[2] >> 7);
    case 0xa4:
    case 0xa5:
    case 0xaa:
    case 0xab: { /* movs/stos, with rep: rcx elements */
        unsigned unit = (*p & 1) ? (rexw ? 8 : opsize16 ? 2 : 4) : 1;
        uint64_t n = rep ? (uint64_t) uc->uc_mcontext.gregs[REG_RCX] : 1;
        return n > (1u << 20) ? 1u << 20 : (unsigned) (n * unit);
    }
    case 0x0f: {
        uint8_t op = p[1];
        if (op == 0xb6 || op == 0xbe) return 1; /* movzx/movsx from a byte */
        if (op == 0xb7 || op == 0xbf) return 2;
        if (op == 0x38 || op == 0x3a) return 16;                             /* SSSE3/SSE4 */
        if (op == 0x6e || op == 0x7e) return rep == 0xf3 ? 8 : rexw ? 8 : 4; /* movd/movq */
        if (op == 0xd6) return 8;
        if (op == 0x12 || op == 0x13 || op == 0x16 || op == 0x17) return 8; /* movlps/movhps */
        int sse = (op >= 0x10 && op <= 0x17) || (op >= 0x28 && op <= 0x2f) || (op >= 0x50 && op <= 0x7f) ||
                  (op >= 0xc2 && op <= 0xc6) || op >= 0xd0;
        if (!sse) return rexw ? 8 : opsize16 ? 2 : 4;
        if (rep && op == 0x2a) return rexw ? 8 : 4; /* cvtsi2ss/sd: the integer source */
        if (rep && scalar_sse(op)) return rep == 0xf3 ? 4 : 8;
        if (!opsize16 && !rep && ((op >= 0x60 && op <= 0x7f) || op >= 0xd0)) return 8; /* MMX */
        return 16;
    }
    default: break;
    }
    uint8_t op = *p;
    /* byte forms of the ALU/mov/test/xchg opcodes */
    if ((op < 0x40 && (op & 7) < 6 && !(op & 1)) || op == 0x80 || op == 0x84 || op == 0x86 || op == 0x88 ||
        op == 0x8a || op == 0xc6 || op == 0xf6 || op == 0xfe)
        return 1;
    return rexw ? 8 : opsize16 ? 2 : 4;
}

#else

unsigned mc_access_width(const void *context)
{
    (void) context;
    return 0;
}

#endif
