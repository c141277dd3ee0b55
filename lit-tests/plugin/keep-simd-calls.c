// clang + the plugin, one compile: before the inliner, the calls in
// `omp simd` loops of `declare simd` functions whose inlined body the loop
// vectorizer could not widen (a loop, a libm call) are marked `noinline`
// (callers::keep_simd_calls), so the loop calls the variant; a
// straight-line function is inlined and widened as before.
//
// RUN: %clang -O2 -fopenmp-simd -march=x86-64-v3 -fpass-plugin=%plugin -S -emit-llvm -o %t.ll %s
// RUN: FileCheck %s < %t.ll

#pragma omp declare simd notinbranch
float halve(float x) {
    float y = x;
    while (y > 1.0f) y *= 0.5f;
    return y;
}

#pragma omp declare simd notinbranch
float square(float x) { return x > 0.0f ? x * x + 1.0f : -x; }

// CHECK-LABEL: define {{.*}}void @loop_halve(
// CHECK: call <8 x float> @_ZGVdN8v_halve(<8 x float>
void loop_halve(float *restrict o, const float *restrict a, int n) {
#pragma omp simd
    for (int i = 0; i < n; i++) o[i] = halve(a[i]);
}

// CHECK-LABEL: define {{.*}}void @loop_square(
// CHECK-NOT: call {{.*}}square
// CHECK: call <8 x float> @llvm.fmuladd.v8f32(
// CHECK-NOT: call {{.*}}square
// CHECK: ret void
void loop_square(float *restrict o, const float *restrict a, int n) {
#pragma omp simd
    for (int i = 0; i < n; i++) o[i] = square(a[i]);
}
