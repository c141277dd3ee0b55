; -O0 leaves the clone as built: uniform values are broadcast with an
; explicit insertelement/shufflevector pair (in the entry block, which at -O0
; then branches to the body), and per-lane code extracts every lane. The default -O2 (and -O1) clean the clone up: the splat folds away,
; lane 0 of a linear value becomes the scalar base, and a variable linear
; step is computed in i32 instead of sext/mul i64/trunc.
;
; RUN: %batchify %s -S -O0 -o %t0.ll --variant _ZGV_LLVM_N4vu_addsub \
; RUN:   --variant _ZGV_LLVM_N4l_lin_ext --variant _ZGV_LLVM_N4ls1u_varstep
; RUN: FileCheck %s --check-prefix=O0 < %t0.ll
; RUN: %batchify %s -S -o %t2.ll --variant _ZGV_LLVM_N4vu_addsub \
; RUN:   --variant _ZGV_LLVM_N4l_lin_ext --variant _ZGV_LLVM_N4ls1u_varstep
; RUN: FileCheck %s --check-prefix=O2 < %t2.ll
; RUN: %batchify %s -S -O1 -o %t1.ll --variant _ZGV_LLVM_N4vu_addsub
; RUN: FileCheck %s --check-prefix=O1 < %t1.ll

define i32 @addsub(i32 %x, i32 %u) {
  %t = add i32 %x, %u
  %r = sub i32 %t, %u
  ret i32 %r
}

declare i32 @ext(i32)

define i32 @lin_ext(i32 %i) {
  %c = call i32 @ext(i32 %i)
  ret i32 %c
}

define i32 @varstep(i32 %i, i32 %s) {
  %r = add i32 %i, 7
  ret i32 %r
}

; O0-LABEL: define <4 x i32> @_ZGV_LLVM_N4vu_addsub(
; O0-SAME:    <4 x i32> [[X:%[^,]+]], i32 [[U:%[^)]+]])
; O0:         [[INS:%.*]] = insertelement <4 x i32> poison, i32 [[U]], i32 0
; O0-NEXT:    [[SPL:%.*]] = shufflevector <4 x i32> [[INS]], <4 x i32> poison, <4 x i32> zeroinitializer
; O0:         [[T:%.*]] = add <4 x i32> [[X]], [[SPL]]
; O0-NEXT:    [[R:%.*]] = sub <4 x i32> [[T]], [[SPL]]
; O0-NEXT:    ret <4 x i32> [[R]]
; O0-LABEL: define <4 x i32> @_ZGV_LLVM_N4l_lin_ext(
; O0-SAME:    i32 [[I:%[^)]+]])
; O0:         [[LIN:%.*]] = add <4 x i32> {{%.*}}, <i32 0, i32 1, i32 2, i32 3>
; O0:         [[L0:%.*]] = extractelement <4 x i32> [[LIN]], i32 0
; O0-NEXT:    call i32 @ext(i32 [[L0]])
; O0-LABEL: define <4 x i32> @_ZGV_LLVM_N4ls1u_varstep(
; O0:         sext i32 {{%.*}} to i64
; O0:         mul <4 x i64> <i64 0, i64 1, i64 2, i64 3>,
; O0-NEXT:    trunc <4 x i64> {{%.*}} to <4 x i32>

; O2-LABEL: define <4 x i32> @_ZGV_LLVM_N4vu_addsub(
; O2-SAME:    <4 x i32> [[X:%[^,]+]], i32 {{%[^)]+}})
; O2-NEXT:  {{^}}entry:
; O2-NEXT:    ret <4 x i32> [[X]]
; O2-NEXT:  }
; O2-LABEL: define <4 x i32> @_ZGV_LLVM_N4l_lin_ext(
; O2-SAME:    i32 [[I:%[^)]+]])
; O2-NOT:     extractelement <4 x i32> {{%.*}}, i64 0
; O2:         call i32 @ext(i32 [[I]])
; O2-COUNT-3: call i32 @ext(i32
; O2-LABEL: define <4 x i32> @_ZGV_LLVM_N4ls1u_varstep(
; O2-NOT:     {{sext|trunc|<4 x i64>}}
; O2:         mul <4 x i32> {{.*}}<i32 0, i32 1, i32 2, i32 3>
; O2-NOT:     {{sext|trunc|<4 x i64>}}
; O2:         ret <4 x i32>

; O1-LABEL: define <4 x i32> @_ZGV_LLVM_N4vu_addsub(
; O1-SAME:    <4 x i32> [[X:%[^,]+]], i32 {{%[^)]+}})
; O1-NEXT:  {{^}}entry:
; O1-NEXT:    ret <4 x i32> [[X]]
