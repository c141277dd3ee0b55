/* A uniform array of structs indexed by a varying index: field gathers,
 * and a float result from mixed fields. */
#include "harness.h"

#ifndef PARTICLE_DEFINED /* the caller TU reads this file three times */
#define PARTICLE_DEFINED
struct particle {
  float x, y;
  int kind;
  double mass;
};
#endif

#ifdef SIMD_FUNCS
DS(uniform(ps) notinbranch)
SCALAR float F(energy)(const struct particle *ps, int i, float v) BODY({
  const struct particle *p = &ps[i];
  float e = p->x * p->x + p->y * p->y;
  if (p->kind == 2)
    e = e * 2.0f + (float)p->mass;
  else if (p->kind < 0)
    e = -e;
  return e * v;
})
#else
#define N 1000
#define P 97
static struct particle ps[P];
static int idx[N];
static float v[N], r1[N], r2[N];

int main(void) {
  for (int i = 0; i < P; i++) {
    ps[i].x = rnd_float(3.0f);
    ps[i].y = rnd_float(3.0f);
    ps[i].kind = rnd_int(-1, 3);
    ps[i].mass = (double)rnd_float(10.0f);
  }
  for (int i = 0; i < N; i++) {
    idx[i] = rnd_int(0, P - 1);
    v[i] = rnd_float(2.0f);
  }
#pragma omp simd
  for (int i = 0; i < N; i++)
    r1[i] = energy(ps, idx[i], v[i]);
  for (int i = 0; i < N; i++)
    r2[i] = energy(ps, i % P, 1.0f);
  for (int i = 0; i < N; i++) {
    CHECK_EQ("simd loop", i, r1[i], ref_energy(ps, idx[i], v[i]));
    CHECK_EQ("plain loop", i, r2[i], ref_energy(ps, i % P, 1.0f));
  }
  SIMD_DONE();
}
#endif
