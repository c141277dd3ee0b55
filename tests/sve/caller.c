/* Calls batchify's SVE variants of kernels.c through ACLE types, under
 * every predicate shape (whole vectors, tails, random masks), and checks
 * each active lane against the scalar function bit for bit and each
 * inactive lane's memory untouched. Prints "ok <vector bits>" or the first
 * mismatches; exit status 1 on any. */
#include <arm_sve.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

float fblend(float, float);
double dscale(const double *, double);
int collatz(int);
long widen(long, long);
void record(int *, int);
float lookup(const float *, int);
unsigned char sat8(unsigned char, unsigned char);
short digits(short);
float strided(const float *, int, int);
static int log_n, log_v[4096];
void note(int i) { log_v[log_n++] = i; }

svfloat32_t _ZGVsMxvv_fblend(svfloat32_t, svfloat32_t, svbool_t);
svfloat64_t _ZGVsMxl8u_dscale(const double *, double, svbool_t);
svint32_t _ZGVsMxv_collatz(svint32_t, svbool_t);
svint64_t _ZGVsMxvv_widen(svint64_t, svint64_t, svbool_t);
void _ZGVsMxul_record(int *, int, svbool_t);
svfloat32_t _ZGVsMxuv_lookup(const float *, svint32_t, svbool_t);
svuint8_t _ZGVsMxvv_sat8(svuint8_t, svuint8_t, svbool_t);
svint16_t _ZGVsMxv_digits(svint16_t, svbool_t);
svfloat32_t _ZGVsMxua16ls2u_strided(const float *, int, int, svbool_t);

#define N 1000
static unsigned seed = 12345;
static unsigned rnd(void) { seed = seed * 1103515245u + 12345u; return seed >> 8; }
static int failures;
#define FAIL(...) do { if (failures++ < 10) printf(__VA_ARGS__); } while (0)

static float fx[N], fy[N], fr[N];
static double dv[N], dr[N];
static int iv[N], ir[N];
static int kv[N];
static unsigned char ua[N], ub[N], ur[N];
static short hv[N], hr[N];
static float table[64], lk[N];
static float sr[N];
static _Alignas(16) float grid[3 * N];
static long sv[N];
static long lv[N], lr[N];
static uint8_t on[N]; /* random mask, one byte per element */

static float bits_f(unsigned u) { float f; memcpy(&f, &u, 4); return f; }

