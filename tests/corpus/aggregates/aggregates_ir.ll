; Aggregates corpus (IR): the forms that SROA leaves to clang and rustc
; only sometimes, written out: aggregate phis in divergent loops, selects of
; aggregates on varying conditions, nested structs and arrays built with
; multi-index insertvalue, freeze, and whole-aggregate loads and stores.
; See README.md.

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"

; A `{ float, i32 }` carried through a divergent loop by phis; the result
; is a field of the live-out.
define float @agg_loop_phi(float %x, i32 %n) {
entry:
  %s0 = insertvalue { float, i32 } poison, float %x, 0
  %s1 = insertvalue { float, i32 } %s0, i32 0, 1
  %lim = and i32 %n, 15
  br label %loop

loop:
  %s = phi { float, i32 } [ %s1, %entry ], [ %next, %body ]
  %i = extractvalue { float, i32 } %s, 1
  %done = icmp uge i32 %i, %lim
  br i1 %done, label %exit, label %body

body:
  %f = extractvalue { float, i32 } %s, 0
  %f2 = fmul float %f, 1.5
  %f3 = fadd float %f2, -0.25
  %i2 = add i32 %i, 1
  %t = insertvalue { float, i32 } %s, float %f3, 0
  %next = insertvalue { float, i32 } %t, i32 %i2, 1
  br label %loop

exit:
  %r = extractvalue { float, i32 } %s, 0
  %ri = extractvalue { float, i32 } %s, 1
  %rf = sitofp i32 %ri to float
  %sum = fadd float %r, %rf
  ret float %sum
}

; A select of two aggregates on a varying condition, and one on a uniform
; condition; the result is returned whole.
define { i32, { float, i8 } } @agg_select(i32 %a, float %b, i1 %u) {
entry:
  %c = icmp sgt i32 %a, 7
  %p0 = insertvalue { i32, { float, i8 } } poison, i32 %a, 0
  %p1 = insertvalue { i32, { float, i8 } } %p0, float %b, 1, 0
  %p = insertvalue { i32, { float, i8 } } %p1, i8 1, 1, 1
  %nb = fneg float %b
  %a2 = mul i32 %a, 5
  %q0 = insertvalue { i32, { float, i8 } } poison, i32 %a2, 0
  %q1 = insertvalue { i32, { float, i8 } } %q0, float %nb, 1, 0
  %q = insertvalue { i32, { float, i8 } } %q1, i8 2, 1, 1
  %s = select i1 %c, { i32, { float, i8 } } %p, { i32, { float, i8 } } %q
  %t = select i1 %u, { i32, { float, i8 } } %s, { i32, { float, i8 } } %q
  ret { i32, { float, i8 } } %t
}

; A `[4 x i32]` built element by element, one element replaced under a
; divergent branch, then folded.
define i32 @agg_array(i32 %x, i32 %k) {
entry:
  %a0 = insertvalue [4 x i32] poison, i32 %x, 0
  %x1 = add i32 %x, 1
  %a1 = insertvalue [4 x i32] %a0, i32 %x1, 1
  %x2 = shl i32 %x, 2
  %a2 = insertvalue [4 x i32] %a1, i32 %x2, 2
  %x3 = xor i32 %x, 21845
  %a3 = insertvalue [4 x i32] %a2, i32 %x3, 3
  %c = icmp ult i32 %k, 100
  br i1 %c, label %then, label %join

then:
  %e2 = extractvalue [4 x i32] %a3, 2
  %e2b = mul i32 %e2, %k
  %b = insertvalue [4 x i32] %a3, i32 %e2b, 2
  br label %join

join:
  %arr = phi [4 x i32] [ %a3, %entry ], [ %b, %then ]
  %v0 = extractvalue [4 x i32] %arr, 0
  %v1 = extractvalue [4 x i32] %arr, 1
  %v2 = extractvalue [4 x i32] %arr, 2
  %v3 = extractvalue [4 x i32] %arr, 3
  %s1 = add i32 %v0, %v1
  %s2 = mul i32 %v2, 3
  %s3 = sub i32 %s1, %s2
  %s4 = xor i32 %s3, %v3
  ret i32 %s4
}

