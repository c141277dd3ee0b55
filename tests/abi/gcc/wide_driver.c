// Runs wide_caller.c's loops for each ISA the CPU has (argv[1] lists them,
// e.g. "bcd") and compares every result with the scalar functions of wide.c.
// Prints "<checked> checked, <bad> differ"; exits non-zero on a mismatch.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
long bar(long, long, long);
int foo(int);
int foo8(int, int);
double deref(const double *);
typedef void run_fn(int, long *, const long *, const long *, const long *, int *, int *, int *, int *, const int *,
                    const int *, double *, const double **);
run_fn run_b, run_c, run_d, run_e;
#define N 1003
int main(int argc, char **argv) {
  static long a[N], b[N], c[N], rl[N];
  static int x[N], y[N], ri[N], rm[N], r8[N], r8m[N];
  static double d[N], rd[N];
  static const double *p[N];
  const char *isas = argc > 1 ? argv[1] : "bcd";
  long checked = 0, bad = 0;
  for (const char *s = isas; *s; s++) {
    run_fn *run = *s == 'b' ? run_b : *s == 'c' ? run_c : *s == 'd' ? run_d : run_e;
    for (int t = 0; t < 20; t++) {
      for (int i = 0; i < N; i++) {
        a[i] = rand() - RAND_MAX / 2; b[i] = rand() % 1000 - 500; c[i] = (long)rand() << 20;
        x[i] = rand() % 2000 - 1000; y[i] = rand() % 2000 - 1000; d[i] = rand() / 7.0; p[i] = &d[(i * 7) % N];
        rm[i] = r8m[i] = -7;
      }
      run(N, rl, a, b, c, ri, rm, r8, r8m, x, y, rd, p);
      for (int i = 0; i < N; i++) {
        int ok = rl[i] == bar(a[i], b[i], c[i]) && ri[i] == foo(x[i]) && rm[i] == ((x[i] & 1) ? foo(y[i]) : -7) &&
                 r8[i] == foo8(x[i], y[i]) && r8m[i] == ((y[i] & 2) ? foo8(x[i], y[i]) : -7) &&
                 memcmp(&rd[i], &(double){deref(p[i])}, sizeof(double)) == 0;
        checked++;
        if (!ok && bad++ < 5) printf("isa %c element %d differs\n", *s, i);
      }
    }
  }
  printf("%ld checked, %ld differ\n", checked, bad);
  return bad != 0;
}
