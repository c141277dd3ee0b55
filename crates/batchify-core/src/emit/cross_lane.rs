//! Cross-lane operations (`analysis::cross_lane`), lowered inline over the
//! mask of the block that calls them: reductions of the masked lanes,
//! prefix sums by log-step shifts, permutes by lane index, a compress
//! store. Inactive lanes contribute the operation's identity (or zero), so
//! the result is what the active lanes alone give; a lane index out of
//! range or naming an inactive lane reads zero. See `docs/cross-lane.md`.

use super::state::Widener;
use crate::analysis::cross_lane::{Op, Reduce};
use crate::llvm::LLVMIntPredicate::{LLVMIntEQ, LLVMIntNE, LLVMIntULT};
use crate::llvm::LLVMOpcode::*;
use crate::llvm::{constant, Type, Value};
use crate::vfabi::Isa;

impl<'ctx> Widener<'_, 'ctx> {
    /// The clone's value of cross-lane call `i` (a scalar where its result
    /// is uniform, a vector where it varies).
    pub(crate) fn cross_lane(&mut self, i: Value<'ctx>, op: Op) -> Value<'ctx> {
        let ty = i.ty();
        let m = self.active_mask();
        match op {
            Op::LaneId => self.lane_numbers(ty),
            Op::NumLanes => constant::int(ty, u64::from(self.n)),
            Op::Mask => constant::int(ty, 1),
            Op::CountActive => self.active_count(m, ty),
            Op::Any => {
                let c = self.truth(i.operand(0));
                let on = self.b.binop(LLVMAnd, c, m);
                let r = self.reduce_call("llvm.vector.reduce.or", on);
                self.resize_int(r, ty)
            }
            Op::All => {
                let c = self.truth(i.operand(0));
                let off = self.b.binop(LLVMXor, m, self.all_true());
                let either = self.b.binop(LLVMOr, c, off);
                let r = self.reduce_call("llvm.vector.reduce.and", either);
                self.resize_int(r, ty)
            }
            Op::Ballot => {
                let c = self.truth(i.operand(0));
                let on = self.b.binop(LLVMAnd, c, m);
                let bits = self.b.cast(LLVMBitCast, on, Type::int(self.ctx(), self.n));
                self.resize_int(bits, ty)
            }
            Op::CountTrue => {
                let c = self.truth(i.operand(0));
                let on = self.b.binop(LLVMAnd, c, m);
                self.lanes_set(on, ty)
            }
            Op::Reduce(r) => {
                let x = self.varying_value(i.operand(0));
                self.reduce(r, x, m)
            }
            Op::ExclusiveScanAdd => {
                let x = self.varying_value(i.operand(0));
                let zero = constant::null(x.ty());
                let xm = self.b.select(m, x, zero);
                self.exclusive_sum(xm)
            }
            Op::Index => {
                let c = self.truth(i.operand(0));
                let on = self.b.binop(LLVMAnd, c, m);
                let counts = self.b.cast(LLVMZExt, on, ty.vector_of(self.n));
                self.exclusive_sum(counts)
            }
            Op::Extract | Op::Shuffle => {
                let x = self.varying_value(i.operand(0));
                let xm = self.b.select(m, x, constant::null(x.ty()));
                if self.analyses.uniformity.is_varying(i.operand(1)) {
                    self.permute(xm, i.operand(1))
                } else {
                    let lane = self.uniform_value(i.operand(1));
                    self.read_lane(xm, lane)
                }
            }
            Op::Insert => {
                let x = self.varying_value(i.operand(0));
                let y = self.varying_value(i.operand(2));
                let lane = self.index_value(self.uniform_value(i.operand(1)));
                let at = self.b.icmp(LLVMIntEQ, self.lane_numbers(lane.ty()), self.splat_scalar(lane));
                self.b.select(at, y, x)
            }
            Op::BroadcastFirst => {
                let x = self.varying_value(i.operand(0));
                if self.flow.full {
                    return self.b.extract_element(x, 0);
                }
                let bits_ty = Type::int(self.ctx(), self.n);
                let bits = self.b.cast(LLVMBitCast, m, bits_ty);
                let cttz = self.module.intrinsic("llvm.cttz", &[bits_ty]).expect("llvm.cttz exists");
                let no = constant::int(Type::int(self.ctx(), 1), 0);
                let first = self.b.call(cttz.function_type(), cttz, &[bits, no]);
                let xm = self.b.select(m, x, constant::null(x.ty()));
                self.read_lane(xm, first)
            }
            Op::Rotate => {
                let x = self.varying_value(i.operand(0));
                let xm = self.b.select(m, x, constant::null(x.ty()));
                let width = self.n as i64;
                let amount = i.operand(1);
                let bits = amount.ty().int_width();
                let raw = amount.const_int_value().expect("legality checked a constant") as i64;
                let s = (raw << (64 - bits)) >> (64 - bits); // sign-extended
                let lanes: Vec<Value> =
                    (0..width).map(|k| constant::i32(self.ctx(), (k + s).rem_euclid(width) as u32)).collect();
                self.b.shuffle(xm, constant::poison(xm.ty()), constant::vector(&lanes))
            }
            Op::Compact => {
                // The lanes with `c`, compressed over a copy of `x`: the
                // lanes above their count keep their own `x`.
                let x = self.varying_value(i.operand(0));
                let c = self.truth(i.operand(1));
                let on = self.b.binop(LLVMAnd, c, m);
                self.position_aux_in_entry();
                let slot = self.aux.alloca(x.ty());
                self.b.store(x, slot, 1);
                self.compress_store(x, slot, on);
                self.b.load(x.ty(), slot, 1)
            }
            Op::LoadLane => {
                let p = self.varying_value(i.operand(0));
                let pm = self.b.select(m, p, constant::null(p.ty()));
                let lane = self.uniform_value(i.operand(1));
                let ptr = self.read_lane(pm, lane);
                let some = self.b.icmp(LLVMIntNE, ptr, constant::null(ptr.ty()));
                let align = self.module.abi_alignment_of(ty);
                let v = self.guarded(some, |w| w.b.load(ty, ptr, align)).expect("a load has a value");
                self.b.select(some, v, constant::null(ty))
            }
            Op::PackedStoreActive => {
                let ptr = self.uniform_value(i.operand(0));
                let x = self.varying_value(i.operand(1));
                self.compress_store(x, ptr, m);
                self.active_count(m, ty)
            }
            Op::PackedLoadActive => {
                let ptr = self.uniform_value(i.operand(0));
                self.packed_load(ptr, ty, m)
            }
        }
    }

    /// `ptr[0..count)` of `elem` into the lanes that mask `m` (the current
    /// one) has set, in lane order; zero in the others. Where the block is
    /// full, one vector load. AVX-512: `llvm.masked.expandload`
    /// (`vexpandps` and its kin). AVX2 with 32-bit elements: the first
    /// `count` elements by a masked load, then in each register one
    /// `vpermps`/`vpermd` per source register by the lanes' ranks, blended.
    /// Elsewhere, and in `--for-autodiff` clones (which Enzyme must read),
    /// a gather at the ranks. The active lanes read exactly `ptr[0..count)`.
    fn packed_load(&mut self, ptr: Value<'ctx>, elem: Type<'ctx>, m: Value<'ctx>) -> Value<'ctx> {
        let ctx = self.ctx();
        let vty = elem.vector_of(self.n);
        let align = self.module.abi_alignment_of(elem);
        if self.flow.full {
            return self.b.load(vty, ptr, align);
        }
        let zero = constant::null(vty);
        if self.spec.isa == Isa::Avx512 && !self.for_autodiff {
            let f = self.module.intrinsic("llvm.masked.expandload", &[vty]).expect("llvm.masked.expandload exists");
            let r = self.b.call(f.function_type(), f, &[ptr, m, zero]);
            r.add_call_arg_attribute(0, "align", u64::from(align));
            return r;
        }
        let i32t = Type::int(ctx, 32);
        let i32v = i32t.vector_of(self.n);
        let rank = self.exclusive_sum(self.b.cast(LLVMZExt, m, i32v));
        let float = elem.int_width() == 0;
        let permute = match (elem.int_width(), float) {
            (32, false) => Some("llvm.x86.avx2.permd"),
            (_, true) if self.module.abi_size_of(elem) == 4 => Some("llvm.x86.avx2.permps"),
            _ => None,
        };
        match permute {
            Some(name) if self.spec.isa == Isa::Avx2 && self.n.is_multiple_of(8) && !self.for_autodiff => {
                let count = self.lanes_set(m, i32t);
                let below = self.b.icmp(LLVMIntULT, self.lane_numbers(i32t), self.splat_scalar(count));
                let f = self.module.intrinsic("llvm.masked.load", &[vty, ptr.ty()]).expect("llvm.masked.load exists");
                let loaded = self.b.call(f.function_type(), f, &[ptr, below, zero]);
                loaded.add_call_arg_attribute(0, "align", u64::from(align));
                let perm = self.module.intrinsic(name, &[]).expect("the AVX2 permutes exist");
                let regs = self.n / 8;
                let part = |v: Value<'ctx>, r: u32| {
                    let lanes: Vec<Value> = (0..8).map(|k| constant::i32(ctx, r * 8 + k)).collect();
                    self.b.shuffle(v, constant::poison(v.ty()), constant::vector(&lanes))
                };
                let mut out: Vec<Value> = Vec::new();
                for r in 0..regs {
                    let want = part(rank, r);
                    let mut acc = None;
                    for s in 0..regs {
                        let picked = self.b.call(perm.function_type(), perm, &[part(loaded, s), want]);
                        acc = Some(match acc {
                            None => picked,
                            Some(prev) => {
                                let from = constant::vector(&[constant::int(i32t, u64::from(8 * s)); 8]);
                                let here = self.b.icmp(crate::llvm::LLVMIntPredicate::LLVMIntUGE, want, from);
                                self.b.select(here, picked, prev)
                            }
                        });
                    }
                    out.push(acc.expect("a register has a source"));
                }
                let joined = super::vector_input::concat(&self.b, &out);
                self.b.select(m, joined, zero)
            }
            _ => {
                let ptrs = self.b.gep(elem, ptr, &[rank], Default::default());
                let pty = ptrs.ty();
                if self.for_autodiff {
                    let at = super::lanewise::Addresses::Each(ptrs);
                    return super::lanewise::load(self, vty, at, Some(m), align, zero);
                }
                let f = self.module.intrinsic("llvm.masked.gather", &[vty, pty]).expect("llvm.masked.gather exists");
                let r = self.b.call(f.function_type(), f, &[ptrs, m, zero]);
                r.add_call_arg_attribute(0, "align", u64::from(align));
                r
            }
        }
    }

    /// The current mask, as a value (all lanes where the block is full).
    fn active_mask(&self) -> Value<'ctx> {
        if self.flow.full {
            self.all_true()
        } else {
            self.flow.mask
        }
    }

    /// The number of lanes of mask `m` (the current one) as an integer of
    /// type `ty`: `N` where the block is full.
    fn active_count(&self, m: Value<'ctx>, ty: Type<'ctx>) -> Value<'ctx> {
        if self.flow.full {
            constant::int(ty, u64::from(self.n))
        } else {
            self.lanes_set(m, ty)
        }
    }

    /// `llvm.masked.compressstore`: the lanes of `x` that `m` has set, in
    /// lane order, to `ptr[0..]`.
    fn compress_store(&self, x: Value<'ctx>, ptr: Value<'ctx>, m: Value<'ctx>) {
        let f =
            self.module.intrinsic("llvm.masked.compressstore", &[x.ty()]).expect("llvm.masked.compressstore exists");
        self.b.call(f.function_type(), f, &[x, ptr, m]);
    }

    /// `<N x i1>`: operand `v` (an integer, as C's `bool`) is non-zero.
    fn truth(&mut self, v: Value<'ctx>) -> Value<'ctx> {
        let x = self.varying_value(v);
        if x.ty().element().int_width() == 1 {
            return x;
        }
        self.b.icmp(LLVMIntNE, x, constant::null(x.ty()))
    }

    /// A call of the reduction intrinsic `name` on vector `v`.
    fn reduce_call(&self, name: &str, v: Value<'ctx>) -> Value<'ctx> {
        let f = self.module.intrinsic(name, &[v.ty()]).expect("vector reductions exist");
        self.b.call(f.function_type(), f, &[v])
    }

    /// `r` over the lanes of `x` that `m` has set, the others taking the
    /// operation's identity.
    fn reduce(&mut self, r: Reduce, x: Value<'ctx>, m: Value<'ctx>) -> Value<'ctx> {
        let elem = x.ty().element();
        let float = elem.int_width() == 0;
        let identity = match (r, float) {
            (Reduce::Add, false) | (Reduce::UMax, false) => constant::null(elem),
            (Reduce::Add, true) => constant::real(elem, -0.0),
            (Reduce::Mul, false) => constant::int(elem, 1),
            (Reduce::Mul, true) => constant::real(elem, 1.0),
            (Reduce::Min, false) => constant::int(elem, (1u64 << (elem.int_width() - 1)) - 1),
            (Reduce::Max, false) => constant::int(elem, 1u64 << (elem.int_width() - 1)),
            (Reduce::UMin, false) => constant::all_ones(elem),
            (Reduce::Min | Reduce::Max | Reduce::UMin | Reduce::UMax, true) => constant::real(elem, f64::NAN),
        };
        let splat = constant::vector(&vec![identity; self.n as usize]);
        let xm = self.b.select(m, x, splat);
        let int_reduction = |name: &str| self.reduce_call(name, xm);
        match (r, float) {
            (Reduce::Add, false) => int_reduction("llvm.vector.reduce.add"),
            (Reduce::Mul, false) => int_reduction("llvm.vector.reduce.mul"),
            (Reduce::Min, false) => int_reduction("llvm.vector.reduce.smin"),
            (Reduce::Max, false) => int_reduction("llvm.vector.reduce.smax"),
            (Reduce::UMin, false) => int_reduction("llvm.vector.reduce.umin"),
            (Reduce::UMax, false) => int_reduction("llvm.vector.reduce.umax"),
            // In lane order: no reassociation flag on the reduction.
            (Reduce::Add | Reduce::Mul, true) => {
                let name = if r == Reduce::Add { "llvm.vector.reduce.fadd" } else { "llvm.vector.reduce.fmul" };
                let f = self.module.intrinsic(name, &[xm.ty()]).expect("vector reductions exist");
                self.b.call(f.function_type(), f, &[identity, xm])
            }
            (_, true) => {
                let name = if r == Reduce::Min { "llvm.minimumnum" } else { "llvm.maximumnum" };
                self.tree(name, xm, identity)
            }
        }
    }

    /// Lane 0 of the pairwise tree of `name` (a commutative, associative
    /// lane-wise intrinsic) over `x`'s lanes, padded with `identity` to a
    /// power of two.
    fn tree(&self, name: &str, x: Value<'ctx>, identity: Value<'ctx>) -> Value<'ctx> {
        let ctx = self.ctx();
        let p = self.n.next_power_of_two();
        let mut v = x;
        if p != self.n {
            let pad = constant::vector(&vec![identity; self.n as usize]);
            let lanes: Vec<Value> = (0..p).map(|k| constant::i32(ctx, if k < self.n { k } else { self.n })).collect();
            v = self.b.shuffle(x, pad, constant::vector(&lanes));
        }
        let mut half = p / 2;
        while half >= 1 {
            let lanes: Vec<Value> = (0..p).map(|k| constant::i32(ctx, (k + half) % p)).collect();
            let upper = self.b.shuffle(v, constant::poison(v.ty()), constant::vector(&lanes));
            let f = self.module.intrinsic(name, &[v.ty()]).expect("lane-wise min/max exist");
            v = self.b.call(f.function_type(), f, &[v, upper]);
            half /= 2;
        }
        self.b.extract_element(v, 0)
    }

    /// In lane `k`, the sum of lanes `j < k` of integer vector `x`
    /// (log-step shifted sums).
    fn exclusive_sum(&self, x: Value<'ctx>) -> Value<'ctx> {
        let ctx = self.ctx();
        let zero = constant::null(x.ty());
        let mut s = x;
        let mut d = 1;
        while d < self.n {
            let lanes: Vec<Value> =
                (0..self.n).map(|k| constant::i32(ctx, if k >= d { k - d } else { self.n + k })).collect();
            let shifted = self.b.shuffle(s, zero, constant::vector(&lanes));
            s = self.b.binop(LLVMAdd, s, shifted);
            d *= 2;
        }
        self.b.binop(LLVMSub, s, x)
    }

    /// Lane index `v` (an integer of any width, unsigned) as an `i64`, so
    /// that every out-of-range value stays out of range.
    fn index_value(&self, v: Value<'ctx>) -> Value<'ctx> {
        let i64t = Type::int(self.ctx(), 64);
        let elem = if v.ty().is_vector() { v.ty().element() } else { v.ty() };
        if elem.int_width() >= 64 {
            return v;
        }
        let to = if v.ty().is_vector() { i64t.vector_of(self.n) } else { i64t };
        self.b.cast(LLVMZExt, v, to)
    }

    /// `<0, 1, ..., N-1>` of integer type `ty`.
    fn lane_numbers(&self, ty: Type<'ctx>) -> Value<'ctx> {
        let lanes: Vec<Value> = (0..self.n).map(|k| constant::int(ty, u64::from(k))).collect();
        constant::vector(&lanes)
    }

    /// Scalar `v` in every lane.
    fn splat_scalar(&self, v: Value<'ctx>) -> Value<'ctx> {
        crate::abi::splat(&self.b, v, self.n)
    }

    /// Lane `lane` (a scalar integer, in the clone) of vector `x`, zero if
    /// it is out of range.
    fn read_lane(&self, x: Value<'ctx>, lane: Value<'ctx>) -> Value<'ctx> {
        let idx = self.index_value(lane);
        let i64t = idx.ty();
        let in_range = self.b.icmp(LLVMIntULT, idx, constant::int(i64t, u64::from(self.n)));
        let safe = self.b.select(in_range, idx, constant::null(i64t));
        let v = self.b.extract_element_dyn(x, safe);
        self.b.select(in_range, v, constant::null(v.ty()))
    }

    /// In lane `k`, lane `src[k]` of vector `x` (zero where out of range):
    /// a build of dynamic extracts, which x86's back end turns into one
    /// variable permute where the ISA has one.
    fn permute(&mut self, x: Value<'ctx>, src: Value<'ctx>) -> Value<'ctx> {
        let idx = self.varying_value(src);
        let idx = self.index_value(idx);
        let i64v = idx.ty();
        let bound = constant::vector(&vec![constant::int(i64v.element(), u64::from(self.n)); self.n as usize]);
        let in_range = self.b.icmp(LLVMIntULT, idx, bound);
        let safe = self.b.select(in_range, idx, constant::null(i64v));
        let mut out = constant::poison(x.ty());
        for k in 0..self.n {
            let at = self.b.extract_element(safe, k);
            let v = self.b.extract_element_dyn(x, at);
            out = self.b.insert_element(out, v, k);
        }
        self.b.select(in_range, out, constant::null(x.ty()))
    }
}
