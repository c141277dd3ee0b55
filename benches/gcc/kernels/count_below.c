/* How many of a uniform table's 64 entries are below x: a reduction over a
   uniform array that clang -O2 vectorizes in the scalar function. */
// bench: ret int
// bench: t const int* a 64 = (int)(rnd_u32() % 2000) - 1000
// bench: u int len = 64
// bench: v int x = rnd_int(-1100, 1100)
#pragma omp declare simd uniform(a, len) notinbranch
int count_below(const int *a, int len, int x) {
    int c = 0;
    for (int j = 0; j < len; j++)
        c += a[j] < x;
    return c;
}
