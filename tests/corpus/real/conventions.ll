; Functions with linkages and calling conventions other than external C,
; as rustc and clang emit them. Checked by
; crates/batchify-testkit/tests/oracle_real.rs.

; clang/rustc make internal functions fastcc.
define internal fastcc i32 @internal_fast(i32 %x, i32 %y) {
  %c = icmp sgt i32 %x, %y
  br i1 %c, label %a, label %b
a:
  %s = sub i32 %x, %y
  br label %j
b:
  %m = mul i32 %x, 3
  br label %j
j:
  %r = phi i32 [ %s, %a ], [ %m, %b ]
  ret i32 %r
}

define private tailcc i64 @private_tail(i64 %x) {
  %a = lshr i64 %x, 7
  %b = xor i64 %a, %x
  ret i64 %b
}

; An integer result: LLVM 22's x86-64 coldcc treats xmm0 as callee-saved
; and restores it over a float result (llc -O2 shows the reload), so a
; coldcc function returning float returns its first argument. The oracle
; found this; it is LLVM's, not batchify's.
define linkonce_odr coldcc i32 @linkonce_cold(i32 %x, i32 %y) {
  %c = icmp slt i32 %x, %y
  %m = mul i32 %x, %y
  %r = select i1 %c, i32 %m, i32 %y
  ret i32 %r
}

define available_externally swiftcc double @avail_swift(double %x) {
  %a = fadd double %x, 1.5
  %b = fmul double %a, %x
  ret double %b
}

define internal preserve_mostcc i32 @internal_preserve_most(i32 %x) {
  %a = and i32 %x, 255
  %b = add i32 %a, 17
  ret i32 %b
}

; preserve_none passes arguments in other registers than the C convention
; (r12, r13, ... on x86-64), so a wrapper that called it with the C
; convention would pass garbage.
define internal preserve_nonecc i32 @internal_preserve_none(i32 %x, i32 %y) {
  %a = sub i32 %x, %y
  %b = shl i32 %a, 1
  ret i32 %b
}

; The caller must sign-extend: the callee relies on it.
define internal i32 @signext_arg(i8 signext %x) {
  %e = sext i8 %x to i32
  ret i32 %e
}

; Keeps the internal functions alive, like the exported function of a
; real module.
define i32 @user(i32 %x) {
  %a = call fastcc i32 @internal_fast(i32 %x, i32 1)
  %b = call preserve_mostcc i32 @internal_preserve_most(i32 %a)
  %c = call preserve_nonecc i32 @internal_preserve_none(i32 %b, i32 2)
  %t = trunc i32 %c to i8
  %d = call i32 @signext_arg(i8 signext %t)
  ret i32 %d
}
