/* SUITE-CALLER-MARCH: sandybridge
 * The AVX (`c`) variant of a ten-float-argument function: eight ymm
 * registers, then the stack. */
#include "harness.h"

#ifdef SIMD_FUNCS
DS(notinbranch)
SCALAR float F(ten)(float a, float b, float c, float d, float e, float f, float g, float h, float i, float j) BODY({
  float s = a - b + c * 2.0f - d + e * 0.5f - f + g - h * 4.0f;
  return s > i ? s - j : i + j * 0.25f;
})
#else
#define N 1000
static float v[10][N], r1[N], r2[N];

int main(void) {
  for (int k = 0; k < 10; k++)
    for (int i = 0; i < N; i++)
      v[k][i] = rnd_float(16.0f);
#pragma omp simd
  for (int i = 0; i < N; i++)
    r1[i] = ten(v[0][i], v[1][i], v[2][i], v[3][i], v[4][i], v[5][i], v[6][i], v[7][i], v[8][i], v[9][i]);
  for (int i = 0; i < N; i++)
    r2[i] = ten(v[9][i], v[8][i], v[7][i], v[6][i], v[5][i], v[4][i], v[3][i], v[2][i], v[1][i], v[0][i]);
  for (int i = 0; i < N; i++) {
    CHECK_EQ("simd loop", i, r1[i],
             ref_ten(v[0][i], v[1][i], v[2][i], v[3][i], v[4][i], v[5][i], v[6][i], v[7][i], v[8][i], v[9][i]));
    CHECK_EQ("plain loop", i, r2[i],
             ref_ten(v[9][i], v[8][i], v[7][i], v[6][i], v[5][i], v[4][i], v[3][i], v[2][i], v[1][i], v[0][i]));
  }
  SIMD_DONE();
}
#endif
