/* Linear search in a sorted table passed as a uniform pointer with a uniform
   length: the loop counter and the table reads are uniform in a divergent
   loop (0 to 512 iterations per lane). */
// bench: ret int
// bench: t const int* tab 512 = (int)(j * j / 8)
// bench: u int len = 512
// bench: v int key = rnd_int(0, 32000)
#pragma omp declare simd uniform(tab, len) notinbranch
int lsearch(const int *tab, int len, int key) {
    int j = 0;
    while (j < len && tab[j] < key)
        j++;
    return j;
}
