//! Test inputs: random values with a fixed seed, mixed with the special
//! values that break vectorizers (NaN payloads, ±0, ±inf, subnormals,
//! INT_MIN, INT_MAX, 0, -1). Values are produced as little-endian bytes of
//! the scalar type's memory form (see [`crate::wrappers::memory_type`]).

use rand::rngs::SmallRng;
use rand::Rng;

/// The scalar shape of a parameter, as far as input generation cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scalar {
    /// Integer of this many bits.
    Int(u32),
    /// IEEE half.
    Half,
    /// IEEE single.
    Float,
    /// IEEE double.
    Double,
    /// A pointer (address space 0). The oracle points it into a guarded
    /// buffer (see [`crate::buffers`]); it is never drawn at random.
    Ptr,
}

impl Scalar {
    /// Bytes of the memory form.
    pub fn bytes(self) -> usize {
        match self {
            Scalar::Int(w) => w.div_ceil(8) as usize,
            Scalar::Half => 2,
            Scalar::Float => 4,
            Scalar::Double => 8,
            Scalar::Ptr => 8,
        }
    }
}

const F32_SPECIAL: &[u32] = &[
    0x0000_0000,
    0x8000_0000,
    0x7f80_0000,
    0xff80_0000,
    0x7fc0_0000,
    0xffc0_0000,
    0x7fc1_2345,
    0x7f80_0001,
    0x0000_0001,
    0x007f_ffff,
    0x8000_0001,
    0x3f80_0000,
    0xbf80_0000,
    0x7f7f_ffff,
    0x0080_0000,
    0x3f00_0000,
    0x4000_0000,
];
const F64_SPECIAL: &[u64] = &[
    0,
    0x8000_0000_0000_0000,
    0x7ff0_0000_0000_0000,
    0xfff0_0000_0000_0000,
    0x7ff8_0000_0000_0000,
    0xfff8_0000_0000_0000,
    0x7ff8_0000_1234_5678,
    0x7ff0_0000_0000_0001,
    1,
    0x000f_ffff_ffff_ffff,
    0x3ff0_0000_0000_0000,
    0xbff0_0000_0000_0000,
    0x7fef_ffff_ffff_ffff,
    0x0010_0000_0000_0000,
    0x3fe0_0000_0000_0000,
];

/// Truncates `v` to `w` bits (the value is kept zero-extended).
pub fn mask_to(v: u64, w: u32) -> u64 {
    if w >= 64 {
        v
    } else {
        v & ((1u64 << w) - 1)
    }
}

/// One random value of a scalar type, as a zero-extended u64 bit pattern.
pub fn random_bits(rng: &mut SmallRng, s: Scalar) -> u64 {
    let roll = rng.gen_range(0..100);
    match s {
        Scalar::Int(w) => {
            let special = [0u64, 1, u64::MAX, 1u64 << (w.min(64) - 1), (1u64 << (w.min(64) - 1)).wrapping_sub(1), 2];
            let v = if roll < 30 {
                special[rng.gen_range(0..special.len())]
            } else if roll < 60 {
                rng.gen_range(-100i64..100) as u64
            } else {
                rng.gen()
            };
            mask_to(v, w)
        }
        Scalar::Half => rng.gen::<u16>() as u64,
        // Pointers are placed by the oracle, not drawn.
        Scalar::Ptr => 0,
        Scalar::Float => {
            if roll < 30 {
                F32_SPECIAL[rng.gen_range(0..F32_SPECIAL.len())] as u64
            } else if roll < 70 {
                (rng.gen_range(-8.0f32..8.0)).to_bits() as u64
            } else {
                rng.gen::<u32>() as u64
            }
        }
        Scalar::Double => {
            if roll < 30 {
                F64_SPECIAL[rng.gen_range(0..F64_SPECIAL.len())]
            } else if roll < 70 {
                rng.gen_range(-8.0f64..8.0).to_bits()
            } else {
                rng.gen()
            }
        }
    }
}

/// Human-readable form of a value for mismatch reports.
pub fn describe(s: Scalar, bits: u64) -> String {
    match s {
        Scalar::Int(w) => {
            let signed = if w < 64 && w > 0 && bits >> (w - 1) & 1 == 1 {
                (bits | !((1u64 << w) - 1)) as i64
            } else {
                bits as i64
            };
            format!("i{w} {signed} (0x{bits:x})")
        }
        Scalar::Half => format!("half 0x{bits:04x}"),
        Scalar::Float => format!("float {:?} (0x{:08x})", f32::from_bits(bits as u32), bits),
        Scalar::Double => format!("double {:?} (0x{:016x})", f64::from_bits(bits), bits),
        Scalar::Ptr => format!("ptr 0x{bits:x}"),
    }
}
