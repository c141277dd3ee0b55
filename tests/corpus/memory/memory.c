// Memory-access corpus (C): loads and stores whose addresses are uniform,
// contiguous, reversed, strided or random across lanes, under full and
// partial masks. See README.md.
//
// Buffers are `[static N]` parameters (clang marks them
// `dereferenceable(4N)`), so the oracle places each one to end right
// before an inaccessible page: a vector access that reads or writes past
// the last element a lane touches faults. Indices come from linear `char`
// parameters cast to `unsigned char` (contiguous modulo 256, wrapping
// inside a batch now and then) or are masked into range.
#include <stdint.h>

struct P3 { float x, y, z; };
struct P2d { double a, b; };

// Contiguous load through a linear index that wraps at 256.
// VARIANT-PARAMS: load_lin_u8 ul
float load_lin_u8(const float t[static 256], char i) {
  return t[(unsigned char)i] * 2.0f + 1.0f;
}

// Contiguous load under a divergent branch (partial mask).
// VARIANT-PARAMS: load_lin_masked ulv
float load_lin_masked(const float t[static 256], char i, float x) {
  if (x > 0.5f)
    return t[(unsigned char)i] + x;
  return x * 3.0f;
}

// Contiguous store under a divergent branch; the other lanes' elements
// must keep their bytes.
// VARIANT-PARAMS: store_lin_masked ulv
void store_lin_masked(float t[static 256], char i, float x) {
  if (x < 0.25f)
    t[(unsigned char)i] = x * x;
}

// Reversed access: lane k reads element 255 - i.
// VARIANT-PARAMS: load_reversed ul
int load_reversed(const int t[static 256], char i) {
  return t[255 - (unsigned char)i] ^ 0x5a5a;
}

// A linear pointer (step one float): contiguous loads at constant offsets.
// VARIANT-PARAMS: linear_ptr_stencil l4
float linear_ptr_stencil(const float *p) {
  return 0.25f * p[-1] + 0.5f * p[0] + 0.25f * p[1];
}

// A linear pointer with a store of a varying value.
// VARIANT-PARAMS: linear_ptr_store l4v
void linear_ptr_store(float *p, float x) {
  if (x == x)
    *p = x + 1.0f;
}

// Array of structs: a field read with a 12-byte stride.
// VARIANT-PARAMS: aos_field ul
float aos_field(const struct P3 s[static 256], char i) {
  const struct P3 *q = &s[(unsigned char)i];
  return q->x * q->y - q->z;
}

// Array of structs: a field written with a 16-byte stride under a mask.
// VARIANT-PARAMS: aos_store ulv
void aos_store(struct P2d s[static 256], char i, double v) {
  if (v > 0.0)
    s[(unsigned char)i].b = v;
}

// Every other element (stride 2) of a 64-bit table.
// VARIANT-PARAMS: stride2_i64 ul
int64_t stride2_i64(const int64_t t[static 256], char i) {
  unsigned k = (unsigned char)i & 127u;
  return t[2 * k] - t[2 * k + 1];
}

// Random (data-dependent) indices: a gather.
// VARIANT-PARAMS: gather_random uv
float gather_random(const float t[static 64], unsigned x) {
  return t[(x * 2654435761u) >> 26];
}

// Store at a uniform address under a divergent branch: memory ends up
// with the last active lane's value.
// VARIANT-PARAMS: store_uniform_last uv
void store_uniform_last(int *out, int x) {
  if (x & 1)
    *out = x;
}

// Search loop over a uniform table with a varying exit: the counter is
// uniform in the loop and the table read is a scalar load.
// VARIANT-PARAMS: search_table uv
int search_table(const int t[static 64], int key) {
  int k = 0;
  while (k < 64 && t[k] < key)
    k++;
  return k;
}

// A loop that walks a contiguous window per lane: the address is linear in
// the lane and in the (uniform) counter.
// VARIANT-PARAMS: window_sum ulu
float window_sum(const float t[static 272], char i, int n) {
  unsigned base = (unsigned char)i;
  float s = 0.0f;
  for (int k = 0; k < (n & 15); k++)
    s += t[base + (unsigned)k];
  return s;
}

// A divergent loop (its trip count differs per lane) over a contiguous
// window: the counter is uniform inside the loop.
// VARIANT-PARAMS: window_divergent ulv
float window_divergent(const float t[static 272], char i, int n) {
  unsigned base = (unsigned char)i;
  float s = 0.0f;
  for (int k = 0; k < (n & 15); k++) {
    s += t[base + (unsigned)k];
    if (s > 100.0f)
      break;
  }
  return s;
}

// Bytes: contiguous i8 loads and stores.
// VARIANT-PARAMS: bytes_xor ulv
void bytes_xor(unsigned char t[static 256], char i, unsigned char key) {
  unsigned char *q = &t[(unsigned char)i];
  *q = (unsigned char)(*q ^ key);
}

// A 64-bit linear index masked into range: a low-bit mask is a
// truncation, so the two loads are vector accesses checked at run time.
// VARIANT-PARAMS: load_lin_i64 ul
double load_lin_i64(const double t[static 256], int64_t i) {
  return t[(uint64_t)i & 255u] + t[((uint64_t)i + 1u) & 255u];
}

// A search over a uniform (constant) table: the loop is divergent (lanes
// stop at different entries), but the counter is the same in every lane
// still searching, so the table read stays one scalar load per iteration.
static const float constant_table[16] = {-8.0f, -4.5f, -2.0f, -1.0f, -0.5f, -0.25f, 0.0f, 0.125f,
                                       0.5f,  1.0f,  1.5f,  2.0f,  3.0f,  5.0f,   8.0f, 13.0f};
int search_uniform_table(float x) {
  int i = 0;
  while (i < 16 && constant_table[i] < x)
    i++;
  return i;
}

// Small constant tables read at a varying index: on AVX2 and AVX-512 one
// register permute of the table per register of lanes (emit/tables.rs),
// elsewhere a gather. The index is masked into range, or checked.
static const float weights8[8] = {0.5f, -1.25f, 3.0f, 7.5f, -0.0f, 1e-3f, 42.0f, -9.75f};
static const int codes6[6] = {3, -7, 11, 100000, -2147483647 - 1, 5};

float table_weight(int k, float x) {
  return x * weights8[k & 7];
}

// The load is only in range under the condition: inactive lanes' indices
// are anything, and a permute reads no memory.
int table_code(int k) {
  return k >= 0 && k < 6 ? codes6[k] : -1;
}

// An 8-bit index, in a divergent branch.
float table_masked(unsigned char k, float x) {
  if (x > 0.25f)
    return x + weights8[k % 8u];
  return x;
}

// Read the lane's slot, overwrite it, and return what was read, from a
// divergent branch. LLVM 22's instcombine moved the read below the write
// when it folded the value's merge into the load (finish/masked_loads.rs;
// batchify-fuzz seed 1107299313).
// VARIANT-PARAMS: swap_slot_masked l8v
double swap_slot_masked(double *p, double x) {
  if (x > 0.0) {
    double old = *p;
    *p = x * 0.5 - 2.5;
    return old;
  }
  return x + 1.0;
}

// The same through a `char` index into a table (contiguous when the
// batch does not wrap at 256), with a second read before the write: both
// reads see the element before the write.
// VARIANT-PARAMS: swap_table_masked ulv
float swap_table_masked(float t[static 256], char i, float x) {
  float *q = &t[(unsigned char)i];
  if (x < 0.75f) {
    float a = *q;
    float b = q[0] * 2.0f;
    *q = x;
    return a + b;
  }
  return x;
}
