/* indirect: calls through function pointers (call_indirect through the table). A dispatch
 * loop over an array of binary operators, and a tiny stack machine whose opcode handlers
 * are reached through a handler table. */
#include "rt.h"

typedef u32 (*binop)(u32, u32);

NOINLINE static u32 op_add(u32 a, u32 b) { return a + b; }
NOINLINE static u32 op_sub(u32 a, u32 b) { return a - b; }
NOINLINE static u32 op_mul(u32 a, u32 b) { return a * (b | 1); }
NOINLINE static u32 op_xor(u32 a, u32 b) { return a ^ b; }
NOINLINE static u32 op_rol(u32 a, u32 b) { return rotl32(a, (int)(b & 31) | 1); }
NOINLINE static u32 op_ror(u32 a, u32 b) { return rotr32(a, (int)(b & 31) | 1); }
NOINLINE static u32 op_div(u32 a, u32 b) { return a / ((b >> 16) | 1); }
NOINLINE static u32 op_mix(u32 a, u32 b) { return (a ^ (a >> 15)) * 0x2c1b3c6du + b; }

static binop ops[8] = {op_add, op_sub, op_mul, op_xor, op_rol, op_ror, op_div, op_mix};

typedef u64 (*unop64)(u64);
NOINLINE static u64 u_inc(u64 x) { return x + 0x9e3779b97f4a7c15ull; }
NOINLINE static u64 u_shr(u64 x) { return x ^ (x >> 29); }
NOINLINE static u64 u_mul(u64 x) { return x * 0xbf58476d1ce4e5b9ull; }
NOINLINE static u64 u_not(u64 x) { return ~x + 7; }
static unop64 unops[4] = {u_inc, u_shr, u_mul, u_not};

/* ---- a tiny stack machine ---- */
typedef struct VM VM;
typedef void (*handler)(VM *);

struct VM {
  u32 stack[64];
  u32 sp;
  u32 pc;
  const u8 *code;
  u32 running;
  u32 steps;
};

enum { OP_PUSH, OP_DUP, OP_ADD, OP_MUL, OP_XOR, OP_SWAP, OP_DEC_JNZ, OP_HALT, OP_DROP, OP_ROT, NOPS };

NOINLINE static void h_push(VM *v) { v->stack[v->sp++] = v->code[v->pc++]; }
NOINLINE static void h_dup(VM *v) { v->stack[v->sp] = v->stack[v->sp - 1]; v->sp++; }
NOINLINE static void h_add(VM *v) { v->sp--; v->stack[v->sp - 1] += v->stack[v->sp]; }
NOINLINE static void h_mul(VM *v) { v->sp--; v->stack[v->sp - 1] = v->stack[v->sp - 1] * v->stack[v->sp] + 1; }
NOINLINE static void h_xor(VM *v) { v->sp--; v->stack[v->sp - 1] ^= v->stack[v->sp] << 3; }
NOINLINE static void h_swap(VM *v) {
  u32 t = v->stack[v->sp - 1];
  v->stack[v->sp - 1] = v->stack[v->sp - 2];
  v->stack[v->sp - 2] = t;
}
/* decrement the counter kept at stack[0]; jump back to the target byte if non-zero */
NOINLINE static void h_dec_jnz(VM *v) {
  u32 target = v->code[v->pc++];
  if (--v->stack[0] != 0) v->pc = target;
}
NOINLINE static void h_halt(VM *v) { v->running = 0; }
NOINLINE static void h_drop(VM *v) { v->sp--; }
NOINLINE static void h_rot(VM *v) {
  u32 a = v->stack[v->sp - 3];
  v->stack[v->sp - 3] = v->stack[v->sp - 2];
  v->stack[v->sp - 2] = v->stack[v->sp - 1];
  v->stack[v->sp - 1] = a;
}

static handler handlers[NOPS] = {h_push, h_dup, h_add, h_mul, h_xor, h_swap, h_dec_jnz, h_halt, h_drop, h_rot};

/* stack: [counter, a, b]; loop body keeps the depth constant */
static const u8 program[] = {
  OP_PUSH, 5, OP_PUSH, 9,                 /* 0: a b */
  OP_DUP, OP_ROT, OP_ADD, OP_SWAP,        /* 4: loop body */
  OP_PUSH, 3, OP_MUL, OP_SWAP,
  OP_DUP, OP_PUSH, 11, OP_XOR, OP_XOR,
  OP_DEC_JNZ, 4,
  OP_HALT,
};

static u32 run_vm(u32 iterations) {
  VM vm;
  vm.sp = 0;
  vm.pc = 0;
  vm.code = program;
  vm.running = 1;
  vm.steps = 0;
  vm.stack[vm.sp++] = iterations;
  while (vm.running) {
    u8 op = vm.code[vm.pc++];
    handlers[op](&vm);
    vm.steps++;
  }
  return vm.stack[1] * 31u + vm.stack[2] + vm.steps;
}

EXPORT("run") i64 run(i32 n) {
  u32 s = 42, acc = 1;
  for (i32 i = 0; i < n; i++) {
    u32 r = lcg32(&s);
    acc = ops[(r >> 13) & 7](acc, r);
    acc = ops[(acc >> 7) & 7](acc, i);
  }
  u64 x = acc;
  for (i32 i = 0; i < n / 2; i++) x = unops[(x >> 11 ^ (u64)i) & 3](x);
  u32 v = run_vm((u32)n / 4);
  return (i64)(x ^ ((u64)acc << 17) ^ ((u64)v << 40));
}
