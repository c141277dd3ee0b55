// `#pragma omp declare simd` in C: clang names the variants in string
// attributes on the scalar function; batchify without --function/--variant
// builds every one of them.
//
// RUN: %clang -O2 -fopenmp-simd -S -emit-llvm %s -o %t.ll
// RUN: %batchify %t.ll -S -o %t.out.ll --report 2> %t.report
// RUN: FileCheck %s < %t.out.ll
// RUN: FileCheck %s --check-prefix=REPORT < %t.report
//
// Without `notinbranch` clang also asks for masked (M) variants: they are
// built too, each with an extra mask parameter (a vector of the
// characteristic type for b/c/d, an integer bitmask for e), and nothing is
// printed on stderr without --report.
// RUN: %clang -O2 -fopenmp-simd -DWITH_MASKED -S -emit-llvm %s -o %t.m.ll
// RUN: %batchify %t.m.ll -S -o %t.m.out.ll 2> %t.m.err
// RUN: count 0 < %t.m.err
// RUN: FileCheck %s --check-prefix=MASKED < %t.m.out.ll

#pragma omp declare simd notinbranch uniform(e0, e1)
float smoothstep(float e0, float e1, float x) {
  float t = (x - e0) / (e1 - e0);
  t = t < 0.0f ? 0.0f : t;
  t = t > 1.0f ? 1.0f : t;
  return t * t * (3.0f - 2.0f * t);
}

#pragma omp declare simd notinbranch simdlen(4) linear(i)
int ramp(int i, int k) { return i * 2 + k; }

#ifdef WITH_MASKED
#pragma omp declare simd simdlen(4)
float sq(float x) { return x * x; }
#endif

// The scalar functions stay, with their attributes.
// CHECK: define dso_local float @smoothstep({{.*}}) {{.*}}#[[SCALAR:[0-9]+]]
// CHECK: define dso_local i32 @ramp(

// One clone per ISA, uniform edges scalar, x varying.
// CHECK-LABEL: define <4 x float> @_ZGVbN4uuv_smoothstep(float {{%.*}}, float {{%.*}}, <4 x float> {{%.*}})
// CHECK-LABEL: define <8 x float> @_ZGVcN8uuv_smoothstep(float {{%.*}}, float {{%.*}}, <8 x float> {{%.*}})
// CHECK-LABEL: define <8 x float> @_ZGVdN8uuv_smoothstep(
// CHECK-SAME:    float [[E0:%[^,]+]], float [[E1:%[^,]+]], <8 x float> [[X:%[^)]+]])
// CHECK:         [[D:%.*]] = fsub float [[E1]], [[E0]]
// CHECK-NOT:     fsub <8 x float> {{.*}}[[E1]]
// CHECK:         fdiv <8 x float>
// CHECK:         call <8 x float> @llvm.fmuladd.v8f32(
// CHECK:         ret <8 x float>
// CHECK-LABEL: define <16 x float> @_ZGVeN16uuv_smoothstep(float {{%.*}}, float {{%.*}}, <16 x float> {{%.*}})

// linear(i): lane k gets i + k.
// CHECK-LABEL: define <4 x i32> @_ZGVbN4lv_ramp(
// CHECK-SAME:    i32 [[I:%[^,]+]], <4 x i32> [[K:%[^)]+]])
// CHECK:         add <4 x i32> {{%.*}}, <i32 0, i32 1, i32 2, i32 3>
// CHECK-LABEL: define <4 x i32> @_ZGVcN4lv_ramp(
// CHECK-LABEL: define <4 x i32> @_ZGVdN4lv_ramp(
// CHECK-LABEL: define <4 x i32> @_ZGVeN4lv_ramp(
// CHECK-NOT:   define {{.*}}@_ZGV

// The attributes that requested the variants stay on the scalar function.
// CHECK: attributes #[[SCALAR]] = { {{.*}}"_ZGVbN4uuv_smoothstep" "_ZGVcN8uuv_smoothstep" "_ZGVdN8uuv_smoothstep" "_ZGVeN16uuv_smoothstep"

// REPORT-DAG: batchify: smoothstep -> _ZGVbN4uuv_smoothstep: 4 lanes, {{[0-9]+}} vector instruction(s), 1 uniform, 0 per-lane
// REPORT-DAG: batchify: smoothstep -> _ZGVeN16uuv_smoothstep: 16 lanes, {{[0-9]+}} vector instruction(s), 1 uniform, 0 per-lane
// REPORT-DAG: batchify: ramp -> _ZGVdN4lv_ramp: 4 lanes,

// MASKED-DAG: define <4 x float> @_ZGVbM4v_sq(<4 x float> {{%[^,]+}}, <4 x float> {{%[^)]+}})
// MASKED-DAG: define <4 x float> @_ZGVcM4v_sq(<4 x float> {{%[^,]+}}, <4 x float> {{%[^)]+}})
// MASKED-DAG: define <4 x float> @_ZGVdM4v_sq(<4 x float> {{%[^,]+}}, <4 x float> {{%[^)]+}})
// MASKED-DAG: define <4 x float> @_ZGVeM4v_sq(<4 x float> {{%[^,]+}}, i8 {{%[^)]+}})
// MASKED-DAG: define <4 x float> @_ZGVbN4v_sq(<4 x float> {{%[^)]+}})
// MASKED-DAG: define <4 x float> @_ZGVeN4v_sq(<4 x float> {{%[^)]+}})
// MASKED-DAG: define <8 x float> @_ZGVdN8uuv_smoothstep(
