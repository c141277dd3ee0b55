; An if/else on a uniform mode; each arm does varying work.
define float @uif(float %x, i32 %mode) {
entry:
  %c = icmp eq i32 %mode, 0
  br i1 %c, label %then, label %else
then:
  %a = fadd float %x, 1.0
  br label %join
else:
  %b = fmul float %x, 2.0
  br label %join
join:
  %r = phi float [ %a, %then ], [ %b, %else ]
  ret float %r
}
