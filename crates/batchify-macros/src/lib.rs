//! `#[batchify::batch]`: an N-lane array version of a scalar Rust function.
//! Use it as `batchify::batch` (the `batchify` crate re-exports it next to
//! the cross-lane operations).
//!
//! ```ignore
//! #[batchify::batch(width = 8)]
//! pub fn mandel(cx: f32, cy: f32) -> u32 { /* scalar code */ }
//! // also generates: pub fn mandel_x8(cx: [f32; 8], cy: [f32; 8]) -> [u32; 8]
//!
//! #[batchify::batch(width = 4, uniform(table, scale), masked)]
//! pub fn lookup(table: &[f32], scale: f32, x: f32) -> f32 { /* ... */ }
//! // also generates:
//! // pub fn lookup_x4(table: &[f32], scale: f32, x: [f32; 4], mask: [bool; 4]) -> [f32; 4]
//! ```
//!
//! Options: `width = N` (required, 1 to 64), `uniform(a, b, ...)` (these
//! parameters are shared by all lanes; the others are varying, one value per
//! lane), `name = "..."` (the generated function's name instead of
//! `<fn>_x<N>`), `masked` (adds `mask: [bool; N]`; lanes whose mask is
//! `false` are not computed and return `Default::default()`).
//!
//! Types: varying parameters and the return type are `f32`, `f64`,
//! `i8`..`i64`, `u8`..`u64`, `isize`, `usize` or `bool` (and `()` as the
//! return type, in which case the generated function returns nothing).
//! Uniform parameters may also be `&T`, `&[T]`, `*const T` and `*mut T`
//! of those types. Anything
//! else (generics, `async`, `unsafe`, `self`, patterns in parameters, other
//! types, varying references) is a compile error at the offending token.
//!
//! The macro keeps the scalar function as written and adds three items
//! (the shape is described in `docs/rust.md`):
//!
//! 1. a hidden scalar shim `extern "C" fn` with a unique symbol
//!    (`__batchify_s_<fn>_<hash>`, the hash covering the crate, file, line,
//!    column and function), which calls the scalar function. This is the
//!    scalar function the Vector Function ABI name refers to;
//! 2. a hidden **array-form request** (see `docs/plugin.md`),
//!    `#[export_name = "__batchify_array__ZGVd{N|M}<width><letters>_<shim>"]`,
//!    whose body is the scalar loop over the lanes. The batchify pass plugin
//!    replaces that body with a call of the AVX2 variant it builds from the
//!    shim; without the plugin, the loop runs;
//! 3. the safe `<fn>_x<N>`, which calls the request on x86_64 CPUs with AVX2
//!    and otherwise runs the scalar loop itself.
//!
//! Results are the same with and without the plugin; only the speed
//! differs. The generated code uses `::std` (`is_x86_feature_detected!`).

#![warn(missing_docs)]

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as TokenStream2};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Error, FnArg, Ident, ItemFn, LitInt, LitStr, Meta, Pat, ReturnType, Token, Type};

/// The largest `width` the macro accepts.
const MAX_WIDTH: u32 = 64;

/// The scalar types a lane may carry.
const SCALARS: &[&str] =
    &["f32", "f64", "i8", "i16", "i32", "i64", "isize", "u8", "u16", "u32", "u64", "usize", "bool"];

