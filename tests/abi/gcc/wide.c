// Callee TU for the GCC interoperability test (gcc_interop.rs): compiled by
// clang-22 -march=x86-64-v3 -fopenmp-simd, clones built by batchify, called
// from GCC 12 loops built for SSE2, AVX, AVX2 and AVX-512F (wide_caller.c).
// bar: 8 x i64 result wider than the AVX2 register (returned in memory), args
// split over registers. foo, foo8: AVX integer variants (GCC's 128-bit names
// and registers). deref: a vector of pointers (xmm pieces on SSE/AVX).
#pragma omp declare simd simdlen(8) notinbranch
long bar(long a, long b, long c) { return a * b + c; }
#pragma omp declare simd
int foo(int x) { return x * 3 + 1; }
#pragma omp declare simd simdlen(8)
int foo8(int x, int y) { return x > y ? x - y : y * 2; }
#pragma omp declare simd notinbranch
double deref(const double *p) { return *p * 2.0 + 1.0; }
