// GCC 12 caller loops of wide.c's variants, compiled once per ISA with
// -DSUF=b|c|d|e and -msse2|-mavx|-mavx2|-mavx512f: GCC's vectorizer calls
// the variant of that ISA (checked with nm by gcc_interop.rs).
#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#pragma omp declare simd simdlen(8) notinbranch
long bar(long a, long b, long c);
#pragma omp declare simd
int foo(int x);
#pragma omp declare simd simdlen(8)
int foo8(int x, int y);
#pragma omp declare simd notinbranch
double deref(const double *p);

void CAT(run_, SUF)(int n, long *rl, const long *a, const long *b, const long *c, int *ri, int *rm, int *r8,
                    int *r8m, const int *x, const int *y, double *rd, const double **p) {
#pragma omp simd
  for (int i = 0; i < n; i++) rl[i] = bar(a[i], b[i], c[i]);
#pragma omp simd
  for (int i = 0; i < n; i++) ri[i] = foo(x[i]);
#pragma omp simd
  for (int i = 0; i < n; i++)
    if (x[i] & 1) rm[i] = foo(y[i]);
#pragma omp simd
  for (int i = 0; i < n; i++) r8[i] = foo8(x[i], y[i]);
#pragma omp simd
  for (int i = 0; i < n; i++)
    if (y[i] & 2) r8m[i] = foo8(x[i], y[i]);
#pragma omp simd
  for (int i = 0; i < n; i++) rd[i] = deref(p[i]);
}