/// Generates an N-lane array version of a scalar function; see the crate
/// documentation.
#[proc_macro_attribute]
pub fn batch(attr: TokenStream, item: TokenStream) -> TokenStream {
    let call_site = proc_macro::Span::call_site();
    let location = format!("{}:{}:{}", call_site.file(), call_site.line(), call_site.column());
    match expand(attr.into(), item.into(), &location) {
        Ok(tokens) => tokens.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

/// The attribute's options.
struct Options {
    width: u32,
    uniform: Vec<Ident>,
    name: Option<Ident>,
    masked: bool,
}

fn parse_options(attr: TokenStream2) -> syn::Result<Options> {
    let metas = Punctuated::<Meta, Token![,]>::parse_terminated.parse2(attr)?;
    let mut width: Option<u32> = None;
    let mut uniform: Option<Vec<Ident>> = None;
    let mut name: Option<Ident> = None;
    let mut masked = false;
    for meta in &metas {
        let key = meta.path().get_ident().map(ToString::to_string).unwrap_or_default();
        match (key.as_str(), meta) {
            ("width", Meta::NameValue(nv)) if width.is_none() => {
                let lit: LitInt = syn::parse2(nv.value.to_token_stream()).map_err(|_| {
                    Error::new(nv.value.span(), format!("`width` must be an integer from 1 to {MAX_WIDTH}"))
                })?;
                let w: u32 = lit.base10_parse().unwrap_or(0);
                if !(1..=MAX_WIDTH).contains(&w) {
                    return Err(Error::new(lit.span(), format!("`width` must be from 1 to {MAX_WIDTH}, not {lit}")));
                }
                width = Some(w);
            }
            ("uniform", Meta::List(list)) if uniform.is_none() => {
                let names = list.parse_args_with(Punctuated::<Ident, Token![,]>::parse_terminated)?;
                uniform = Some(names.into_iter().collect());
            }
            ("name", Meta::NameValue(nv)) if name.is_none() => {
                let lit: LitStr = syn::parse2(nv.value.to_token_stream())
                    .map_err(|_| Error::new(nv.value.span(), "`name` must be a string literal: name = \"...\""))?;
                let ident = lit
                    .parse::<Ident>()
                    .map_err(|_| Error::new(lit.span(), format!("`name`: {:?} is not an identifier", lit.value())))?;
                name = Some(ident);
            }
            ("masked", Meta::Path(_)) if !masked => masked = true,
            ("width" | "uniform" | "name" | "masked", _) => {
                let form = match key.as_str() {
                    "width" => "width = N",
                    "uniform" => "uniform(a, b, ...)",
                    "name" => "name = \"...\"",
                    _ => "masked",
                };
                return Err(Error::new(
                    meta.span(),
                    format!("`{key}` given twice or in the wrong form (expected `{form}`)"),
                ));
            }
            _ => {
                return Err(Error::new(
                    meta.path().span(),
                    "unknown option; expected `width = N`, `uniform(...)`, `name = \"...\"` or `masked`",
                ))
            }
        }
    }
    let width = width
        .ok_or_else(|| Error::new(Span::call_site(), "missing `width = N` (e.g. `#[batchify::batch(width = 8)]`)"))?;
    Ok(Options { width, uniform: uniform.unwrap_or_default(), name, masked })
}

/// How one parameter of the scalar function is passed.
enum Kind {
    /// One value per lane: `[T; N]` in the generated function.
    Varying(Type),
    /// A shared scalar or reference: one IR parameter.
    Uniform(Type),
    /// A shared slice `&[T]`: two IR parameters (pointer, length).
    Slice(Type),
}

struct Param {
    name: Ident,
    ty: Type,
    kind: Kind,
}

fn is_scalar(ty: &Type) -> bool {
    match ty {
        Type::Path(p) if p.qself.is_none() => {
            p.path.get_ident().is_some_and(|i| SCALARS.contains(&i.to_string().as_str()))
        }
        Type::Paren(p) => is_scalar(&p.elem),
        Type::Group(g) => is_scalar(&g.elem),
        _ => false,
    }
}

fn unsupported(ty: &Type, what: &str) -> Error {
    // A lone name that is not a primitive: most often a type alias, which a
    // macro cannot resolve (it sees tokens, not what names stand for).
    if let Type::Path(p) = ty {
        const OTHER_PRIMITIVES: &[&str] = &["i128", "u128", "char", "str", "f16", "f128"];
        let alias =
            p.path.get_ident().filter(|i| p.qself.is_none() && !OTHER_PRIMITIVES.contains(&i.to_string().as_str()));
        if let Some(name) = alias {
            return Error::new(
                ty.span(),
                format!(
                    "unsupported {what} type `{name}`; batchify supports f32, f64, i8..i64, u8..u64, isize, usize \
                     and bool{} (a type alias of one of them cannot be used: a macro sees the name, not what it \
                     stands for)",
                    if what == "uniform parameter" {
                        ", and `&T`, `&[T]`, `*const T` and `*mut T` of those"
                    } else {
                        ""
                    }
                ),
            );
        }
    }
    Error::new(
        ty.span(),
        format!(
            "unsupported {what} type; batchify supports f32, f64, i8..i64, u8..u64, isize, usize and bool{}",
            if what == "uniform parameter" { ", and `&T`, `&[T]`, `*const T` and `*mut T` of those" } else { "" }
        ),
    )
}

fn classify(ty: &Type, uniform: bool) -> syn::Result<Kind> {
    if is_scalar(ty) {
        return Ok(if uniform { Kind::Uniform(ty.clone()) } else { Kind::Varying(ty.clone()) });
    }
    if let Type::Ptr(p) = ty {
        // A raw pointer is one address for all lanes, as in C; what the
        // function does through it is the caller's `unsafe` business (a
        // destination for `batchify::packed_store_active_*`).
        if uniform && is_scalar(&p.elem) {
            return Ok(Kind::Uniform(ty.clone()));
        }
        if !uniform {
            return Err(Error::new(
                ty.span(),
                "a varying parameter cannot be a pointer; list it in `uniform(...)` to share it between lanes",
            ));
        }
    }
    if let Type::Reference(r) = ty {
        if !uniform {
            return Err(Error::new(
                ty.span(),
                "a varying parameter cannot be a reference or slice; list it in `uniform(...)` to share it between lanes",
            ));
        }
        if let Some(m) = r.mutability {
            return Err(Error::new(
                m.span(),
                "`&mut` parameters are not supported (lanes would share one mutable place)",
            ));
        }
        if is_scalar(&r.elem) {
            return Ok(Kind::Uniform(ty.clone()));
        }
        if let Type::Slice(s) = &*r.elem {
            if is_scalar(&s.elem) {
                return Ok(Kind::Slice((*s.elem).clone()));
            }
        }
    }
    Err(unsupported(ty, if uniform { "uniform parameter" } else { "varying parameter" }))
}

fn check_signature(f: &ItemFn) -> syn::Result<()> {
    let sig = &f.sig;
    if let Some(a) = &sig.asyncness {
        return Err(Error::new(a.span(), "`async` functions cannot be batched"));
    }
    if let Some(u) = &sig.unsafety {
        return Err(Error::new(u.span(), "`unsafe` functions cannot be batched (the generated function is safe)"));
    }
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        return Err(Error::new(
            sig.generics.span(),
            "generic functions cannot be batched (lifetimes of references can be elided)",
        ));
    }
    if let Some(v) = &sig.variadic {
        return Err(Error::new(v.span(), "variadic functions cannot be batched"));
    }
    Ok(())
}

fn parse_params(f: &ItemFn, opts: &Options) -> syn::Result<Vec<Param>> {
    // A name in `uniform(...)` that is no parameter is a typo: say so before
    // the parameter it meant is judged as varying.
    let names: Vec<&Ident> = f
        .sig
        .inputs
        .iter()
        .filter_map(|a| match a {
            FnArg::Typed(pt) => match &*pt.pat {
                Pat::Ident(pi) => Some(&pi.ident),
                _ => None,
            },
            FnArg::Receiver(_) => None,
        })
        .collect();
    for u in &opts.uniform {
        if !names.contains(&u) {
            return Err(Error::new(u.span(), format!("`uniform({u})`: the function has no parameter `{u}`")));
        }
    }
    let mut params = Vec::new();
    for arg in &f.sig.inputs {
        let pt = match arg {
            FnArg::Receiver(r) => {
                return Err(Error::new(r.span(), "methods (`self` parameters) cannot be batched; use a free function"))
            }
            FnArg::Typed(pt) => pt,
        };
        let name = match &*pt.pat {
            Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => pi.ident.clone(),
            other => {
                return Err(Error::new(other.span(), "patterns in parameters are not supported; use a plain name"))
            }
        };
        if opts.masked && name == "mask" {
            return Err(Error::new(name.span(), "`masked` adds a parameter `mask`; rename this one"));
        }
        let uniform = opts.uniform.contains(&name);
        let kind = classify(&pt.ty, uniform)?;
        params.push(Param { name, ty: (*pt.ty).clone(), kind });
    }
    Ok(params)
}

/// FNV-1a, 64 bits: stable across compilers, unlike `DefaultHasher`.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3))
}

