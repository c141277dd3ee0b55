// Runs caller.c's loops and compares each element with a scalar call.
// Prints "<n> checked, <bad> differ"; exits non-zero on a mismatch.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
float kern(float, float);
int isq(int, int);
void plain(float *, const float *, const float *, int);
void masked(float *, const float *, const float *, int);
void ints(int *, const int *, const int *, int);
void ints_masked(int *, const int *, const int *, int);
#define N 1001
int main(void) {
  static float x[N], y[N], r[N], rm[N];
  static int a[N], b[N], ri[N], rim[N];
  long checked = 0, bad = 0;
  for (int t = 0; t < 20; t++) {
    for (int i = 0; i < N; i++) {
      x[i] = rand() / (float)RAND_MAX * 4 - 2; y[i] = rand() / (float)RAND_MAX * 4 - 2;
      a[i] = rand() % 2000 - 1000; b[i] = rand() % 2000 - 1000; rm[i] = -1; rim[i] = -1;
    }
    plain(r, x, y, N); masked(rm, x, y, N); ints(ri, a, b, N); ints_masked(rim, a, b, N);
    for (int i = 0; i < N; i++) {
      float k = kern(x[i], y[i]), km = x[i] > 0 ? k : -1;
      int ok = !memcmp(&r[i], &k, 4) && !memcmp(&rm[i], &km, 4) && ri[i] == isq(a[i], b[i]) &&
               rim[i] == ((a[i] & 1) ? isq(a[i], b[i]) : -1);
      checked++;
      if (!ok && bad++ < 5) printf("element %d differs\n", i);
    }
  }
  printf("%ld checked, %ld differ\n", checked, bad);
  return bad != 0;
}
