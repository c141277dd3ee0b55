// Fields of arrays of small structures read together: interleave groups
// (plan/interleave.rs), one wide load per group and a shuffle per field
// where the pointer is linear; gathers where it is not.

struct V3 {
  float x, y, z;
};

// Two groups of three fields (stride 3 floats), a full mask.
// VARIANT-PARAMS: aos_dot3 l12l12
float aos_dot3(const float *a, const float *b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

// Three of four fields (stride 4 floats): the gap is never read.
// VARIANT-PARAMS: aos_len4 l16
float aos_len4(const float *p) {
  return p[0] * p[0] + p[1] * p[1] + p[2] * p[2];
}

// Fields 0 and 2 of 3 under a divergent branch (partial mask).
// VARIANT-PARAMS: aos_pick l12v
float aos_pick(const float *p, float x) {
  if (x > 0.0f)
    return p[0] * x + p[2];
  return x;
}

// A pair of doubles (stride 2): one group instead of two wide loads.
// VARIANT-PARAMS: cnorm2 l16
double cnorm2(const double *z) {
  return z[0] * z[0] - z[1] * 0.5;
}

// Offsets 1 to 3 of a stride-3 array: the group's structure starts at
// field 1 (the last lane reads the first field of the next structure,
// as the scalar code does).
// VARIANT-PARAMS: aos_shifted l12
float aos_shifted(const float *p) {
  return p[1] + p[2] * p[3];
}

// A store between two fields: no group across it.
// VARIANT-PARAMS: aos_swap l12
int aos_swap(int *p) {
  int a = p[0];
  p[1] = a * 3;
  return a + p[2];
}

// Four 64-bit fields (stride 4), in a loop over the lane's count.
// VARIANT-PARAMS: sum4_loop l32v
long sum4_loop(const long *q, int n) {
  long s = 0;
  for (int k = 0; k < (n & 7); k++)
    s += q[0] * k + q[1] - q[2] + (q[3] >> 1);
  return s;
}

// Structures through a linear index into a uniform array, under a mask.
// VARIANT-PARAMS: aos_index ulv
float aos_index(const struct V3 s[static 256], char i, float w) {
  const struct V3 *q = &s[(unsigned char)i];
  if (w < 1.0f)
    return q->x * w + q->y * q->z;
  return w;
}

// The same field read twice: two groups (one load per field each).
// VARIANT-PARAMS: aos_twice l8v
float aos_twice(const float *p, float x) {
  float a = p[0] + p[1];
  float b = x > 0.0f ? p[0] * p[1] : 1.0f;
  return a * b;
}
