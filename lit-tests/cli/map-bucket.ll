; Bucketed maps (`--bucket KEY`, docs/cli.md "Bucketed maps"): the shape of
; the map's body, the report line, the plugin's `bucket=` parameter and
; `-batchify-bucket=` option, and the refusals (one error line, exit status
; 1, no output file). Execution checks: crates/batchify-testkit/tests/map_bucket.rs.
;
; RUN: %batchify %s -o %t.ll -S --variant _ZGVdN8vv_escape --map --bucket escape_key --report 2> %t.err
; RUN: FileCheck %s < %t.ll
; RUN: FileCheck %s --check-prefix=REPORT < %t.err
; RUN: %opt -load-pass-plugin=%plugin -passes='batchify<variant=_ZGVdN8vv_escape;map;bucket=escape_key>' %s -S \
; RUN:   | FileCheck %s
; RUN: %opt -load-pass-plugin=%plugin -passes=batchify -batchify-variant=_ZGVdN8vv_escape -batchify-map \
; RUN:   -batchify-bucket=escape_key %s -S | FileCheck %s
;
; DEFINE: %{fails} = rm -f %t.out && not %batchify %s -o %t.out --map
; DEFINE: %{clean} = count 1 < %t.bad && test ! -e %t.out
; RUN: %{fails} --variant _ZGVdN8vv_escape --bucket wide_key 2> %t.bad
; RUN: FileCheck %s --check-prefix=TYPE < %t.bad
; RUN: %{clean}
; RUN: %{fails} --variant _ZGVdN8v_noisy --bucket noisy_key 2> %t.bad
; RUN: FileCheck %s --check-prefix=WRITES < %t.bad
; RUN: %{clean}
; RUN: %{fails} --variant _ZGVdN8l4_noisy_pure --bucket noisy_pure_key 2> %t.bad
; RUN: FileCheck %s --check-prefix=LINEAR < %t.bad
; RUN: %{clean}

; REPORT: batchify: map: escape_map over 8 lanes of _ZGVdN8vv_escape, bucketed by `escape_key` in windows of 4096

; The window's sort on the stack: positions, buckets, counts.
; CHECK-LABEL: define void @escape_map(i64 %n, ptr %cr, ptr %ci, ptr %out)
; CHECK: alloca [4096 x i32]
; CHECK: alloca [4096 x i8]
; CHECK: alloca [256 x i32]
; CHECK: alloca [4096 x i8]
; The window's keys by the key's own clones, then each at most bucket 255.
; CHECK: window:
; CHECK: call void @__batchify_keys.escape_map(i64 %{{.*}}, i64 %{{.*}}, ptr %cr, ptr %ci, ptr %
; CHECK: key:
; CHECK: load i8, ptr %
; Groups of sorted elements: 32-bit positions, gathers, the unmasked
; variant, a scatter to the elements' own results.
; CHECK: group:
; CHECK: load <8 x i32>
; CHECK: getelementptr float, ptr %{{.*}}, <8 x i32>
; CHECK: call <8 x float> @llvm.masked.gather.v8f32.v8p0
; CHECK: call <8 x i32> @_ZGVdN8vv_escape(
; CHECK: call void @llvm.masked.scatter.v8i32.v8p0
; The tail through the masked twin.
; CHECK: tail:
; CHECK: call <8 x i32> @llvm.masked.load.v8i32.p0
; CHECK: call <8 x i32> @_ZGVdM8vv_escape(
; CHECK: call void @llvm.masked.scatter.v8i32.v8p0({{.*}}, <8 x i1> %
; The key map: the key's unmasked clone on full groups, the masked one on the tail.
; CHECK-LABEL: define internal void @__batchify_keys.escape_map(
; CHECK: call <8 x i8> @_ZGVdN8vv_escape_key(
; CHECK: call <8 x i8> @_ZGVdM8vv_escape_key(

; TYPE: {{^}}batchify: error: cannot build the map `escape_map`: --bucket: `wide_key` is `i32 (float)`; a key of `escape` takes its parameters, `i32 (float, float)`{{$}}
; WRITES: {{^}}batchify: error: cannot build the map `noisy_map`: --bucket: the function `noisy` may write memory (no `memory(none)` or `memory(read)` attribute); a bucketed map computes the elements in another order, so neither may have side effects{{$}}
; LINEAR: {{^}}batchify: error: cannot build the map `noisy_pure_map`: --bucket: parameter 0 of `_ZGVdN8l4_noisy_pure` is linear, and a group of sorted elements gives it no base and step{{$}}

@sink = global i32 0

define i32 @escape(float %cr, float %ci) #0 {
entry:
  br label %loop
loop:
  %zr = phi float [ 0.0, %entry ], [ %nzr, %body ]
  %zi = phi float [ 0.0, %entry ], [ %nzi, %body ]
  %k = phi i32 [ 0, %entry ], [ %k1, %body ]
  %rr = fmul float %zr, %zr
  %ii = fmul float %zi, %zi
  %m = fadd float %rr, %ii
  %out = fcmp ogt float %m, 4.0
  br i1 %out, label %exit, label %body
body:
  %d = fsub float %rr, %ii
  %nzr = fadd float %d, %cr
  %ri = fmul float %zr, %zi
  %ri2 = fadd float %ri, %ri
  %nzi = fadd float %ri2, %ci
  %k1 = add i32 %k, 1
  %cap = icmp ult i32 %k1, 64
  br i1 %cap, label %loop, label %exit
exit:
  %r = phi i32 [ %k, %loop ], [ %k1, %body ]
  ret i32 %r
}

define i8 @escape_key(float %cr, float %ci) #0 {
  %m = fmul float %cr, %ci
  %c = fptoui float %m to i8
  ret i8 %c
}

define i32 @wide_key(float %cr) #0 {
  ret i32 0
}

define i32 @noisy(i32 %x) {
  store i32 %x, ptr @sink
  ret i32 %x
}

define i32 @noisy_key(i32 %x) #0 {
  ret i32 %x
}

define i32 @noisy_pure(i32 %x) #0 {
  %y = mul i32 %x, 3
  ret i32 %y
}

define i32 @noisy_pure_key(i32 %x) #0 {
  ret i32 %x
}

attributes #0 = { memory(none) }
