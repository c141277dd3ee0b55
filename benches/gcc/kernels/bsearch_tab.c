/* Binary search (lower bound) in a sorted float table behind a uniform
   pointer: 12 iterations for every lane, each a gather at a varying index. */
// bench: ret int
// bench: t const float* tab 4096 = (float)j * 0.25f + (float)(j % 7) * 0.01f
// bench: u int len = 4096
// bench: v float key = rnd_range(-10.0f, 1100.0f)
#pragma omp declare simd uniform(tab, len) notinbranch
int bsearch_tab(const float *tab, int len, float key) {
    int lo = 0, hi = len;
    while (lo < hi) {
        int mid = (lo + hi) >> 1;
        if (tab[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}
