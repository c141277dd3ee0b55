// A masked (inbranch) declare simd kernel with a divergent loop: GCC builds its
// four x86 clones (b, c, d, e); batchify builds the same four from clang IR.
#pragma omp declare simd inbranch
float kern(float x, float y) {
  float r = 0.0f;
  int i = 0;
  while (x * x + y * y < 4.0f && i < 50) { float t = x * x - y * y + 0.3f; y = 2.0f * x * y - 0.1f; x = t; i++; }
  return (float)i + r;
}
