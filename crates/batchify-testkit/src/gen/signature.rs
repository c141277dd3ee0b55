//! What a function's `define` line and its call sites say beyond types and
//! names: linkage, calling conventions and the attributes that hold for the
//! generated body ([`Sig`], [`Helper`]).

use super::ast::{BufRole, Elem, Function, PtrMode, Ty, ARRAY_LEN};
use super::generate::{chance, Gen};
use super::lower::sret_size;
use rand::seq::SliceRandom;
use rand::Rng;
use std::fmt::Write as _;

/// Calling conventions of helpers.
const HELPER_CCS: [&str; 5] = ["fastcc", "coldcc", "tailcc", "preserve_mostcc", "ccc"];
/// Non-C calling conventions of the top-level function.
/// Conventions of the top-level function ("" is the C convention). No
/// `coldcc`: LLVM 22's x86-64 `coldcc` returns a `float` result wrongly
/// (see `tests/corpus/real/conventions.ll`), which would fail the scalar
/// reference rather than the clone.
const TOP_CCS: [&str; 4] = ["fastcc", "fastcc", "tailcc", ""];

/// The text of a function's `define` line, apart from types and names.
#[derive(Debug, Clone, Default)]
pub(super) struct Sig {
    /// Linkage with a trailing space, or empty.
    pub(super) linkage: &'static str,
    /// Calling convention with a trailing space, or empty.
    pub(super) cc: &'static str,
    /// Return attributes with a trailing space, or empty.
    pub(super) ret_attrs: String,
    /// Function attributes, each with a leading space.
    pub(super) fn_attrs: String,
    /// Attributes of each scalar parameter, each with a trailing space.
    pub(super) param_attrs: Vec<String>,
    /// Attributes of the array pointer parameter, with a trailing space.
    pub(super) ptr_attrs: String,
    /// Attributes of the `sret` parameter, with a trailing space.
    pub(super) sret_attrs: String,
    /// Returns `{ ret, i32 }` through an `sret` pointer (then `void`).
    pub(super) sret: bool,
    /// Returns `{ ret, i32 }` as a value.
    pub(super) pair: bool,
    /// Attributes of each buffer parameter, with a trailing space.
    pub(super) buf_attrs: Vec<String>,
}

/// A helper as its callers see it.
#[derive(Debug, Clone)]
pub(super) struct Helper {
    pub(super) name: String,
    pub(super) params: Vec<Ty>,
    /// Per scalar parameter: `Some(m)` if callers pass `arg & m` (the
    /// parameter has `range(T 0, m + 1)`).
    pub(super) masks: Vec<Option<u64>>,
    pub(super) ret: Ty,
    /// The array pointer parameter: how the helper uses it, element type.
    pub(super) ptr: Option<(PtrMode, Ty)>,
    /// `speculatable` holds: no pointers, no division, no `fptosi`, callees alike.
    spec: bool,
    /// Takes a depth parameter first and calls itself.
    pub(super) recursive: bool,
    /// Calls the recorder, directly or through its callees.
    effects: bool,
    /// Takes a read-only pointer to a buffer of the caller: element type
    /// and the elements it may read.
    pub(super) buf: Option<(Elem, u64)>,
    /// Its `define` line.
    pub(super) sig: Sig,
    /// Call-site attributes: of the array pointer (with a trailing space;
    /// `byval` is always there), of each scalar argument, of the return value.
    pub(super) call_ptr_attrs: String,
    pub(super) call_arg_attrs: Vec<String>,
    pub(super) call_ret_attrs: String,
}

