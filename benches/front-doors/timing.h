/* The front-door benchmarks' timing (see run.sh): wall-clock milliseconds,
 * and the median of 11 repetitions with their min and max printed. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define REPETITIONS 11

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int compare_ms(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts the repetitions' times, prints their min and max, returns the median. */
static double median_of(double t[REPETITIONS]) {
    qsort(t, REPETITIONS, sizeof t[0], compare_ms);
    printf("  (min %.3f max %.3f) ", t[0], t[REPETITIONS - 1]);
    return t[REPETITIONS / 2];
}
