; A module with inline asm and module-level asm next to ordinary
; functions. The oracle's JIT does not assemble: it drops the asm and
; skips (with a reason) the clones that reach it; the others still run.

module asm ".globl asm_seven"
module asm "asm_seven:"
module asm "  movl $$7, %eax"
module asm "  ret"

declare i32 @asm_seven()
declare i32 @no_such_function_in_the_test_process(i32)

define i32 @uses_asm(i32 %x) {
  %y = call i32 asm "movl $1, $0", "=r,r"(i32 %x)
  %r = add i32 %y, 1
  ret i32 %r
}

define i32 @calls_uses_asm(i32 %x) {
  %y = call i32 @uses_asm(i32 %x)
  %r = mul i32 %y, 3
  ret i32 %r
}

define i32 @calls_module_asm(i32 %x) {
  %y = call i32 @asm_seven()
  %r = add i32 %y, %x
  ret i32 %r
}

define i32 @calls_missing(i32 %x) {
  %y = call i32 @no_such_function_in_the_test_process(i32 %x)
  ret i32 %y
}

define i32 @normal(i32 %x) {
  %c = icmp slt i32 %x, 0
  %n = sub i32 0, %x
  %r = select i1 %c, i32 %n, i32 %x
  ret i32 %r
}

define <4 x i32> @not_scalar(<4 x i32> %x) {
  ret <4 x i32> %x
}
