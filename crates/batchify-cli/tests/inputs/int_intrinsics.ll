; Integer arithmetic with lane-wise intrinsics, one of them with an immarg.
define i32 @imix(i32 %a, i32 %b) {
  %m = call i32 @llvm.smax.i32(i32 %a, i32 %b)
  %z = call i32 @llvm.ctlz.i32(i32 %m, i1 false)
  %p = call i32 @llvm.ctpop.i32(i32 %b)
  %s = call i32 @llvm.usub.sat.i32(i32 %a, i32 %p)
  %r = call i32 @llvm.fshl.i32(i32 %s, i32 %z, i32 %b)
  %x = xor i32 %r, %m
  ret i32 %x
}

declare i32 @llvm.smax.i32(i32, i32)
declare i32 @llvm.ctlz.i32(i32, i1)
declare i32 @llvm.ctpop.i32(i32)
declare i32 @llvm.usub.sat.i32(i32, i32)
declare i32 @llvm.fshl.i32(i32, i32, i32)
