; Functions whose `memory(argmem: ...)` attribute is right for the scalar
; signature but not for a clone with `<N x ptr>` parameters, which LLVM's
; alias analysis does not count as pointer arguments (issue 6, defect 2:
; zlib's adler32_z). The oracle's -O2 callers must see the difference.

; Writes through its argument only.
define void @fill(ptr %p, i32 %x) memory(argmem: write) {
  store i32 %x, ptr %p, align 4
  %q = getelementptr inbounds i8, ptr %p, i64 4
  %y = add i32 %x, 1
  store i32 %y, ptr %q, align 4
  ret void
}

; Reads through its argument only (a checksum, like adler32).
define i32 @sum4(ptr %p) memory(argmem: read) {
  %a = load i32, ptr %p, align 4
  %q1 = getelementptr inbounds i8, ptr %p, i64 4
  %b = load i32, ptr %q1, align 4
  %q2 = getelementptr inbounds i8, ptr %p, i64 8
  %c = load i32, ptr %q2, align 4
  %s1 = add i32 %a, %b
  %s2 = mul i32 %s1, 31
  %s3 = add i32 %s2, %c
  ret i32 %s3
}