; A `[2 x { double, i64 }]` result (nested multi-index insertvalue) with
; a frozen field that may be poison.
define [2 x { double, i64 }] @agg_nested_ret(double %d, i64 %n) {
entry:
  %r0 = insertvalue [2 x { double, i64 }] poison, double %d, 0, 0
  %n2 = shl nsw i64 %n, 3
  %r1 = insertvalue [2 x { double, i64 }] %r0, i64 %n2, 0, 1
  %h = fmul double %d, 0.5
  %r2 = insertvalue [2 x { double, i64 }] %r1, double %h, 1, 0
  %r3 = insertvalue [2 x { double, i64 }] %r2, i64 %n, 1, 1
  %fr = freeze [2 x { double, i64 }] %r3
  ret [2 x { double, i64 }] %fr
}

; Whole-aggregate stores and loads through a private slot (per lane), and
; an overflow intrinsic in a divergent branch.
define i64 @agg_memory(i64 %a, i64 %b) {
entry:
  %slot = alloca { i64, i1 }, align 8
  %r = call { i64, i1 } @llvm.umul.with.overflow.i64(i64 %a, i64 %b)
  store { i64, i1 } %r, ptr %slot, align 8
  %c = icmp ugt i64 %a, 1000
  br i1 %c, label %big, label %done

big:
  %s = call { i64, i1 } @llvm.sadd.with.overflow.i64(i64 %a, i64 %b)
  store { i64, i1 } %s, ptr %slot, align 8
  br label %done

done:
  %l = load { i64, i1 }, ptr %slot, align 8
  %v = extractvalue { i64, i1 } %l, 0
  %o = extractvalue { i64, i1 } %l, 1
  %oz = zext i1 %o to i64
  %res = add i64 %v, %oz
  ret i64 %res
}

; A struct result with a vector field `{ <2 x float>, i16 }`: the clone
; holds it as `{ <2N x float>, <N x i16> }` and returns a lane array.
define { <2 x float>, i16 } @agg_vector_field(float %x, i16 %h) {
entry:
  %v0 = insertelement <2 x float> poison, float %x, i64 0
  %y = fmul float %x, %x
  %v1 = insertelement <2 x float> %v0, float %y, i64 1
  %c = icmp slt i16 %h, 0
  %hn = sub i16 0, %h
  %ha = select i1 %c, i16 %hn, i16 %h
  %s0 = insertvalue { <2 x float>, i16 } poison, <2 x float> %v1, 0
  %s1 = insertvalue { <2 x float>, i16 } %s0, i16 %ha, 1
  ret { <2 x float>, i16 } %s1
}

; Whole-aggregate loads and stores at varying addresses (once per lane),
; the store under a divergent branch.
; VARIANT-PARAMS: agg_load_store ulv
define float @agg_load_store(ptr dereferenceable(2048) %t, i8 %i, float %x) {
entry:
  %idx = zext i8 %i to i64
  %p = getelementptr inbounds { float, i32 }, ptr %t, i64 %idx
  %s = load { float, i32 }, ptr %p, align 4
  %f = extractvalue { float, i32 } %s, 0
  %c = fcmp ogt float %x, %f
  br i1 %c, label %st, label %done

st:
  %n = extractvalue { float, i32 } %s, 1
  %n1 = add i32 %n, 1
  %s2 = insertvalue { float, i32 } %s, float %x, 0
  %s3 = insertvalue { float, i32 } %s2, i32 %n1, 1
  store { float, i32 } %s3, ptr %p, align 4
  br label %done

done:
  %r = phi float [ %x, %st ], [ %f, %entry ]
  ret float %r
}

declare { i64, i1 } @llvm.umul.with.overflow.i64(i64, i64)
declare { i64, i1 } @llvm.sadd.with.overflow.i64(i64, i64)
