; --print-plan: fields of an array of two-float structs, read and written
; at a varying element index, are wide accesses of stride 2; a stride of 3
; elements is a gather and a scatter.
;
; RUN: %batchify %s -o /dev/null --print-plan --variant _ZGVdN8ul_aos2 --variant _ZGVdN8ul_aos3 2> %t
; RUN: FileCheck %s < %t

%P2 = type { float, float }
%P3 = type { float, float, float }

define void @aos2(ptr %a, i64 %i) {
  %px = getelementptr inbounds %P2, ptr %a, i64 %i, i32 0
  %x = load float, ptr %px, align 4
  %py = getelementptr inbounds %P2, ptr %a, i64 %i, i32 1
  store float %x, ptr %py, align 4
  ret void
}

define void @aos3(ptr %a, i64 %i) {
  %px = getelementptr inbounds %P3, ptr %a, i64 %i, i32 0
  %x = load float, ptr %px, align 4
  %py = getelementptr inbounds %P3, ptr %a, i64 %i, i32 1
  store float %x, ptr %py, align 4
  ret void
}

; CHECK-LABEL: plan of `aos2` for `_ZGVdN8ul_aos2`
; CHECK:         load wide access, stride 2 elements: %x = load float
; CHECK:         store wide access, stride 2 elements: store float %x

; CHECK-LABEL: plan of `aos3` for `_ZGVdN8ul_aos3`
; CHECK:         load gather (the stride is not 1 or 2 elements): %x = load float
; CHECK:         store scatter (the stride is not 1 or 2 elements): store float %x
