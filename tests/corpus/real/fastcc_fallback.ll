; An internal fastcc function that batchify cannot vectorize (a `fence`;
; its irreducible control flow, two blocks that jump into each other,
; entered at either, is made reducible first, but the fence stays), so its clone is the per-lane fallback loop, which calls the scalar
; function once per lane. Those calls must carry `fastcc`; without it the
; call is undefined behaviour and LLVM's optimiser turns the clone into
; `unreachable` (issue 6, defect 1).

define internal fastcc i32 @irreducible_fast(i32 %x, i32 %y) {
entry:
  fence seq_cst
  %odd = and i32 %x, 1
  %c = icmp ne i32 %odd, 0
  br i1 %c, label %b, label %a
a:
  %va = phi i32 [ %y, %entry ], [ %vb2, %b ]
  %na = phi i32 [ 0, %entry ], [ %nb2, %b ]
  %va2 = mul i32 %va, 3
  %na2 = add i32 %na, 1
  %sa = and i32 %va2, 7
  %za = icmp eq i32 %sa, 0
  %ca = icmp uge i32 %na2, 20
  %da = or i1 %za, %ca
  br i1 %da, label %done, label %b
b:
  %vb = phi i32 [ %x, %entry ], [ %va2, %a ]
  %nb = phi i32 [ 0, %entry ], [ %na2, %a ]
  %vb2 = xor i32 %vb, 12345
  %nb2 = add i32 %nb, 1
  %sb = and i32 %vb2, 15
  %zb = icmp eq i32 %sb, 0
  %cb = icmp uge i32 %nb2, 20
  %db = or i1 %zb, %cb
  br i1 %db, label %done, label %a
done:
  %r = phi i32 [ %va2, %a ], [ %vb2, %b ]
  %n = phi i32 [ %na2, %a ], [ %nb2, %b ]
  %s = add i32 %r, %n
  ret i32 %s
}

define i32 @user(i32 %x) {
  %r = call fastcc i32 @irreducible_fast(i32 %x, i32 7)
  ret i32 %r
}