impl Gen<'_> {
    fn attr(&mut self, text: &str) -> String {
        if chance(&mut self.rng, self.cfg.p_attrs) {
            format!("{text} ")
        } else {
            String::new()
        }
    }

    /// Decides a helper's convention and attributes (all of them true for
    /// the generated body) once its body `f` exists.
    pub(super) fn helper_signature(&mut self, name: String, f: &Function, sret: bool) -> Helper {
        let p = self.cfg.p_attrs;
        let cc = if chance(&mut self.rng, self.cfg.p_cc) {
            *HELPER_CCS.choose(&mut self.rng).expect("nonempty")
        } else {
            ""
        };
        let cc: &'static str = match cc {
            "" => "",
            // LLVM 22 on x86-64 treats XMM0 as callee-saved under coldcc and
            // restores it over a float return value: keep coldcc to
            // helpers that return integers (or nothing, with sret).
            "coldcc" if !f.ret.is_int() && !sret => "fastcc ",
            "fastcc" => "fastcc ",
            "coldcc" => "coldcc ",
            "tailcc" => "tailcc ",
            "preserve_mostcc" => "preserve_mostcc ",
            _ => "ccc ",
        };
        // The recorder's calls are side effects: no `memory(..)`,
        // `speculatable`, `willreturn`, `nosync` or `nofree` claims.
        let effects = self.records || self.calls.iter().any(|&h| self.helpers[h].effects);
        let spec = self.ptr_param.is_none()
            && self.bufs.is_empty()
            && !sret
            && !self.uses_div
            && !effects
            && !self.recursive
            && self.calls.iter().all(|&h| self.helpers[h].spec);
        // Memory effects: only the array pointer and the sret pointer, and
        // the helper's own stack; callees are free of pointers.
        let (mut reads, mut writes) = (!self.bufs.is_empty(), sret);
        if let Some((mode, _)) = self.ptr_param {
            reads |= mode != PtrMode::Write;
            writes |= mode != PtrMode::Read;
        }
        for &h in &self.calls {
            // Callees take no array pointers; an sret callee writes the
            // helper's own stack only.
            debug_assert!(self.helpers[h].ptr.is_none());
        }
        let mut fn_attrs = String::new();
        for a in ["nounwind", "willreturn", "norecurse", "nofree", "nosync", "mustprogress"] {
            let holds = match a {
                "norecurse" => !self.recursive && !effects,
                "willreturn" | "nofree" | "nosync" => !effects,
                _ => true,
            };
            if chance(&mut self.rng, p) && holds {
                let _ = write!(fn_attrs, " {a}");
            }
        }
        if spec && chance(&mut self.rng, p) {
            fn_attrs.push_str(" speculatable");
        }
        if chance(&mut self.rng, p) && !effects {
            let argmem = match (reads, writes) {
                (false, false) => None,
                (true, false) => Some("read"),
                (false, true) => Some("write"),
                (true, true) => Some("readwrite"),
            };
            let m = match argmem {
                None => *["memory(none)", "memory(none)", "memory(read)", "memory(argmem: read)"]
                    .choose(&mut self.rng)
                    .expect("nonempty"),
                Some("read") => *["memory(argmem: read)", "memory(read)"].choose(&mut self.rng).expect("nonempty"),
                Some("write") => {
                    *["memory(argmem: write)", "memory(argmem: readwrite)"].choose(&mut self.rng).expect("nonempty")
                }
                Some(_) => "memory(argmem: readwrite)",
            };
            let _ = write!(fn_attrs, " {m}");
        }
        // Scalar parameters: noundef, and range where callers mask the argument.
        let mut masks = Vec::new();
        let mut param_attrs = Vec::new();
        let mut call_arg_attrs = Vec::new();
        for t in &f.params {
            let mut a = self.attr("noundef");
            let mask = if t.is_int() && chance(&mut self.rng, p * 0.5) {
                let m = *[1u64, 7, 63, 255, 65535].choose(&mut self.rng).expect("nonempty");
                let _ = write!(a, "range({} 0, {}) ", t.ir(), m + 1);
                Some(m)
            } else {
                None
            };
            masks.push(mask);
            param_attrs.push(a);
            call_arg_attrs.push(self.attr("noundef"));
        }
        let mut ret_attrs = if sret { String::new() } else { self.attr("noundef") };
        if let (Some(m), false) = (self.ret_mask, sret) {
            let _ = write!(ret_attrs, "range({} 0, {}) ", f.ret.ir(), m + 1);
        }
        let call_ret_attrs = if sret { String::new() } else { self.attr("noundef") };
        // The array pointer: always a whole, aligned, private array of the caller.
        let (mut ptr_attrs, mut call_ptr_attrs) = (String::new(), String::new());
        if let Some((mode, ty)) = self.ptr_param {
            let arr = format!("[{ARRAY_LEN} x {}]", ty.ir());
            let bytes = ARRAY_LEN * (ty.bits() as u64 / 8);
            if mode == PtrMode::Byval {
                ptr_attrs = format!("byval({arr}) align 16 ");
                call_ptr_attrs = ptr_attrs.clone();
                ptr_attrs.push_str(&self.attr("noundef"));
            } else {
                for a in ["noundef", "nonnull", "noalias"] {
                    ptr_attrs.push_str(&self.attr(a));
                }
                match mode {
                    PtrMode::Read => ptr_attrs.push_str(&self.attr("readonly")),
                    PtrMode::Write => ptr_attrs.push_str(&self.attr("writeonly")),
                    _ => {}
                }
                let cap = *["captures(none)", "nocapture"].choose(&mut self.rng).expect("nonempty");
                ptr_attrs.push_str(&self.attr(cap));
                ptr_attrs.push_str(&self.attr(&format!("dereferenceable({bytes})")));
                let align = *[4u32, 8, 16].choose(&mut self.rng).expect("nonempty");
                ptr_attrs.push_str(&self.attr(&format!("align {}", align.min(16))));
                call_ptr_attrs.push_str(&self.attr("noundef"));
                call_ptr_attrs.push_str(&self.attr("nonnull"));
            }
        }
        // A buffer pointer: a whole read-only buffer of the caller.
        let mut buf_attrs = Vec::new();
        for b in self.bufs.clone() {
            let mut a = String::new();
            for x in ["noundef", "nonnull", "readonly"] {
                a.push_str(&self.attr(x));
            }
            a.push_str(&self.attr(&format!("dereferenceable({})", b.len * b.elem.bytes())));
            buf_attrs.push(a);
        }
        let mut sret_attrs = String::new();
        if sret {
            let st = format!("{{ {}, i32 }}", f.ret.ir());
            for a in ["noalias", "nonnull", "writeonly", "captures(none)"] {
                sret_attrs.push_str(&self.attr(a));
            }
            let _ = write!(sret_attrs, "sret({st}) align 8 ");
            sret_attrs.push_str(&self.attr(&format!("dereferenceable({})", sret_size(f.ret))));
        }
        if !self.cfg.emit_attrs {
            fn_attrs.clear();
            ret_attrs.clear();
            param_attrs.iter_mut().for_each(String::clear);
            call_arg_attrs.iter_mut().for_each(String::clear);
            buf_attrs.iter_mut().for_each(String::clear);
            if self.ptr_param.is_some_and(|(m, _)| m == PtrMode::Byval) {
                ptr_attrs.clone_from(&call_ptr_attrs);
            } else {
                ptr_attrs.clear();
                call_ptr_attrs.clear();
            }
            if sret {
                sret_attrs = format!("sret({{ {}, i32 }}) align 8 ", f.ret.ir());
            }
        }
        let call_ret_attrs = if self.cfg.emit_attrs { call_ret_attrs } else { String::new() };
        Helper {
            name,
            params: f.params.clone(),
            masks,
            ret: f.ret,
            ptr: self.ptr_param,
            spec,
            recursive: self.recursive,
            effects,
            buf: self.bufs.first().map(|b| (b.elem, b.len)),
            sig: Sig {
                linkage: "internal ",
                cc,
                ret_attrs,
                fn_attrs,
                param_attrs,
                ptr_attrs,
                sret_attrs,
                sret,
                pair: false,
                buf_attrs,
            },
            call_ptr_attrs,
            call_arg_attrs,
            call_ret_attrs,
        }
    }

    /// The top-level function's linkage, convention and attributes.
    pub(super) fn top_level_signature(&mut self, f: &Function) -> Sig {
        let cfg = self.cfg;
        let mut sig = Sig { param_attrs: vec![String::new(); f.params.len()], ..Sig::default() };
        let effects = self.records || self.calls.iter().any(|&h| self.helpers[h].effects);
        // Buffers: `dereferenceable` always (the oracle sizes the buffer by
        // it), the rest when attributes are on.
        for b in &f.bufs {
            // The same random choices with and without attributes.
            let (on, noalias, readonly, align) =
                (self.rng.gen_bool(0.6), self.rng.gen_bool(0.5), self.rng.gen_bool(0.5), self.rng.gen_bool(0.5));
            let mut a = String::new();
            if cfg.emit_attrs && on {
                a.push_str("noundef nonnull ");
                if noalias {
                    a.push_str("noalias ");
                }
                if b.role == BufRole::Read && readonly {
                    a.push_str("readonly ");
                }
                if align {
                    let _ = write!(a, "align {} ", b.elem.bytes());
                }
            }
            let _ = write!(a, "dereferenceable({}) ", b.len * b.elem.bytes());
            sig.buf_attrs.push(a);
        }
        if cfg.top_level_internal && self.rng.gen_bool(0.5) {
            sig.linkage = "internal ";
        }
        if cfg.top_level_cc {
            sig.cc = match *TOP_CCS.choose(&mut self.rng).expect("nonempty") {
                "fastcc" => "fastcc ",
                "tailcc" => "tailcc ",
                _ => "",
            };
        }
        if chance(&mut self.rng, cfg.p_top_attrs) {
            for a in ["nounwind", "willreturn", "mustprogress"] {
                if self.rng.gen_bool(0.7) && !(a == "willreturn" && effects) {
                    let _ = write!(sig.fn_attrs, " {a}");
                }
            }
            // Its arrays and sret temporaries are its own stack, but keep
            // the claim to functions without any.
            let stack = !f.arrays.is_empty() || self.calls.iter().any(|&h| self.helpers[h].sig.sret);
            if !stack && !effects && self.rng.gen_bool(0.7) {
                if f.bufs.is_empty() {
                    sig.fn_attrs.push_str(" memory(none)");
                } else if f.bufs.iter().all(|b| b.role == BufRole::Read) {
                    sig.fn_attrs.push_str(" memory(argmem: read)");
                } else {
                    sig.fn_attrs.push_str(" memory(argmem: readwrite)");
                }
            }
            for a in sig.param_attrs.iter_mut() {
                if self.rng.gen_bool(0.7) {
                    a.push_str("noundef ");
                }
            }
            if self.rng.gen_bool(0.7) {
                sig.ret_attrs.push_str("noundef ");
            }
            if !cfg.emit_attrs {
                sig = Sig { linkage: sig.linkage, cc: sig.cc, buf_attrs: sig.buf_attrs, ..Sig::default() };
            }
        }
        sig
    }
}
