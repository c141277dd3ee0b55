//! The plugin's options, in one syntax: pass parameters
//! (`batchify<isa=avx2;width=8;veclib=libmvec;report;for-autodiff>`), with the
//! `-batchify-*` command-line options turned into the same syntax by the
//! C++ shim. Explicit pass parameters win over command-line options.

use batchify_core::vfabi::Isa;
use batchify_core::VecLib;

/// What one run of the pass is asked to do.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PluginOptions {
    /// Only build `declare simd` variants for this ISA; also the ISA of
    /// `function=` clones (default: LLVM's generic `_LLVM_` ISA).
    pub isa: Option<Isa>,
    /// Lanes of `function=` clones (default 8).
    pub width: Option<u32>,
    /// Vector math library for functions that are not correctly rounded.
    pub veclib: Option<VecLib>,
    /// Functions to batch with every parameter varying (like the CLI's
    /// `--function`); when given, attribute-requested variants are not built.
    pub functions: Vec<String>,
    /// Vector Function ABI variants to build (like the CLI's `--variant`);
    /// when given, attribute-requested variants are not built either.
    pub variants: Vec<String>,
    /// Print each clone's report lines on stderr (like `--report`).
    pub report: bool,
    /// Leave call sites alone (no `vector-function-abi-variant` added).
    pub no_callers: bool,
    /// Build clones for automatic differentiation (like `--for-autodiff`).
    pub for_autodiff: bool,
    /// Count divergent loops' trips and active lanes (`instrument-lanes`,
    /// like `--instrument-lanes`).
    pub instrument_lanes: bool,
    /// Also build `<function>_map` for the `function=`/`variant=` clones
    /// (like `--map`).
    pub map: bool,
    /// How maps run their elements (`map-form=`, like `--map-form`).
    pub map_form: Option<batchify_core::driver::MapForm>,
    /// The key function of bucketed maps (`bucket=KEY`, like `--bucket`).
    pub bucket: Option<String>,
    /// Lane groups per trip of refilling maps (`refill-groups=`, like
    /// `--refill-groups`).
    pub refill_groups: Option<u32>,
}

impl PluginOptions {
    /// Parses `key=value` and flag items separated by `;`.
    pub fn parse(text: &str) -> Result<PluginOptions, String> {
        let mut o = PluginOptions::default();
        o.merge(text)?;
        Ok(o)
    }

    /// Applies the items of `text` over these options.
    pub fn merge(&mut self, text: &str) -> Result<(), String> {
        for item in text.split(';').map(str::trim).filter(|s| !s.is_empty()) {
            let (key, value) = match item.split_once('=') {
                Some((k, v)) => (k.trim(), Some(v.trim())),
                None => (item, None),
            };
            let need = |what: &str| value.ok_or_else(|| format!("pass parameter `{key}` needs a value ({what})"));
            match key {
                "isa" => {
                    let v = need("sse, avx, avx2, avx512 or generic")?;
                    self.isa = Some(parse_isa(v).ok_or_else(|| {
                        format!(
                            "unknown ISA `{v}` in pass parameter `isa` (expected sse, avx, avx2, avx512, neon, sve or generic)"
                        )
                    })?);
                }
                "width" => {
                    let v = need("a lane count")?;
                    let n: u32 = v.parse().map_err(|_| format!("pass parameter `width={v}` is not a number"))?;
                    if !(1..=1024).contains(&n) {
                        return Err(format!("pass parameter `width={n}` is out of range 1..=1024"));
                    }
                    self.width = Some(n);
                }
                "veclib" => {
                    let v = need("none, libmvec or sleef")?;
                    self.veclib = Some(VecLib::parse(v).ok_or_else(|| {
                        format!(
                            "unknown vector math library `{v}` in pass parameter `veclib` (expected none, libmvec or sleef)"
                        )
                    })?);
                }
                "function" => {
                    let v = need("a function name")?;
                    self.functions.extend(v.split(',').map(str::trim).filter(|s| !s.is_empty()).map(String::from));
                }
                "variant" => {
                    let v = need("a Vector Function ABI name such as _ZGVdN8v_foo")?;
                    for name in v.split(',').map(str::trim).filter(|s| !s.is_empty()) {
                        batchify_core::vfabi::VariantName::parse(name)
                            .map_err(|e| format!("pass parameter `variant={name}`: {e}"))?;
                        self.variants.push(name.to_string());
                    }
                }
                "map-form" => {
                    let v = need("adaptive, refill or grouped")?;
                    self.map_form = Some(batchify_core::driver::MapForm::parse(v).ok_or_else(|| {
                        format!("unknown map form `{v}` in pass parameter `map-form` (expected adaptive, refill or grouped)")
                    })?);
                }
                "bucket" => self.bucket = Some(need("the name of a key function")?.to_string()),
                "refill-groups" => {
                    let v = need("1 or 2")?;
                    self.refill_groups = Some(match v {
                        "1" => 1,
                        "2" => 2,
                        _ => return Err(format!("pass parameter `refill-groups={v}` is not 1 or 2")),
                    });
                }
                "report" if value.is_none() => self.report = true,
                "no-callers" if value.is_none() => self.no_callers = true,
                "for-autodiff" if value.is_none() => self.for_autodiff = true,
                "instrument-lanes" if value.is_none() => self.instrument_lanes = true,
                "map" if value.is_none() => self.map = true,
                _ => {
                    return Err(format!(
                        "unknown pass parameter `{item}` (expected isa=, width=, veclib=, function=, variant=, \
                         map-form=, bucket=, refill-groups=, report, no-callers, for-autodiff, instrument-lanes or map)"
                    ))
                }
            }
        }
        Ok(())
    }
}

/// The ISA names of the CLI's `--isa`.
fn parse_isa(s: &str) -> Option<Isa> {
    Some(match s {
        "sse" => Isa::Sse2,
        "avx" => Isa::Avx,
        "avx2" => Isa::Avx2,
        "avx512" => Isa::Avx512,
        "neon" => Isa::AdvSimd,
        "sve" => Isa::Sve,
        "generic" => Isa::Llvm,
        _ => return None,
    })
}
