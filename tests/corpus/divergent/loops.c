// Divergent-control-flow corpus: loops whose trip counts or exits differ
// between lanes.
//
// break/continue, nested loops with lane-varying bounds, a loop inside a
// branch that some lanes skip, multiple exits, a while whose condition mixes
// a varying and a uniform part, a uniform loop with a divergent if, a
// divergent loop with a uniform if, early return from a nested loop,
// do-while, and float sums with lane-varying trip counts (the oracle compares
// bit for bit, so the summation order must be kept).
// Uniform trip counts are masked (n & 31) and every loop has a small bound.
#include <math.h>
#include <stdint.h>

// Loop with continue and break; trip count x & 63 is varying.
int break_continue(int x, int y) {
  unsigned acc = 0u;
  int lim = x & 63;
  for (int i = 0; i < lim; i++) {
    if (((unsigned)y >> (i & 31)) & 1u)
      continue;
    acc = acc * 31u + (unsigned)i;
    if (acc > (unsigned)y && i > 5)
      break;
  }
  return (int)acc;
}

// Nested loops; the inner bound depends on the outer counter and a varying
// parameter.
int nested_varying(int a, int b) {
  unsigned acc = 1u;
  int n = a & 15;
  for (int i = 0; i < n; i++) {
    int m = i + (b & 7);
    for (int j = 0; j < m; j++)
      acc = acc * 3u + (unsigned)(i ^ j);
  }
  return (int)acc;
}

// Nested float loops: triangular bound from a varying float converted after a
// range check.
float nested_triangle(float x, int k) {
  if (!(x >= 0.0f && x <= 12.0f))
    return x;
  int n = (int)x;
  float s = 0.0f;
  for (int i = 0; i <= n; i++)
    for (int j = i; j < n + (k & 3); j++)
      s = s * 0.5f + (float)(i * j);
  return s;
}

// A loop inside a branch that some lanes skip.
int loop_in_branch(int x, int y) {
  unsigned r = (unsigned)y;
  if (x > 0) {
    int k = 0;
    while (k < (x & 31)) {
      r = r * 5u + (unsigned)k;
      k++;
    }
  } else {
    r ^= 0xdeadbeefu;
  }
  return (int)r;
}

// A loop with multiple exits: two returns from inside the loop.
int first_match(unsigned x, unsigned y) {
  for (unsigned i = 0; i < 32u; i++) {
    if (((x >> i) & 1u) && ((y >> i) & 1u))
      return (int)i;
    if (((x ^ y) >> i) == 0u)
      return -1 - (int)i;
  }
  return 99;
}

// while whose condition mixes a uniform part (i < (n & 31)) and a varying
// part (v > 10).
// VARIANT-PARAMS: while_mixed vu
int while_mixed(int x, int n) {
  int i = 0;
  unsigned v = (unsigned)x;
  while (i < (n & 31) && v > 10u) {
    v = v / 3u + (unsigned)i;
    i++;
  }
  return (int)(v * 64u + (unsigned)i);
}

// A uniform loop with a divergent if inside.
// VARIANT-PARAMS: uniform_loop_div_if vu
float uniform_loop_div_if(float x, int n) {
  float acc = 0.0f;
  int m = n & 31;
  for (int i = 0; i < m; i++) {
    if (x > (float)i)
      acc += sqrtf(x - (float)i);
    else
      acc = acc * 0.5f - 1.0f;
  }
  return acc;
}

// A divergent loop with a uniform if inside.
// VARIANT-PARAMS: div_loop_uniform_if vu
int div_loop_uniform_if(unsigned x, int mode) {
  int steps = 0;
  while (x > 1u && steps < 64) {
    if (mode & 1)
      x = x >> 1;
    else
      x = x - (x >> 2) - 1u;
    steps++;
  }
  return steps * 1000 + (int)(x & 0xffu);
}

// Early return from inside a nested loop with a lane-varying inner bound.
// The running hash h keeps the inner loop from being vectorized at -O2.
int nested_find(unsigned x, unsigned y) {
  unsigned h = y;
  for (int i = 0; i < 8; i++) {
    int m = (int)(y & 7u) + 1;
    for (int j = 0; j < m; j++) {
      h = h * 5u + (unsigned)j;
      if (i != j && ((x >> (i * 4)) & 15u) == (h & 15u))
        return i * 8 + j;
    }
  }
  return -1;
}

// do-while: decimal digit count (at most 10 iterations; capped anyway).
int do_while_digits(unsigned x) {
  int n = 0;
  do {
    x /= 10u;
    n++;
  } while (x != 0u && n < 16);
  return n;
}

// do-while on a double: halve until |x| <= 1 (inf and NaN hit the cap or
// exit at once).
double do_while_halve(double x) {
  int k = 0;
  do {
    x *= 0.5;
    k++;
  } while (fabs(x) > 1.0 && k < 1100);
  return x + (double)k;
}

// Float sum with a lane-varying trip count; the order of the sum matters.
float varying_sum(float x, int n) {
  float s = 0.0f;
  int m = n & 63;
  for (int i = 0; i < m; i++)
    s += x / (float)(i + 1);
  return s;
}

// Double series with a varying early exit (NaN exits at once).
double series_until(double x, double eps) {
  double term = 1.0, sum = 0.0;
  for (int k = 1; k <= 200; k++) {
    sum += term;
    term = term * x / (double)k;
    if (!(fabs(term) > eps))
      break;
  }
  return sum;
}

// Bit walk: loop until the value is zero, with a divergent if/else inside.
int bit_walk(unsigned x) {
  unsigned score = 0u;
  for (int it = 0; x != 0u && it < 40; it++) {
    if (x & 1u)
      score += 3u;
    else
      score ^= 5u;
    x >>= 1;
  }
  return (int)score;
}

// Several exits whose values are the loop counter (one of them also has a
// constant from another exit): the counter's last value in each lane is
// held once for all of them (clang -O2 unrolls nothing here; the exits are
// the counter, the counter + 100, and -1).
int multi_exit_counter(float x, float y) {
  float a = x, b = y;
  int i = 0;
  for (;;) {
    if (a > 8.0f)
      return i;
    a = a * 1.5f + 0.25f;
    if (b < -3.0f)
      return i + 100;
    b = b - a * 0.125f;
    i++;
    if (i == 40)
      return -1;
  }
}

// A multi-exit inner loop in a divergent outer loop: the inner counter and
// a float header value leave through two exits into the outer loop.
float nested_multi_exit(int x, int y) {
  float total = 0.0f;
  for (int o = 0; o < (y & 7); o++) {
    int k = 0;
    float f = (float)(x & 255) * 0.5f;
    unsigned v = (unsigned)x + (unsigned)o;
    for (;;) {
      if ((v & 7u) == 3u)
        break;
      v = v * 3u + 1u;
      if (v > 100000u) {
        total += f * 2.0f + (float)k;
        goto next;
      }
      f = f * 0.75f + 1.0f;
      k++;
      if (k == 20)
        break;
    }
    total += (float)k + f;
  next:;
  }
  return total;
}

// The mandelbrot loop as clang -O2 unrolls it (four exits that each return
// a function of the counter, one that returns the bound).
int mandel_unrolled(float cx, float cy) {
  float x = 0.0f, y = 0.0f;
  unsigned it = 0;
  while (it < 64 && x * x + y * y <= 4.0f) {
    float xt = x * x - y * y + cx;
    y = 2.0f * x * y + cy;
    x = xt;
    it++;
  }
  return (int)it;
}
