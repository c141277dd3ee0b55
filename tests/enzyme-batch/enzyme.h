/* Enzyme's batch API as C programs declare it (see docs/enzyme-batch.md).
 * The markers are globals that are never defined: batchify removes every
 * use. `__enzyme_batch*` takes any arguments (C23 `(...)`); each result
 * shape gets its own name, since C has no overloading (batchify accepts
 * every name that starts with `__enzyme_batch`). */
#ifndef ENZYME_H
#define ENZYME_H
#include <stdint.h>
#include <stdio.h>
#include <string.h>

extern int enzyme_width;
extern int enzyme_vector;
extern int enzyme_scalar;
extern int enzyme_buffer;

/* Results of N lanes: a struct of N fields returns in registers or through
 * memory, as the C ABI has it; batchify delivers `[N x T]` either way. */
typedef struct { float v[2]; } f32x2;
typedef struct { float v[4]; } f32x4;
typedef struct { float v[8]; } f32x8;
typedef struct { float v[16]; } f32x16;
typedef struct { double v[2]; } f64x2;
typedef struct { double v[4]; } f64x4;
typedef struct { double v[8]; } f64x8;
typedef struct { double v[16]; } f64x16;
typedef struct { int v[4]; } i32x4;
typedef struct { int v[8]; } i32x8;
typedef struct { int v[16]; } i32x16;

/* Bit-for-bit comparison of lane results; counts mismatches. */
static int failures;
#define CHECK_LANES(what, got, want, n)                                                  \
  do {                                                                                   \
    for (int k_ = 0; k_ < (n); k_++) {                                                   \
      if (memcmp(&(got)[k_], &(want)[k_], sizeof((want)[k_])) != 0) {                    \
        printf("FAIL %s lane %d: got %.17g want %.17g\n", what, k_, (double)(got)[k_],     \
               (double)(want)[k_]);                                                      \
        failures++;                                                                      \
      }                                                                                  \
    }                                                                                    \
  } while (0)

#define FINISH(name)                                                                     \
  do {                                                                                   \
    if (failures) {                                                                      \
      printf("%s: %d mismatching lane(s)\n", name, failures);                            \
      return 1;                                                                          \
    }                                                                                    \
    printf("%s: ok\n", name);                                                            \
    return 0;                                                                            \
  } while (0)

#endif
