// The callee TU of the caller-side test (crates/batchify-cli/tests/callers.rs):
// batchify builds its declare simd variants (clang-22 -march=x86-64-v3 IR).
#pragma omp declare simd
float kern(float x, float y) {
  int i = 0;
  while (x * x + y * y < 4.0f && i < 50) { float t = x * x - y * y + 0.3f; y = 2.0f * x * y - 0.1f; x = t; i++; }
  return (float)i;
}
#pragma omp declare simd
int isq(int x, int y) { return x > y ? x * y : y - x; }
