; Masked (`M`) variants take one more parameter, the mask, whose type depends
; on the ISA letter: `<N x i1>` for `_LLVM_`, a vector of the characteristic
; type (here `<8 x float>`) for x86 `b`/`c`/`d`, an integer bitmask (`i16`
; for 16 lanes) for `e`. A lane is active when its mask element is nonzero
; (for a float mask: any bit set, so `-0.0` counts as set). A clone called
; with no active lane returns `poison` at once, and a store only writes the
; active lanes.
;
; -O0 shows how each mask kind becomes an `<N x i1>` and the early return of a
; pure function (which -O2 folds away: computing the inactive lanes is
; harmless).
; RUN: %batchify %s -S -O0 -o %t0.ll --variant _ZGV_LLVM_M4v_f --variant _ZGVdM8v_f \
; RUN:   --variant _ZGVeM16v_f --no-fallback 2> %t0.err
; RUN: count 0 < %t0.err
; RUN: FileCheck %s --check-prefix=O0 < %t0.ll
;
; -O2 on a function with a store: the early return stays, and the store is a
; masked scatter with the `<N x i1>` mask.
; RUN: %batchify %s -S -o %t2.ll --variant _ZGV_LLVM_M4vv_sti --variant _ZGVdM8vv_sti \
; RUN:   --variant _ZGVeM16vv_sti --no-fallback
; RUN: FileCheck %s --check-prefix=O2 < %t2.ll

define float @f(float %x) {
  %r = fmul float %x, %x
  ret float %r
}

define float @sti(ptr %p, float %x) {
  %y = fadd float %x, 1.0
  store float %y, ptr %p
  ret float %y
}

; O0-LABEL: define <4 x float> @_ZGV_LLVM_M4v_f(
; O0-SAME:    <4 x float> [[X:%[^,]+]], <4 x i1> [[M:%[^)]+]])
; O0:         [[ANY:%.*]] = call i1 @llvm.vector.reduce.or.v4i1(<4 x i1> [[M]])
; O0-NEXT:    br i1 [[ANY]], label %{{[^,]+}}, label %[[NONE:[^ ]+]]
; O0:       {{^}}[[NONE]]:
; O0-NEXT:    ret <4 x float> poison
; O0:         fmul <4 x float> [[X]], [[X]]

; O0-LABEL: define <8 x float> @_ZGVdM8v_f(
; O0-SAME:    <8 x float> [[X:%[^,]+]], <8 x float> [[M:%[^)]+]])
; O0:         [[BITS:%.*]] = bitcast <8 x float> [[M]] to <8 x i32>
; O0-NEXT:    [[ACT:%.*]] = icmp ne <8 x i32> [[BITS]], zeroinitializer
; O0-NEXT:    [[ANY:%.*]] = call i1 @llvm.vector.reduce.or.v8i1(<8 x i1> [[ACT]])
; O0-NEXT:    br i1 [[ANY]], label %{{[^,]+}}, label %[[NONE:[^ ]+]]
; O0:       {{^}}[[NONE]]:
; O0-NEXT:    ret <8 x float> poison
; O0:         fmul <8 x float> [[X]], [[X]]

; O0-LABEL: define <16 x float> @_ZGVeM16v_f(
; O0-SAME:    <16 x float> [[X:%[^,]+]], i16 [[M:%[^)]+]])
; O0:         [[ACT:%.*]] = bitcast i16 [[M]] to <16 x i1>
; O0-NEXT:    [[ANY:%.*]] = call i1 @llvm.vector.reduce.or.v16i1(<16 x i1> [[ACT]])
; O0-NEXT:    br i1 [[ANY]], label %{{[^,]+}}, label %[[NONE:[^ ]+]]
; O0:       {{^}}[[NONE]]:
; O0-NEXT:    ret <16 x float> poison
; O0:         fmul <16 x float> [[X]], [[X]]

