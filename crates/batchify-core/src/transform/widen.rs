//! Widening: builds the N-lane clone from the prepared scalar function.
//!
//! Blocks are visited in reverse post-order, so every operand is mapped
//! before its use (phis are filled in at the end). Each scalar value maps to
//! one value in the clone: uniform values to a scalar copy, varying values
//! to their vector (or lane-array) form. The rules per instruction:
//!
//! * uniform, lane-invariant instructions are copied as they are;
//! * varying arithmetic, comparisons, casts, `select`, `freeze`, `getelementptr`
//!   and lane-wise intrinsics get their vector form;
//! * everything else that is varying, and calls that may have side effects,
//!   run once per lane in lane order ("serialized").
//!
//! Control flow must be uniform in this version: a branch on a varying
//! condition is reported as unsupported.

use crate::analysis::cfg::Cfg;
use crate::analysis::uniformity::Uniformity;
use crate::error::{Error, Result};
use crate::llvm::{constant, copy_flags, Block, Builder, Module, Type, Value};
use crate::spec::CloneSpec;
use crate::transform::calls;
use crate::transform::signature::varying_type;
use crate::vfabi::ParamKind;
use llvm_sys::LLVMOpcode::{self, *};
use std::collections::HashMap;

/// What the widener did, for the report.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WidenStats {
    /// Instructions given a vector form.
    pub vectorized: usize,
    /// Instructions kept scalar because they are uniform.
    pub uniform: usize,
    /// Instructions run once per lane.
    pub serialized: usize,
    /// One line per serialized instruction kind, for `--report`.
    pub serialized_what: Vec<String>,
}

/// Builds the body of `clone` from the prepared scalar function `scalar`.
pub fn widen(
    module: Module,
    scalar: Value,
    clone: Value,
    spec: &CloneSpec,
    cfg: &Cfg,
    uni: &Uniformity,
) -> Result<WidenStats> {
    let mut w = Widener {
        module,
        spec,
        n: spec.width,
        uni,
        b: Builder::new(module.context()),
        aux: Builder::new(module.context()),
        vmap: HashMap::new(),
        bmap: HashMap::new(),
        splats: HashMap::new(),
        stats: WidenStats::default(),
        function_name: spec.scalar_name.clone(),
    };
    w.run(scalar, clone, cfg)?;
    Ok(w.stats)
}

struct Widener<'a> {
    module: Module,
    spec: &'a CloneSpec,
    n: u32,
    uni: &'a Uniformity,
    /// Main builder, at the end of the block being emitted.
    b: Builder,
    /// Builder for out-of-line insertions (splats).
    aux: Builder,
    vmap: HashMap<Value, Value>,
    bmap: HashMap<Block, Block>,
    splats: HashMap<Value, Value>,
    stats: WidenStats,
    function_name: String,
}