fn expand(attr: TokenStream2, item: TokenStream2, location: &str) -> syn::Result<TokenStream2> {
    let opts = parse_options(attr)?;
    let f: ItemFn = syn::parse2(item)?;
    if let Some(again) = f.attrs.iter().find(|a| a.path().segments.last().is_some_and(|s| s.ident == "batch")) {
        return Err(Error::new(
            again.span(),
            "a second `#[batch]` on one function: each generates the same scalar shim; batch it once, and for \
             another width batch a wrapper function that calls it",
        ));
    }
    check_signature(&f)?;
    let params = parse_params(&f, &opts)?;
    let ret: Option<Type> = match &f.sig.output {
        ReturnType::Default => None,
        ReturnType::Type(_, ty) => match &**ty {
            Type::Tuple(t) if t.elems.is_empty() => None,
            ty if is_scalar(ty) => Some(ty.clone()),
            ty => return Err(unsupported(ty, "return")),
        },
    };

    let fname = &f.sig.ident;
    let vis = &f.vis;
    let width = opts.width as usize;
    let n = proc_macro2::Literal::usize_unsuffixed(width);
    let xname = opts.name.clone().unwrap_or_else(|| format_ident!("{}_x{}", fname, width));

    // A symbol unique to this crate (cargo's name and version, when cargo
    // runs rustc), source position and function.
    let key = format!(
        "{}\0{}\0{}\0{}",
        std::env::var("CARGO_CRATE_NAME").unwrap_or_default(),
        std::env::var("CARGO_PKG_VERSION").unwrap_or_default(),
        location,
        fname
    );
    let shim_symbol = format!("__batchify_s_{}_{:016x}", fname, fnv1a(key.as_bytes()));
    let letters: String = params
        .iter()
        .map(|p| match p.kind {
            Kind::Varying(_) => "v",
            Kind::Uniform(_) => "u",
            Kind::Slice(_) => "uu",
        })
        .collect();
    let variant = format!("_ZGVd{}{}{}_{}", if opts.masked { 'M' } else { 'N' }, width, letters, shim_symbol);
    let request_symbol = format!("__batchify_array_{variant}");
    let map_symbol = format!("__batchify_map_{variant}");
    let map_request = format_ident!("__batchify_map_request_{}", fname);
    let shim = format_ident!("__batchify_shim_{}", fname);
    let request = format_ident!("__batchify_request_{}", fname);

    // Shim: IR-level parameters (slices split into pointer and length).
    let mut shim_params = Vec::new();
    let mut shim_call_args = Vec::new(); // shim -> scalar function
    let mut req_params = Vec::new();
    let mut req_lane_args = Vec::new(); // request lane k -> shim
    let mut x_params = Vec::new();
    let mut x_req_args = Vec::new(); // x-fn -> request
    let mut scalar_lane_args = Vec::new(); // x-fn lane k -> scalar function
    let mut slice_params = Vec::new(); // the slice API's parameters
    let mut chunk_args = Vec::new(); // slice API, a full chunk -> x-fn
    let mut tail_args = Vec::new(); // slice API, the padded last chunk -> x-fn
    let mut rest_args = Vec::new(); // slice API, element j -> scalar function
    let mut varying_names = Vec::new();
    for p in &params {
        let name = &p.name;
        let ty = &p.ty;
        match &p.kind {
            Kind::Varying(t) => {
                shim_params.push(quote!(#name: #t));
                shim_call_args.push(quote!(#name));
                req_params.push(quote!(#name: *const #t));
                req_lane_args.push(quote!(*#name.add(__batchify_k)));
                x_params.push(quote!(#name: [#t; #n]));
                x_req_args.push(quote!(#name.as_ptr()));
                scalar_lane_args.push(quote!(#name[__batchify_k]));
                slice_params.push(quote!(#name: &[#t]));
                chunk_args.push(quote!(<[#t; #n]>::try_from(&#name[__batchify_i..__batchify_i + #n]).unwrap()));
                tail_args.push(quote!({
                    let mut __batchify_a = [<#t as ::core::default::Default>::default(); #n];
                    __batchify_a[..__batchify_len - __batchify_i].copy_from_slice(&#name[__batchify_i..]);
                    __batchify_a
                }));
                rest_args.push(quote!(#name[__batchify_j]));
                varying_names.push(name.clone());
            }
            Kind::Uniform(t) => {
                shim_params.push(quote!(#name: #t));
                shim_call_args.push(quote!(#name));
                req_params.push(quote!(#name: #t));
                req_lane_args.push(quote!(#name));
                x_params.push(quote!(#name: #ty));
                x_req_args.push(quote!(#name));
                scalar_lane_args.push(quote!(#name));
            }
            Kind::Slice(t) => {
                let ptr = format_ident!("__batchify_{}_ptr", name);
                let len = format_ident!("__batchify_{}_len", name);
                shim_params.push(quote!(#ptr: *const #t, #len: usize));
                shim_call_args.push(quote!(::core::slice::from_raw_parts(#ptr, #len)));
                req_params.push(quote!(#ptr: *const #t, #len: usize));
                req_lane_args.push(quote!(#ptr, #len));
                x_params.push(quote!(#name: #ty));
                x_req_args.push(quote!(#name.as_ptr(), #name.len()));
                scalar_lane_args.push(quote!(#name));
            }
        }
        if !matches!(p.kind, Kind::Varying(_)) {
            // The same in every call: the slice API passes it on.
            slice_params.push(quote!(#name: #ty));
            chunk_args.push(quote!(#name));
            tail_args.push(quote!(#name));
            rest_args.push(quote!(#name));
        }
    }
    let mask_param = opts.masked.then(|| quote!(__batchify_mask: *const u8));
    let mask_x_param = opts.masked.then(|| quote!(mask: [bool; #n]));
    let mask_x_arg = opts.masked.then(|| quote!(mask.as_ptr() as *const u8));
    let req_active = if opts.masked { quote!(*__batchify_mask.add(__batchify_k) != 0) } else { quote!(true) };
    let x_active = if opts.masked { quote!(mask[__batchify_k]) } else { quote!(true) };

    let (shim_ret, out_param, out_arg, req_store, x_ret, x_init, x_store, x_result) = match &ret {
        Some(r) => (
            quote!(-> #r),
            Some(quote!(__batchify_out: *mut #r,)),
            Some(quote!(__batchify_out.as_mut_ptr(),)),
            quote!(*__batchify_out.add(__batchify_k) = ),
            quote!(-> [#r; #n]),
            quote!(let mut __batchify_out: [#r; #n] = [<#r as ::core::default::Default>::default(); #n];),
            quote!(__batchify_out[__batchify_k] = ),
            quote!(__batchify_out),
        ),
        None => (quote!(), None, None, quote!(), quote!(), quote!(), quote!(), quote!()),
    };
    let doc = format!(
        "The {width}-lane version of [`{fname}`] generated by `#[batchify::batch]`: lane `k` of the result is \
         `{fname}` applied to lane `k` of each array argument{}.",
        if opts.masked {
            " (lanes whose `mask` is `false` are not computed and hold `Default::default()`)"
        } else {
            ""
        }
    );

    let map_out_param = ret.as_ref().map(|r| quote!(, __batchify_out: *mut #r));
    let map_out_arg = ret.as_ref().map(|_| quote!(, out.as_mut_ptr()));
    let slice_fn = slice_api(SliceApi {
        fname,
        vis,
        xname: &xname,
        width,
        masked: opts.masked,
        ret: ret.as_ref(),
        params: &slice_params,
        chunk_args: &chunk_args,
        tail_args: &tail_args,
        rest_args: &rest_args,
        varying: &varying_names,
        map: quote!(#map_request(__batchify_len, #(#x_req_args),* #map_out_arg)),
    });

    // The map request (docs/plugin.md, "Map requests"): the slice API's
    // loop, replaced by the plugin with groups of the variant and one
    // masked call for the tail. Never inlined, as the array request. Only
    // where there is a slice API to call it.
    let map_fn = (!varying_names.is_empty() || ret.is_some()).then(|| {
        quote! {
            #[doc(hidden)]
            #[inline(never)]
            #[allow(non_snake_case, clippy::missing_safety_doc, unused_unsafe)]
            #[unsafe(export_name = #map_symbol)]
            unsafe extern "C-unwind" fn #map_request(__batchify_n: usize, #(#req_params),* #map_out_param) {
                for __batchify_k in 0..__batchify_n {
                    unsafe {
                        #req_store #shim(#(#req_lane_args),*);
                    }
                }
            }
        }
    });

    let span = Span::call_site();
    Ok(quote_spanned! {span=>
        #f

        #[doc(hidden)]
        #[inline]
        #[allow(non_snake_case, clippy::missing_safety_doc, unused_unsafe)]
        #[unsafe(export_name = #shim_symbol)]
        unsafe extern "C-unwind" fn #shim(#(#shim_params),*) #shim_ret {
            unsafe { #fname(#(#shim_call_args),*) }
        }

        // Never inlined: the plugin replaces the request's body at
        // OptimizerEarly, after the inliner. Where the caller may inline it
        // (its target features include AVX2, e.g. `-C target-cpu=native`),
        // an inlined copy of the scalar loop would stay scalar.
        #[doc(hidden)]
        #[inline(never)]
        #[allow(non_snake_case, clippy::missing_safety_doc, unused_unsafe)]
        #[unsafe(export_name = #request_symbol)]
        unsafe extern "C-unwind" fn #request(#out_param #(#req_params,)* #mask_param) {
            for __batchify_k in 0..#n {
                unsafe {
                    if #req_active {
                        #req_store #shim(#(#req_lane_args),*);
                    }
                }
            }
        }

        #map_fn

        #[doc = #doc]
        #[allow(clippy::too_many_arguments, clippy::needless_range_loop, unused_mut)]
        #vis fn #xname(#(#x_params,)* #mask_x_param) #x_ret {
            #x_init
            #[cfg(target_arch = "x86_64")]
            {
                if ::std::is_x86_feature_detected!("avx2") {
                    // SAFETY: every pointer is to `width` live values (or to
                    // a live slice with its own length) for the call.
                    unsafe { #request(#out_arg #(#x_req_args,)* #mask_x_arg) };
                    return #x_result;
                }
            }
            for __batchify_k in 0..#n {
                if #x_active {
                    #x_store #fname(#(#scalar_lane_args),*);
                }
            }
            #x_result
        }

        #slice_fn
    })
}

/// What [`slice_api`] needs from [`expand`].
struct SliceApi<'a> {
    fname: &'a Ident,
    vis: &'a syn::Visibility,
    xname: &'a Ident,
    width: usize,
    masked: bool,
    ret: Option<&'a Type>,
    params: &'a [TokenStream2],
    chunk_args: &'a [TokenStream2],
    tail_args: &'a [TokenStream2],
    rest_args: &'a [TokenStream2],
    varying: &'a [Ident],
    /// The call of the map request over all `__batchify_len` elements.
    map: TokenStream2,
}

/// `f_slice`: `f` over whole slices: on AVX2 CPUs one call of the map
/// request (under the plugin, groups of the variant with a masked tail),
/// elsewhere `width` elements per call of `f_xN` and the rest by the
/// masked `f_xN` (masked functions) or by scalar calls. Nothing for a function without a varying parameter or a result
/// (no length to run over).
fn slice_api(a: SliceApi) -> TokenStream2 {
    let SliceApi { fname, vis, xname, width, masked, ret, params, chunk_args, tail_args, rest_args, varying, map } = a;
    if varying.is_empty() && ret.is_none() {
        return quote!();
    }
    let n = proc_macro2::Literal::usize_unsuffixed(width);
    let name = format_ident!("{}_slice", fname);
    let (out_param, len_from) = match (ret, varying.first()) {
        (Some(r), _) => (Some(quote!(out: &mut [#r])), quote!(out.len())),
        (None, Some(first)) => (None, quote!(#first.len())),
        (None, None) => unreachable!(),
    };
    let reference = if ret.is_some() { "out" } else { "the first slice" };
    let checks = varying.iter().map(|v| {
        let message = format!("`{name}`: `{v}` has {{}} elements, {reference} has {{}}");
        quote! {
            if #v.len() != __batchify_len {
                panic!(#message, #v.len(), __batchify_len);
            }
        }
    });
    let all = masked.then(|| quote!([true; #n]));
    let (store_chunk, store_tail, store_rest) = if ret.is_some() {
        (
            quote!(out[__batchify_i..__batchify_i + #n].copy_from_slice(&__batchify_r);),
            quote!(out[__batchify_i..].copy_from_slice(&__batchify_r[..__batchify_len - __batchify_i]);),
            quote!(out[__batchify_j] = ),
        )
    } else {
        (quote!(), quote!(), quote!())
    };
    let bind = if ret.is_some() { quote!(let __batchify_r = ) } else { quote!(let _ = ) };
    let tail = if masked {
        quote! {
            if __batchify_i < __batchify_len {
                let mut __batchify_m = [false; #n];
                __batchify_m[..__batchify_len - __batchify_i].fill(true);
                #bind #xname(#(#tail_args,)* __batchify_m);
                #store_tail
            }
        }
    } else {
        quote! {
            for __batchify_j in __batchify_i..__batchify_len {
                #store_rest #fname(#(#rest_args),*);
            }
        }
    };
    let what = if ret.is_some() { "`out[i]` is" } else { "it calls" };
    let doc = format!(
        "[`{fname}`] over whole slices, generated by `#[batchify::batch]`: {what} `{fname}` of element `i` of \
         each slice argument, {width} elements per call of [`{xname}`] and the last ones by {}. Panics when the \
         slices' lengths differ.",
        if masked { format!("one masked call of `{xname}`") } else { format!("calls of `{fname}`") }
    );
    quote! {
        #[doc = #doc]
        #[allow(clippy::too_many_arguments, clippy::needless_range_loop, unused_variables)]
        #vis fn #name(#(#params,)* #out_param) {
            let __batchify_len = #len_from;
            #(#checks)*
            #[cfg(target_arch = "x86_64")]
            {
                if ::std::is_x86_feature_detected!("avx2") {
                    // SAFETY: every varying slice and `out` hold
                    // `__batchify_len` elements; uniform slices are passed
                    // with their own length.
                    unsafe { #map };
                    return;
                }
            }
            let mut __batchify_i = 0;
            while __batchify_i + #n <= __batchify_len {
                #bind #xname(#(#chunk_args,)* #all);
                #store_chunk
                __batchify_i += #n;
            }
            #tail
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expanded(attr: TokenStream2, item: TokenStream2) -> String {
        expand(attr, item, "t.rs:1:1").map(|t| t.to_string()).unwrap_or_else(|e| format!("error: {e}"))
    }

    #[test]
    fn one_letter_per_ir_parameter() {
        let out = expanded(
            quote!(width = 8, uniform(t, r)),
            quote!(
                pub fn f(t: &[f32], r: &u8, x: f64, b: bool) -> f64 {
                    x
                }
            ),
        );
        assert!(out.contains("\"__batchify_array__ZGVdN8uuuvv___batchify_s_f_"), "{out}");
        assert!(
            out.contains("pub fn f_x8 (t : & [f32] , r : & u8 , x : [f64 ; 8] , b : [bool ; 8] ,) -> [f64 ; 8]"),
            "{out}"
        );
    }

    #[test]
    fn masked_name_and_unit_return() {
        let out = expanded(
            quote!(masked, width = 2, name = "g"),
            quote!(
                fn f(x: i8) {}
            ),
        );
        assert!(out.contains("\"__batchify_array__ZGVdM2v___batchify_s_f_"), "{out}");
        assert!(out.contains("fn g (x : [i8 ; 2] , mask : [bool ; 2]) {"), "{out}");
    }

    #[test]
    fn symbols_differ_by_location() {
        let at = |loc| {
            expand(
                quote!(width = 4),
                quote!(
                    fn f(x: f32) -> f32 {
                        x
                    }
                ),
                loc,
            )
            .unwrap()
            .to_string()
        };
        assert_ne!(at("a.rs:1:1"), at("a.rs:2:1"));
    }

    #[test]
    fn errors_are_errors() {
        assert!(expanded(
            quote!(),
            quote!(
                fn f(x: f32) {}
            )
        )
        .starts_with("error: missing `width"));
        assert!(expanded(
            quote!(width = 4),
            quote!(
                fn f(x: &f32) {}
            )
        )
        .contains("cannot be a reference"));
    }
}
