/* enzyme_buffer: lane k's pointer is base + k*offset bytes (an array of
 * structs), next to a vector argument. */
#include "enzyme.h"

typedef struct { float x, y, z, w; } point;

extern f32x8 __enzyme_batch_p8(...);
extern f32x4 __enzyme_batch_p4(...);

__attribute__((noinline)) float norm_scaled(const point *p, float s) {
  float d = p->x * p->x + p->y * p->y + p->z * p->z;
  return d > 4.0f ? d * s : p->w;
}

int main(void) {
  point pts[8];
  float s[8], want[8];
  for (int k = 0; k < 8; k++) {
    pts[k] = (point){0.5f * k, 1.0f - k, 0.25f * k * k, (float)-k};
    s[k] = 1.0f / (k + 2);
  }
  for (int k = 0; k < 8; k++) want[k] = norm_scaled(&pts[k], s[k]);
  f32x8 r8 = __enzyme_batch_p8(norm_scaled, enzyme_width, 8, enzyme_buffer, (long)sizeof(point), pts,
                               enzyme_vector, s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]);
  CHECK_LANES("buffer, width 8", r8.v, want, 8);
  /* Every other point: offset 2*sizeof(point). */
  float want2[4];
  for (int k = 0; k < 4; k++) want2[k] = norm_scaled(&pts[2 * k], s[0]);
  f32x4 r4 = __enzyme_batch_p4(norm_scaled, enzyme_width, 4, enzyme_buffer, (int)(2 * sizeof(point)), pts,
                               enzyme_scalar, s[0]);
  CHECK_LANES("buffer stride 2, width 4", r4.v, want2, 4);
  FINISH("03_buffer");
}