; O2-LABEL: define <4 x float> @_ZGV_LLVM_M4vv_sti(
; O2-SAME:    <4 x ptr> [[P:%[^,]+]], <4 x float> [[X:%[^,]+]], <4 x i1> [[M:%[^)]+]])
; The mask goes through a volatile slot (finish/mask_params.rs: LLVM 22's
; EVEX compression must find no `vpmovb2m` to erase).
; O2:         [[STORED:%.*]] = bitcast <4 x i1> [[M]] to i4
; O2-NEXT:    store volatile i4 [[STORED]], ptr [[SLOT:%[^,]+]]
; O2-NEXT:    [[BITS:%.*]] = load volatile i4, ptr [[SLOT]]
; O2-NEXT:    [[RM:%.*]] = bitcast i4 [[BITS]] to <4 x i1>
; O2-NEXT:    [[NONE:%.*]] = icmp eq i4 [[BITS]], 0
; O2-NEXT:    br i1 [[NONE]], label %[[RET:[^,]+]], label %[[START:[^ ]+]]
; O2:       {{^}}[[RET]]:
; O2-NEXT:    [[R:%.*]] = phi <4 x float> [ [[Y:%[^,]+]], %[[START]] ], [ poison, %entry ]
; O2-NEXT:    ret <4 x float> [[R]]
; O2:       {{^}}[[START]]:
; O2:         [[Y]] = fadd <4 x float> [[X]], splat (float 1.000000e+00)
; O2-NEXT:    call void @llvm.masked.scatter.v4f32.v4p0(<4 x float> [[Y]], <4 x ptr> align 4 [[P]], <4 x i1> [[RM]])

; The float mask is tested with `llvm.is.fpclass` for every class but +0.0,
; i.e. "any bit set".
; Eight pointers are wider than a ymm register: two <4 x ptr> pieces (GCC's ABI).
; O2-LABEL: define <8 x float> @_ZGVdM8vv_sti(
; O2-SAME:    <4 x ptr> {{%[^,]+}}, <4 x ptr> {{%[^,]+}}, <8 x float> [[X:%[^,]+]], <8 x float> [[M:%[^)]+]])
; O2:         [[ACT:%.*]] = {{icmp ne <8 x i32> .*, zeroinitializer|fcmp une <8 x float> .*, zeroinitializer|call <8 x i1> @llvm.is.fpclass.v8f32\(<8 x float> %[^,]+, i32 959\)}}
; The mask crosses into the next block at full width (finish/masks.rs), and
; the scatter there reads it with `icmp ne`, not the sign test other readers
; use: LLVM 22's EVEX compression erased the `vpmovd2m` of a sign test that a
; gather or scatter still read, on AVX-512 hosts (llvm/llvm-project#198197).
; O2:         [[WIDE:%.*]] = sext <8 x i1> [[ACT]] to <8 x i32>
; O2:         [[NONE:%.*]] = icmp eq i8 {{%.*}}, 0
; O2-NEXT:    br i1 [[NONE]], label %[[RET:[^,]+]], label %[[START:[^ ]+]]
; O2:       {{^}}[[RET]]:
; O2-NEXT:    phi <8 x float> [ {{%[^,]+}}, %[[START]] ], [ poison, %entry ]
; O2:         [[SCATTER_MASK:%.*]] = icmp ne <8 x i32> [[WIDE]], zeroinitializer
; O2-NEXT:    call void @llvm.masked.scatter.v8f32.v8p0(<8 x float> {{%.*}}, <8 x ptr> align 4 {{%[^,]+}}, <8 x i1> [[SCATTER_MASK]])

; O2-LABEL: define <16 x float> @_ZGVeM16vv_sti(
; O2-SAME:    <8 x ptr> {{%[^,]+}}, <8 x ptr> {{%[^,]+}}, <16 x float> [[X:%[^,]+]], i16 [[M:%[^)]+]])
; O2:         [[NONE:%.*]] = icmp eq i16 [[M]], 0
; O2-NEXT:    br i1 [[NONE]], label %[[RET:[^,]+]], label %[[START:[^ ]+]]
; O2:       {{^}}[[RET]]:
; O2-NEXT:    phi <16 x float> [ {{%[^,]+}}, %[[START]] ], [ poison, %entry ]
; O2:       {{^}}[[START]]:
; O2-NEXT:    [[ACT:%.*]] = bitcast i16 [[M]] to <16 x i1>
; O2:         call void @llvm.masked.scatter.v16f32.v16p0(<16 x float> {{%.*}}, <16 x ptr> align 4 {{%[^,]+}}, <16 x i1> [[ACT]])