impl Widener<'_> {
    fn unsupported(&self, what: impl Into<String>) -> Error {
        Error::Unsupported { function: self.function_name.clone(), what: what.into() }
    }

    fn run(&mut self, scalar: Value, clone: Value, cfg: &Cfg) -> Result<()> {
        for b in &cfg.rpo {
            let nb = clone.append_block(&b.name());
            self.bmap.insert(*b, nb);
        }
        let entry = self.bmap[&cfg.rpo[0]];
        self.b.position_at_end(entry);
        self.map_params(scalar, clone);
        let mut phis = Vec::new();
        for sb in &cfg.rpo {
            self.b.position_at_end(self.bmap[sb]);
            for i in sb.instructions() {
                if i.opcode() == LLVMPHI {
                    let ty = self.mapped_type(i);
                    let p = self.b.phi(ty);
                    p.set_name(&i.name());
                    self.vmap.insert(i, p);
                    phis.push(i);
                } else {
                    self.emit(i, cfg)?;
                }
            }
        }
        for i in phis {
            let p = self.vmap[&i];
            let varying = self.uni.is_varying(i);
            for (v, pred) in i.incoming() {
                let Some(&npred) = self.bmap.get(&pred) else { continue };
                let nv = if varying { self.varying_value(v) } else { self.uniform_value(v) };
                p.add_incoming(nv, npred);
            }
        }
        Ok(())
    }

    fn map_params(&mut self, scalar: Value, clone: Value) {
        let ctx = self.module.context();
        let cparams = clone.params();
        for (k, p) in scalar.params().into_iter().enumerate() {
            let q = cparams[k];
            q.set_name(&p.name());
            let mapped = match self.spec.params[k] {
                ParamKind::Linear { step } => self.linear_vector(q, constant::int(Type::int(ctx, 64), step as u64)),
                ParamKind::LinearVarStep { param } => {
                    let step = cparams[param];
                    let step64 = if step.ty().int_width() == 64 {
                        step
                    } else {
                        self.b.cast(LLVMSExt, step, Type::int(ctx, 64))
                    };
                    self.linear_vector(q, step64)
                }
                _ => q,
            };
            self.vmap.insert(p, mapped);
        }
    }

    /// `<base, base+step, base+2*step, ...>` for an integer or pointer base
    /// (pointer steps are in bytes, as the Vector Function ABI says).
    fn linear_vector(&mut self, base: Value, step64: Value) -> Value {
        let ctx = self.module.context();
        let i64t = Type::int(ctx, 64);
        let lanes: Vec<Value> = (0..self.n).map(|k| constant::int(i64t, k as u64)).collect();
        let lane_ids = constant::vector(&lanes);
        let steps = self.splat_here(step64);
        let offsets = self.b.binop(LLVMMul, lane_ids, steps);
        let ty = base.ty();
        if ty.int_width() > 0 {
            let offs =
                if ty.int_width() == 64 { offsets } else { self.b.cast(LLVMTrunc, offsets, ty.vector_of(self.n)) };
            let vb = self.splat_here(base);
            self.b.binop(LLVMAdd, vb, offs)
        } else {
            self.b.gep(Type::int(ctx, 8), base, &[offsets], llvm_sys::LLVMGEPNoWrapFlags::default())
        }
    }

    /// Type of the clone's value for scalar value `v`.
    fn mapped_type(&self, v: Value) -> Type {
        if self.uni.is_varying(v) {
            varying_type(v.ty(), self.n)
        } else {
            v.ty()
        }
    }

    /// The clone's scalar value for a uniform operand.
    fn uniform_value(&self, v: Value) -> Value {
        if v.is_block() {
            return self.bmap[&v.as_block()].as_value();
        }
        if let Some(m) = self.vmap.get(&v) {
            return *m;
        }
        // Constants, globals, functions and metadata are shared with the scalar code.
        v
    }

    /// The clone's varying form of an operand (splatting uniform values).
    fn varying_value(&mut self, v: Value) -> Value {
        if self.uni.is_varying(v) {
            return self.vmap[&v];
        }
        if let Some(s) = self.splats.get(&v) {
            return *s;
        }
        let u = self.uniform_value(v);
        let s = if u.is_constant() && !u.is_function() && u.ty().is_vector_element() {
            constant::vector(&vec![u; self.n as usize])
        } else {
            // Splat right after the definition so it dominates every use.
            if u.is_instruction() {
                self.aux.position_after(u);
            } else {
                let first = self.entry_block();
                match first.first_non_phi() {
                    Some(i) => self.aux.position_before(i),
                    None => self.aux.position_at_end(first),
                }
            }
            self.splat_with_aux(u)
        };
        self.splats.insert(v, s);
        s
    }

    fn entry_block(&self) -> Block {
        // The clone's entry is the first block appended.
        let any = *self.bmap.values().next().expect("clone has blocks");
        any.parent().blocks()[0]
    }

    fn splat_with_aux(&self, u: Value) -> Value {
        splat(&self.aux, u, self.n)
    }

    fn splat_here(&self, u: Value) -> Value {
        splat(&self.b, u, self.n)
    }

    /// Lane `k` of an operand, as a scalar.
    fn lane_value(&mut self, v: Value, k: u32) -> Value {
        if !self.uni.is_varying(v) {
            return self.uniform_value(v);
        }
        let vv = self.vmap[&v];
        extract_lane(&self.b, vv, k)
    }

    fn emit(&mut self, i: Value, cfg: &Cfg) -> Result<()> {
        let op = i.opcode();
        if is_terminator(op) {
            return self.emit_terminator(i, cfg);
        }
        if matches!(op, LLVMAlloca) {
            return Err(self.unsupported(format!(
                "stack memory (`{}`) that mem2reg cannot remove is not supported yet",
                i.print()
            )));
        }
        if matches!(op, LLVMAtomicRMW | LLVMAtomicCmpXchg | LLVMFence | LLVMVAArg | LLVMLandingPad)
            || (matches!(op, LLVMLoad | LLVMStore) && (i.is_volatile() || i.is_atomic()))
        {
            return Err(self.unsupported(format!("`{}` is not supported yet", i.print())));
        }
        if op == LLVMCall {
            let callee = i.called_value();
            if callee.is_inline_asm() {
                return Err(self.unsupported(format!("inline assembly `{}` is not supported", i.print())));
            }
        }
        let varying = self.uni.is_varying(i);
        if !varying {
            self.copy_uniform(i);
            self.stats.uniform += 1;
            return Ok(());
        }
        let v = match self.vector_form(i) {
            Some(v) => {
                self.stats.vectorized += 1;
                v
            }
            None => {
                if op == LLVMCall {
                    if let Some(base) = calls::called_intrinsic(i) {
                        if calls::is_droppable_hint(&base) {
                            return Ok(()); // a hint on varying values: drop it
                        }
                    }
                }
                self.stats.serialized += 1;
                let what = describe(i);
                if !self.stats.serialized_what.contains(&what) {
                    self.stats.serialized_what.push(what);
                }
                self.serialize(i)
            }
        };
        if !v.is_block() {
            v.set_name(&i.name());
        }
        self.vmap.insert(i, v);
        Ok(())
    }

    /// Copies a uniform instruction with its operands remapped.
    fn copy_uniform(&mut self, i: Value) {
        let c = i.clone_instruction();
        for k in 0..c.num_operands() {
            let op = c.operand(k);
            c.set_operand(k, self.uniform_value(op));
        }
        c.clear_debug_location();
        self.b.insert(c);
        c.set_name(&i.name());
        self.vmap.insert(i, c);
    }

    fn emit_terminator(&mut self, i: Value, _cfg: &Cfg) -> Result<()> {
        match i.opcode() {
            LLVMRet => {
                if i.num_operands() == 0 {
                    self.b.ret(None);
                } else {
                    let v = self.varying_value(i.operand(0));
                    self.b.ret(Some(v));
                }
                Ok(())
            }
            LLVMBr | LLVMSwitch => {
                let cond = i.operand(0);
                if (i.opcode() == LLVMSwitch || i.is_conditional()) && self.uni.is_varying(cond) {
                    return Err(self.unsupported(format!(
                        "divergent branch `{}` (its condition differs between lanes) is not supported yet",
                        i.print()
                    )));
                }
                self.copy_uniform(i);
                Ok(())
            }
            LLVMUnreachable => {
                self.copy_uniform(i);
                Ok(())
            }
            _ => Err(self.unsupported(format!("terminator `{}` is not supported", i.print()))),
        }
    }

    /// The vector form of a varying instruction, or `None` if it must be serialized.
    fn vector_form(&mut self, i: Value) -> Option<Value> {
        let op = i.opcode();
        let n = self.n;
        let result_ty = i.ty();
        match op {
            LLVMAdd | LLVMFAdd | LLVMSub | LLVMFSub | LLVMMul | LLVMFMul | LLVMFDiv | LLVMFRem | LLVMShl | LLVMLShr
            | LLVMAShr | LLVMAnd | LLVMOr | LLVMXor
                if result_ty.is_vector_element() =>
            {
                let a = self.varying_value(i.operand(0));
                let c = self.varying_value(i.operand(1));
                let r = self.b.binop(op, a, c);
                copy_flags(i, r);
                Some(r)
            }
            // Integer division traps on zero and overflow: only with a
            // divisor that is uniform or known nonzero-and-not-minus-one would
            // the vector form be as safe as the scalar code. The scalar code
            // runs it on every lane anyway (uniform control flow), so the
            // vector form traps exactly when some lane's scalar call would.
            LLVMUDiv | LLVMSDiv | LLVMURem | LLVMSRem if result_ty.is_vector_element() => {
                let a = self.varying_value(i.operand(0));
                let c = self.varying_value(i.operand(1));
                let r = self.b.binop(op, a, c);
                copy_flags(i, r);
                Some(r)
            }
            LLVMFNeg if result_ty.is_vector_element() => {
                let a = self.varying_value(i.operand(0));
                let r = self.b.fneg(a);
                copy_flags(i, r);
                Some(r)
            }
            LLVMICmp | LLVMFCmp if i.operand(0).ty().is_vector_element() => {
                let a = self.varying_value(i.operand(0));
                let c = self.varying_value(i.operand(1));
                let r = if op == LLVMICmp {
                    self.b.icmp(i.icmp_predicate(), a, c)
                } else {
                    self.b.fcmp(i.fcmp_predicate(), a, c)
                };
                copy_flags(i, r);
                Some(r)
            }
            LLVMTrunc | LLVMZExt | LLVMSExt | LLVMFPToUI | LLVMFPToSI | LLVMUIToFP | LLVMSIToFP | LLVMFPTrunc
            | LLVMFPExt | LLVMPtrToInt | LLVMIntToPtr | LLVMBitCast | LLVMAddrSpaceCast | LLVMPtrToAddr
                if result_ty.is_vector_element() && i.operand(0).ty().is_vector_element() =>
            {
                let a = self.varying_value(i.operand(0));
                let r = self.b.cast(op, a, result_ty.vector_of(n));
                copy_flags(i, r);
                Some(r)
            }
            LLVMSelect if result_ty.is_vector_element() => {
                let c = i.operand(0);
                if c.ty().is_vector() {
                    return None;
                }
                let cond = if self.uni.is_varying(c) { self.vmap[&c] } else { self.uniform_value(c) };
                let a = self.varying_value(i.operand(1));
                let d = self.varying_value(i.operand(2));
                let r = self.b.select(cond, a, d);
                copy_flags(i, r);
                Some(r)
            }
            LLVMFreeze if result_ty.is_vector_element() => {
                let a = self.varying_value(i.operand(0));
                Some(self.b.freeze(a))
            }
            LLVMGetElementPtr if result_ty.is_vector_element() => {
                let ops = i.operands();
                if ops.iter().any(|o| o.ty().is_vector()) {
                    return None;
                }
                let base = if self.uni.is_varying(ops[0]) { self.vmap[&ops[0]] } else { self.uniform_value(ops[0]) };
                let idx: Vec<Value> = ops[1..]
                    .iter()
                    .map(|o| if self.uni.is_varying(*o) { self.vmap[o] } else { self.uniform_value(*o) })
                    .collect();
                let r = self.b.gep(i.gep_source_type(), base, &idx, i.gep_flags());
                // A GEP whose operands are all scalar here cannot happen (it would be uniform).
                Some(r)
            }
            LLVMCall => self.vector_call(i),
            _ => None,
        }
    }

    fn vector_call(&mut self, i: Value) -> Option<Value> {
        let base = calls::called_intrinsic(i)?;
        let lw = calls::lane_wise_intrinsic(&base)?;
        let nargs = i.num_arg_operands();
        let args: Vec<Value> = (0..nargs).map(|k| i.operand(k)).collect();
        if args.iter().chain([&i]).any(|v| !v.ty().is_vector_element()) {
            return None;
        }
        let mut vargs = Vec::new();
        for (k, a) in args.iter().enumerate() {
            if lw.scalar_args.contains(&(k as u32)) {
                if self.uni.is_varying(*a) {
                    return None; // e.g. a varying powi exponent
                }
                vargs.push(self.uniform_value(*a));
            } else {
                vargs.push(self.varying_value(*a));
            }
        }
        let ret = if i.ty().is_void() { i.ty() } else { i.ty().vector_of(self.n) };
        let arg_tys: Vec<Type> = vargs.iter().map(|v| v.ty()).collect();
        let overloads = calls::vector_overloads(lw, ret, &arg_tys);
        let decl = self.module.intrinsic(&base, &overloads)?;
        let r = self.b.call(decl.function_type(), decl, &vargs);
        copy_flags(i, r);
        Some(r)
    }

    /// Runs `i` once per lane, in lane order, and gathers the results.
    fn serialize(&mut self, i: Value) -> Value {
        let ty = i.ty();
        let mut acc = (!ty.is_void()).then(|| constant::poison(varying_type(ty, self.n)));
        for k in 0..self.n {
            let c = i.clone_instruction();
            let ops = i.operands();
            let lanes: Vec<Value> = ops.iter().map(|o| self.lane_value(*o, k)).collect();
            for (j, l) in lanes.into_iter().enumerate() {
                c.set_operand(j as u32, l);
            }
            c.clear_debug_location();
            self.b.insert(c);
            if let Some(a) = acc {
                acc = Some(insert_lane(&self.b, a, c, k));
            }
        }
        // `void` calls produce no value; map them to themselves' last copy.
        acc.unwrap_or_else(|| constant::poison(Type::int(self.module.context(), 1)))
    }
}

