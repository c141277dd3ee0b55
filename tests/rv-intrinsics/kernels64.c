/* RV's test 079 (see kernels.c): rv_popcount declared with a 64-bit result. */
#include <stdbool.h>
#include <stdint.h>
int64_t rv_popcount(bool);
int64_t t079(float x, float y) { return rv_popcount(x < y); }
