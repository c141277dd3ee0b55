// clang + the plugin, one compile: a caller that sees only the declaration
// of a `declare simd` function (its body is in another translation unit)
// gets its call sites annotated, the variants declared and kept alive, and
// LLVM's loop vectorizer then calls the AVX2 variant: in an `omp simd` loop
// and in a plain loop.
//
// RUN: %clang -O2 -fopenmp-simd -march=x86-64-v3 -ffp-contract=off -fpass-plugin=%plugin \
// RUN:   -S -emit-llvm -o %t.ll %s
// RUN: FileCheck %s < %t.ll
// RUN: FileCheck %s --check-prefix=USED < %t.ll
// Without the plugin the loops stay scalar calls.
// RUN: %clang -O2 -fopenmp-simd -march=x86-64-v3 -ffp-contract=off -S -emit-llvm -o - %s \
// RUN:   | FileCheck %s --check-prefix=PLAIN
// `-mllvm -batchify-no-callers` leaves the call sites alone.
// RUN: %clang -O2 -fopenmp-simd -march=x86-64-v3 -ffp-contract=off -fpass-plugin=%plugin \
// RUN:   -mllvm -batchify-no-callers -S -emit-llvm -o - %s | FileCheck %s --check-prefix=PLAIN

#pragma omp declare simd notinbranch
float kern(float x, float y);

// CHECK-LABEL: define {{.*}}void @simd_loop(
// CHECK: call {{.*}}<8 x float> @_ZGVdN8vv_kern(<8 x float>
// PLAIN-LABEL: define {{.*}}void @simd_loop(
// PLAIN-NOT: _ZGV
// PLAIN: call {{.*}}float @kern(float
void simd_loop(float *restrict out, const float *a, const float *b, int n) {
#pragma omp simd
    for (int i = 0; i < n; i++)
        out[i] = kern(a[i], b[i]);
}

// CHECK-LABEL: define {{.*}}void @plain_loop(
// CHECK: call {{.*}}<8 x float> @_ZGVdN8vv_kern(<8 x float>
void plain_loop(float *restrict out, const float *restrict a, const float *restrict b, int n) {
    for (int i = 0; i < n; i++)
        out[i] = kern(a[i], b[i]);
}

// The variants stay declared and alive for the linker.
// USED: @llvm.compiler.used = {{.*}}@_ZGVdN8vv_kern
// USED: declare {{.*}}<8 x float> @_ZGVdN8vv_kern(<8 x float>, <8 x float>)
