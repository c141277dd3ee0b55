// Rust as users write it: private functions (rustc makes them internal
// fastcc) taking references, which become `noalias align N
// dereferenceable(N)` pointers; a mutable reference that is written.
// Checked by crates/batchify-testkit/tests/oracle_real.rs.

#[inline(never)]
fn pick(table: &[u32; 8], i: u32) -> u32 {
    table[(i & 7) as usize].wrapping_mul(3).wrapping_add(i)
}

#[no_mangle]
pub extern "C" fn use_pick(table: &[u32; 8], i: u32) -> u32 {
    pick(table, i) ^ pick(table, i.wrapping_add(3))
}

#[inline(never)]
fn accumulate(acc: &mut [i32; 4], x: i32) {
    if x > 0 {
        acc[0] = acc[0].wrapping_add(x);
    } else {
        acc[(x & 3) as usize] ^= x;
    }
}

#[no_mangle]
pub extern "C" fn use_accumulate(acc: &mut [i32; 4], x: i32) {
    accumulate(acc, x);
    accumulate(acc, x.wrapping_mul(7));
}
