// C++ reference parameters in `declare simd`: `linear(ref(x):1)` (GCC mangles
// it R4: one pointer, lane k at +4k bytes) and `linear(val(x))` (L: one
// pointer per lane). Built with -DCALLEE by clang++ and batchify, called from
// g++ `omp simd` loops (crates/batchify-cli/tests/gcc_linear_ref.rs).
#include <cstdio>
#ifdef CALLEE
#pragma omp declare simd linear(ref(x):1) notinbranch
float f(float &x) { float v = x; x = v * 2.0f; return v + 1.0f; }
#pragma omp declare simd linear(val(x):1) notinbranch
int g(int &x) { return x + 1; }
#else
#pragma omp declare simd linear(ref(x):1) notinbranch
float f(float &x);
#pragma omp declare simd linear(val(x):1) notinbranch
int g(int &x);
float a[1024], r[1024]; int b[1024], s[1024];
int main() {
  for (int i = 0; i < 1024; i++) { a[i] = i * 0.5f; b[i] = 3 * i; }
  #pragma omp simd
  for (int i = 0; i < 1024; i++) r[i] = f(a[i]);
  #pragma omp simd
  for (int i = 0; i < 1024; i++) s[i] = g(b[i]);
  int bad = 0;
  for (int i = 0; i < 1024; i++) bad += (r[i] != i * 0.5f + 1.0f) + (a[i] != i * 1.0f) + (s[i] != 3 * i + 1);
  printf("bad %d\n", bad); return bad != 0;
}
#endif
