// Divergent-control-flow corpus: irreducible control flow from goto.
//
// Each function has a cycle with two entry blocks, so no block of the cycle
// dominates the others. The check.sh marker CHECK-IRREDUCIBLE (not a harness
// directive) makes check.sh verify that the -O0 + mem2reg IR really is
// irreducible. At -O2 clang may make the CFG reducible; that is fine.
#include <stdint.h>

// Two labels jumping into each other's loop; the entry jumps to either one
// depending on a varying parameter.
// CHECK-IRREDUCIBLE: irreducible_goto
int irreducible_goto(int x, int y) {
  unsigned a = (unsigned)x, b = (unsigned)y;
  int steps = 0;
  if (x & 1)
    goto second;
first:
  a = a * 3u + 1u;
  steps++;
  if (steps >= 40 || (a & 7u) == 0u)
    goto done;
  if (a & 16u)
    goto first;
second:
  b ^= a >> 3;
  b += 0x9e37u;
  steps++;
  if (steps >= 40 || (b & 15u) == 0u)
    goto done;
  goto first;
done:
  return (int)(a ^ b) + steps;
}

// Two loops, each jumping into the middle of the other's body.
// CHECK-IRREDUCIBLE: irreducible_loops
unsigned irreducible_loops(unsigned x, unsigned y) {
  unsigned acc = x;
  int guard = 0;
  if (y & 2u)
    goto in_b;
loop_a:
  acc = acc * 5u + 1u;
in_a:
  acc ^= y;
  if (++guard > 50)
    return acc;
  if ((acc & 3u) == 1u)
    goto loop_a;
  if ((acc & 3u) == 2u)
    goto in_b;
  return acc + 7u;
loop_b:
  acc = (acc >> 1) + y;
in_b:
  acc += 0x1234u;
  if (++guard > 50)
    return acc;
  if (acc & 8u)
    goto loop_b;
  goto in_a;
}

// A state machine written with gotos on a 64-bit value; three states that
// enter each other, exits after 48 transitions at most.
// CHECK-IRREDUCIBLE: irreducible_states
int64_t irreducible_states(int64_t v, int sel) {
  uint64_t u = (uint64_t)v;
  int n = 0;
  switch (sel & 3) {
  case 0:
    goto s0;
  case 1:
    goto s1;
  default:
    goto s2;
  }
s0:
  if (++n > 48)
    goto out;
  u = u * 6364136223846793005u + 1u;
  if (u >> 63)
    goto s1;
  goto s2;
s1:
  if (++n > 48)
    goto out;
  u ^= u >> 17;
  if ((u & 3u) == 0u)
    goto out;
  if (u & 4u)
    goto s0;
  goto s2;
s2:
  if (++n > 48)
    goto out;
  u += 0x9e3779b97f4a7c15u;
  if (u & 1u)
    goto s1;
  goto s0;
out:
  return (int64_t)(u >> 1) + n;
}
