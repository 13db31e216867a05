//! [`MathNudge`]: the interpreter moves the result of every math builtin that is not correctly
//! rounded by a pseudo-random whole number of ulps, so that `dianran verify` can measure how
//! strongly a kernel amplifies the math error an executor may legitimately make
//! (`crate::sensitivity`).

use dianran_frontend::ir::Scalar;

/// A number of ulps for each float type.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MathUlps {
    /// Steps of `f16`.
    pub f16: u32,
    /// Steps of `f32`.
    pub f32: u32,
    /// Steps of `f64`.
    pub f64: u32,
}

impl MathUlps {
    /// The count for scalar type `s` (0 for integers).
    pub fn of(self, s: Scalar) -> u32 {
        match s {
            Scalar::F16 => self.f16,
            Scalar::F32 => self.f32,
            Scalar::F64 => self.f64,
            _ => 0,
        }
    }
}

/// Moves the float results of the math builtins that are not correctly rounded
/// ([`crate::agree::approx_fn`]: transcendentals, `pow`, `inverseSqrt`, `length`,
/// `normalize`, `distance`, `smoothstep`, `refract`) by a whole number of ulps drawn uniformly
/// from `[-ulps, +ulps]` of the result's type. The draws depend only on `seed` and on the
/// order of the results in the run (which is deterministic), so a run is reproducible.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MathNudge {
    /// Selects the pseudo-random sequence of moves.
    pub seed: u64,
    /// The largest move, per float type.
    pub ulps: MathUlps,
}

/// splitmix64's finaliser: a well-mixed 64-bit value of `x`.
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// Moves the finite float with sign bit `sign` and magnitude bits `mag` (an IEEE encoding
/// whose largest finite magnitude is `max`) by `k` steps; never past the largest finite value.
fn step(bits: u64, sign: u64, max: u64, k: i64) -> u64 {
    let mag = bits & (sign - 1);
    if mag > max {
        // Infinity or NaN: no neighbours to move to.
        return bits;
    }
    // Signed magnitude to a line where consecutive floats are consecutive integers.
    let line = if bits & sign != 0 { -(mag as i64) } else { mag as i64 };
    let moved = line.saturating_add(k).clamp(-(max as i64), max as i64);
    if moved < 0 {
        sign | moved.unsigned_abs()
    } else {
        moved as u64
    }
}

impl MathNudge {
    /// Moves the results in `words` (scalars of type `s` in the interpreter's encoding: one
    /// word per `f32`/`f16`, two per `f64`, low word first); `count` numbers the results
    /// moved so far in this run and advances.
    pub(crate) fn apply(&self, s: Scalar, words: &mut [u32], count: &mut u64) {
        let ulps = i64::from(self.ulps.of(s));
        if ulps == 0 {
            return;
        }
        let mut draw = || {
            *count += 1;
            let r = mix(self.seed ^ mix(*count));
            (r % (2 * ulps as u64 + 1)) as i64 - ulps
        };
        match s {
            Scalar::F32 => {
                for w in words {
                    *w = step(u64::from(*w), 1 << 31, 0x7F7F_FFFF, draw()) as u32;
                }
            }
            Scalar::F16 => {
                for w in words {
                    *w = step(u64::from(*w & 0xFFFF), 1 << 15, 0x7BFF, draw()) as u32;
                }
            }
            Scalar::F64 => {
                for pair in words.chunks_exact_mut(2) {
                    let bits = u64::from(pair[0]) | (u64::from(pair[1]) << 32);
                    let moved = step(bits, 1 << 63, 0x7FEF_FFFF_FFFF_FFFF, draw());
                    pair[0] = moved as u32;
                    pair[1] = (moved >> 32) as u32;
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_count_floats_across_zero_and_stop_at_the_largest() {
        let f = |x: f32, k: i64| {
            f32::from_bits(step(u64::from(x.to_bits()), 1 << 31, 0x7F7F_FFFF, k) as u32)
        };
        assert_eq!(f(1.0, 1), f32::from_bits(1.0f32.to_bits() + 1));
        assert_eq!(f(1.0, -1), f32::from_bits(1.0f32.to_bits() - 1));
        // The smallest subnormal, two steps down: through zero to -smallest.
        assert_eq!(f(f32::from_bits(1), -2), -f32::from_bits(1));
        assert_eq!(f(-2.0, 3), -f32::from_bits(2.0f32.to_bits() - 3));
        assert_eq!(f(f32::MAX, 5), f32::MAX);
        assert_eq!(f(f32::INFINITY, -5), f32::INFINITY);
        assert!(f(f32::NAN, 1).is_nan());
    }

    #[test]
    fn moves_are_seeded_and_within_the_bound() {
        let n = MathNudge { seed: 9, ulps: MathUlps { f16: 1, f32: 3, f64: 2 } };
        let one = 1.0f32.to_bits();
        let (mut a, mut b) = (vec![one; 200], vec![one; 200]);
        let (mut ca, mut cb) = (0, 0);
        n.apply(Scalar::F32, &mut a, &mut ca);
        n.apply(Scalar::F32, &mut b, &mut cb);
        assert_eq!(a, b);
        let moves: Vec<i64> = a.iter().map(|&w| i64::from(w) - i64::from(one)).collect();
        assert!(moves.iter().all(|k| k.abs() <= 3), "{moves:?}");
        // Every whole move in [-3, 3] occurs in 200 draws.
        for k in -3..=3 {
            assert!(moves.contains(&k), "{k} missing from {moves:?}");
        }
        let other = MathNudge { seed: 10, ..n };
        let mut c = vec![one; 200];
        other.apply(Scalar::F32, &mut c, &mut 0);
        assert_ne!(a, c);
        // f64: two words per value, low first.
        let mut d = vec![0, 0x3FF0_0000];
        n.apply(Scalar::F64, &mut d, &mut 0);
        let x = f64::from_bits(u64::from(d[0]) | (u64::from(d[1]) << 32));
        assert!((x - 1.0).abs() <= 2.0 * f64::EPSILON, "{x}");
    }
}