fn is_terminator(op: LLVMOpcode) -> bool {
    matches!(
        op,
        LLVMRet
            | LLVMBr
            | LLVMSwitch
            | LLVMIndirectBr
            | LLVMInvoke
            | LLVMUnreachable
            | LLVMCallBr
            | LLVMResume
            | LLVMCleanupRet
            | LLVMCatchRet
            | LLVMCatchSwitch
    )
}

/// Short description of an instruction kind for the report.
fn describe(i: Value) -> String {
    if i.opcode() == LLVMCall {
        let callee = i.called_value();
        let name = callee.name();
        if !name.is_empty() {
            return format!("call to `{name}`");
        }
    }
    let text = i.print();
    let op = text.split('=').nth(1).unwrap_or(&text).trim();
    op.split_whitespace().next().unwrap_or("instruction").to_string()
}

/// Broadcasts a scalar (or aggregate) value to all `n` lanes at the builder's position.
pub fn splat(b: &Builder, u: Value, n: u32) -> Value {
    let ty = varying_type(u.ty(), n);
    if ty.is_vector() {
        let ins = b.insert_element(constant::poison(ty), u, 0);
        let zeros = constant::null(Type::int(b.context(), 32).vector_of(n));
        b.shuffle(ins, constant::poison(ty), zeros)
    } else {
        let mut acc = constant::poison(ty);
        for k in 0..n {
            acc = b.insert_value(acc, u, k);
        }
        acc
    }
}

/// Lane `k` of a varying value (vector or lane array).
pub fn extract_lane(b: &Builder, v: Value, k: u32) -> Value {
    if v.ty().is_vector() {
        b.extract_element(v, k)
    } else {
        b.extract_value(v, k)
    }
}

/// Sets lane `k` of a varying value (vector or lane array).
pub fn insert_lane(b: &Builder, acc: Value, x: Value, k: u32) -> Value {
    if acc.ty().is_vector() {
        b.insert_element(acc, x, k)
    } else {
        b.insert_value(acc, x, k)
    }
}
