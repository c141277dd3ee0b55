// Aggregates corpus (C): structs returned by value, built under divergent
// branches and in loops, returned by helpers, and overflow-checking
// builtins (`{iN, i1}` intrinsics). See README.md.
#include <limits.h>
#include <stdint.h>

struct D2 { double a, b; };
struct L2 { long long a; int b; };
struct F3 { float x, y, z; };
struct F2 { float x, y; };

// `{double, double}` result, fields chosen by a divergent branch.
struct D2 rot_or_swap(double a, double b, double t) {
  struct D2 r;
  if (t > 0.0) {
    r.a = a * t - b;
    r.b = b * t + a;
  } else {
    r.a = b;
    r.b = a;
  }
  return r;
}

// `{i64, i32}` result (two ints packed into the first field).
struct L2 sums(int a, int b) {
  struct L2 r = {(long long)a * b + 3, a ^ b};
  return r;
}

// `{<2 x float>, float}` result: a vector field in a struct.
struct F3 cross_z(float x, float y, float z) {
  struct F3 r = {y * 2.0f - z, z * 0.5f - x, x * y - 1.0f};
  if (x > y)
    r.z = -r.z;
  return r;
}

// `<2 x float>` result.
struct F2 halves(float x, float y) {
  struct F2 r = {x * 0.5f, y < 0.0f ? -y : y};
  return r;
}

// A helper returning a struct, called under a divergent branch.
static __attribute__((noinline)) struct D2 polar_step(double x, double y) {
  struct D2 r;
  if (x * x + y * y > 4.0) {
    r.a = x * 0.5;
    r.b = y * 0.5;
  } else {
    r.a = x * x - y * y;
    r.b = 2.0 * x * y;
  }
  return r;
}

double use_polar(double x, double y) {
  if (x < 1.5) {
    struct D2 p = polar_step(x, y);
    return p.a + p.b * 3.0;
  }
  return x - y;
}

// A complex iteration carried in a struct through a divergent loop.
int escape_count(double cr, double ci) {
  struct D2 z = {0.0, 0.0};
  int n = 0;
  while (n < 64 && z.a * z.a + z.b * z.b <= 4.0) {
    struct D2 t = {z.a * z.a - z.b * z.b + cr, 2.0 * z.a * z.b + ci};
    z = t;
    n++;
  }
  return n;
}

// Saturating add through `__builtin_add_overflow` (llvm.sadd.with.overflow).
int sat_add(int a, int b) {
  int r;
  if (__builtin_add_overflow(a, b, &r))
    return a > 0 ? INT_MAX : INT_MIN;
  return r;
}

// Unsigned 64-bit product with an overflow flag, in a loop whose trip
// count varies by lane.
uint64_t checked_pow(uint64_t b, unsigned e) {
  uint64_t r = 1;
  for (unsigned i = 0; i < (e & 15); i++) {
    if (__builtin_mul_overflow(r, b, &r))
      return 0;
  }
  return r;
}

// Signed subtraction overflow on 16-bit values.
int sub16_flag(short a, short b) {
  short r;
  int o = __builtin_sub_overflow(a, b, &r);
  return o ? -1 : r;
}

// Helpers returning `<2 x float>` and `{<2 x float>, float}` (lane arrays
// at the ABI: the caller converts the helper clone's result).
static __attribute__((noinline)) struct F2 mk2(float x, float y) {
  struct F2 r = {x + y, x * y};
  if (x > 0.0f)
    r.x = -r.x;
  return r;
}

float use_f2(float x, float y) {
  struct F2 p = mk2(x, y);
  return p.x - p.y;
}

static __attribute__((noinline)) struct F3 mk3(float x, float y) {
  struct F3 r = {x - y, y * 0.25f, x * x};
  if (y > x)
    r.z = y;
  return r;
}

float use_f3(float x, float y) {
  if (x != y) {
    struct F3 p = mk3(x, y);
    return p.x + p.y * p.z;
  }
  return x;
}