int main(void) {
  const float specials[] = {0.0f, -0.0f, 1.0f, -1.0f, 1e30f, -1e-30f, __builtin_inff(), -__builtin_inff(),
                            __builtin_nanf(""), bits_f(1), bits_f(0x80000001u)};
  for (int i = 0; i < N; i++) {
    fx[i] = (i % 7 == 0) ? specials[rnd() % 11] : (float)((int)(rnd() % 2000) - 1000) / 37.0f;
    fy[i] = (i % 5 == 0) ? specials[rnd() % 11] : (float)((int)(rnd() % 2000) - 1000) / 41.0f;
    dv[i] = (double)((int)(rnd() % 100000) - 50000) / 7.0;
    iv[i] = (int)(rnd() % 1000) - 20;
    sv[i] = (long)(short)(rnd() & 0xffff);
    lv[i] = ((long)rnd() << 24) ^ (long)rnd();
    on[i] = (rnd() % 3) != 0;
    kv[i] = (int)(rnd() % 80) - 8;
    ua[i] = (unsigned char)rnd();
    ub[i] = (unsigned char)rnd();
    hv[i] = (short)rnd();
  }
  for (int k = 0; k < 3 * N; k++) grid[k] = (float)((int)(rnd() % 4000) - 2000) / 17.0f;
  for (int k = 0; k < 64; k++) table[k] = (float)((int)(rnd() % 2000) - 1000) / 29.0f;
  for (int pass = 0; pass < 2; pass++) { /* 0: whole vectors and a tail; 1: random masks */
    memset(fr, 0xa5, sizeof fr); memset(dr, 0xa5, sizeof dr);
    memset(ir, 0xa5, sizeof ir); memset(lr, 0xa5, sizeof lr); memset(lk, 0xa5, sizeof lk);
    memset(ur, 0xa5, sizeof ur); memset(hr, 0xa5, sizeof hr);
    memset(sr, 0xa5, sizeof sr);
    for (int i = 0; i < N; i += (int)svcntw()) {
      svbool_t pg = svwhilelt_b32(i, N);
      if (pass) pg = svcmpne(pg, svld1ub_u32(pg, on + i), 0);
      svfloat32_t r = _ZGVsMxvv_fblend(svld1(pg, fx + i), svld1(pg, fy + i), pg);
      svst1(pg, fr + i, r);
      svst1(pg, ir + i, _ZGVsMxv_collatz(svld1(pg, iv + i), pg));
      svst1(pg, lk + i, _ZGVsMxuv_lookup(table, svld1(pg, kv + i), pg));
      /* Lane k reads grid[3 * (i + k)]. */
      svst1(pg, sr + i, _ZGVsMxua16ls2u_strided(grid, 3 * i, 3, pg));
    }
    for (int i = 0; i < N; i += (int)svcntd()) {
      svbool_t pg = svwhilelt_b64(i, N);
      if (pass) pg = svcmpne(pg, svld1ub_u64(pg, on + i), 0);
      svst1(pg, dr + i, _ZGVsMxl8u_dscale(dv + i, 2.5, pg));
      svst1(pg, lr + i, _ZGVsMxvv_widen(svld1(pg, sv + i), svld1(pg, lv + i), pg));
    }
    for (int i = 0; i < N; i += (int)svcntb()) { /* all lanes on: the tail lanes compute on zeros and are not stored */
      svbool_t pg = svwhilelt_b8(i, N);
      svst1(pg, ur + i, _ZGVsMxvv_sat8(svld1(pg, ua + i), svld1(pg, ub + i), svptrue_b8()));
    }
    for (int i = 0; i < N; i += (int)svcnth()) {
      svbool_t pg = svwhilelt_b16(i, N);
      if (pass) pg = svcmpne(pg, svld1ub_u16(pg, on + i), 0);
      svst1(pg, hr + i, _ZGVsMxv_digits(svld1(pg, hv + i), pg));
    }
    for (int i = 0; i < N; i++) {
      unsigned char eu = sat8(ua[i], ub[i]);
      if (eu != ur[i]) FAIL("sat8[%d]: %d expected %d\n", i, ur[i], eu);
      int active = !pass || on[i];
      float ef = fblend(fx[i], fy[i]);
      double ed = dscale(dv + i, 2.5);
      int ei = collatz(iv[i]);
      long el = widen(sv[i], lv[i]);
      float ek = lookup(table, kv[i]);
      short eh = digits(hv[i]);
      float es = strided(grid, 3 * i, 3);
      if (!active) {
        unsigned u; memcpy(&u, fr + i, 4);
        if (u != 0xa5a5a5a5u) FAIL("fblend: inactive lane %d written\n", i);
        continue;
      }
      if (memcmp(&ef, fr + i, 4)) FAIL("fblend[%d]: %a expected %a\n", i, fr[i], ef);
      if (memcmp(&ed, dr + i, 8)) FAIL("dscale[%d]: %a expected %a\n", i, dr[i], ed);
      if (ei != ir[i]) FAIL("collatz[%d]: %d expected %d\n", i, ir[i], ei);
      if (el != lr[i]) FAIL("widen[%d]: %ld expected %ld\n", i, lr[i], el);
      if (memcmp(&es, sr + i, 4)) FAIL("strided[%d]: %a expected %a\n", i, sr[i], es);
      if (eh != hr[i]) FAIL("digits[%d]: %d expected %d\n", i, hr[i], eh);
      if (memcmp(&ek, lk + i, 4)) FAIL("lookup[%d]: %a expected %a\n", i, lk[i], ek);
    }
  }
  /* Lane order of side effects, under a random mask. */
  static int base[N];
  int expect_log[N], expect_n = 0;
  for (int i = 0; i < N; i += (int)svcntw()) {
    svbool_t pg = svcmpne(svwhilelt_b32(i, N), svld1ub_u32(svwhilelt_b32(i, N), on + i), 0);
    _ZGVsMxul_record(base, i, pg);
    for (int k = i; k < N && k < i + (int)svcntw(); k++)
      if (on[k]) expect_log[expect_n++] = k;
  }
  if (log_n != expect_n) FAIL("record: %d calls, expected %d\n", log_n, expect_n);
  for (int k = 0; k < expect_n && k < log_n; k++)
    if (log_v[k] != expect_log[k]) { FAIL("record: call %d got lane %d expected %d\n", k, log_v[k], expect_log[k]); break; }
  for (int i = 0; i < N; i++)
    if (base[i] != on[i]) { FAIL("record: base[%d] = %d\n", i, base[i]); break; }
  if (failures) { printf("%d failures\n", failures); return 1; }
  printf("ok %d-bit vectors\n", (int)svcntb() * 8);
  return 0;
}
