// The caller TU: sees only the declarations. batchify's caller side lets
// clang's loop vectorizer call the AVX2 variants from these loops.
#pragma omp declare simd
float kern(float x, float y);
#pragma omp declare simd
int isq(int x, int y);
void plain(float *restrict r, const float *x, const float *y, int n) {
  for (int i = 0; i < n; i++) r[i] = kern(x[i], y[i]);
}
void masked(float *restrict r, const float *x, const float *y, int n) {
#pragma omp simd
  for (int i = 0; i < n; i++)
    if (x[i] > 0) r[i] = kern(x[i], y[i]);
}
void ints(int *restrict r, const int *x, const int *y, int n) {
#pragma omp simd
  for (int i = 0; i < n; i++) r[i] = isq(x[i], y[i]);
}
void ints_masked(int *restrict r, const int *x, const int *y, int n) {
#pragma omp simd
  for (int i = 0; i < n; i++)
    if (x[i] & 1) r[i] = isq(x[i], y[i]);
}
