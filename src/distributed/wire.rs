//! A small exact binary encoding of partial aggregates: integers
//! little-endian, floats by their bits (NaN payloads and signed zeros
//! survive), strings and vectors length-prefixed. Decoding a partial gives
//! back the value that was encoded, bit for bit, so a merge of decoded
//! partials equals the local merge.

use crate::error::{Error, Result};

/// A value that travels between processes.
pub trait Wire: Sized {
    /// Appends the encoding of `self` to `out`.
    fn encode(&self, out: &mut Vec<u8>);
    /// Reads one value.
    fn decode(r: &mut Reader<'_>) -> Result<Self>;

    /// The encoding as a new buffer.
    fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.encode(&mut out);
        out
    }

    /// Decodes a whole buffer (refusing trailing bytes).
    fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let mut r = Reader { bytes, at: 0 };
        let v = Self::decode(&mut r)?;
        if r.at != bytes.len() {
            return Err(malformed());
        }
        Ok(v)
    }
}

fn malformed() -> Error {
    super::cluster_error(
        "a malformed partial aggregate arrived (peers built from different versions?)",
    )
}

/// A cursor over received bytes.
pub struct Reader<'b> {
    bytes: &'b [u8],
    at: usize,
}

impl<'b> Reader<'b> {
    /// The next `n` bytes.
    pub fn take(&mut self, n: usize) -> Result<&'b [u8]> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or_else(malformed)?;
        let s = &self.bytes[self.at..end];
        self.at = end;
        Ok(s)
    }
}

impl Wire for u64 {
    fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
    fn decode(r: &mut Reader<'_>) -> Result<Self> {
        Ok(u64::from_le_bytes(r.take(8)?.try_into().expect("8 bytes")))
    }
}

impl Wire for u32 {
    fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
    fn decode(r: &mut Reader<'_>) -> Result<Self> {
        Ok(u32::from_le_bytes(r.take(4)?.try_into().expect("4 bytes")))
    }
}

impl Wire for usize {
    fn encode(&self, out: &mut Vec<u8>) {
        (*self as u64).encode(out);
    }
    fn decode(r: &mut Reader<'_>) -> Result<Self> {
        usize::try_from(u64::decode(r)?).map_err(|_| malformed())
    }
}

impl Wire for bool {
    fn encode(&self, out: &mut Vec<u8>) {
        out.push(*self as u8);
    }
    fn decode(r: &mut Reader<'_>) -> Result<Self> {
        match r.take(1)?[0] {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(malformed()),
        }
    }
}

impl<T: Wire> Wire for Option<T> {
    fn encode(&self, out: &mut Vec<u8>) {
        self.is_some().encode(out);
        if let Some(x) = self {
            x.encode(out);
        }
    }
    fn decode(r: &mut Reader<'_>) -> Result<Self> {
        Ok(if bool::decode(r)? {
            Some(T::decode(r)?)
        } else {
            None
        })
    }
}

impl<A: Wire, B: Wire> Wire for (A, B) {
    fn encode(&self, out: &mut Vec<u8>) {
        self.0.encode(out);
        self.1.encode(out);
    }
    fn decode(r: &mut Reader<'_>) -> Result<Self> {
        Ok((A::decode(r)?, B::decode(r)?))
    }
}

impl Wire for f64 {
    fn encode(&self, out: &mut Vec<u8>) {
        self.to_bits().encode(out);
    }
    fn decode(r: &mut Reader<'_>) -> Result<Self> {
        Ok(f64::from_bits(u64::decode(r)?))
    }
}

impl Wire for String {
    fn encode(&self, out: &mut Vec<u8>) {
        (self.len() as u64).encode(out);
        out.extend_from_slice(self.as_bytes());
    }
    fn decode(r: &mut Reader<'_>) -> Result<Self> {
        let n = usize::try_from(u64::decode(r)?).map_err(|_| malformed())?;
        String::from_utf8(r.take(n)?.to_vec()).map_err(|_| malformed())
    }
}

impl<T: Wire> Wire for Vec<T> {
    fn encode(&self, out: &mut Vec<u8>) {
        (self.len() as u64).encode(out);
        for x in self {
            x.encode(out);
        }
    }
    fn decode(r: &mut Reader<'_>) -> Result<Self> {
        let n = usize::try_from(u64::decode(r)?).map_err(|_| malformed())?;
        // Every element takes at least one byte: a length beyond what is
        // left is malformed (and never allocated).
        if n > r.bytes.len() - r.at {
            return Err(malformed());
        }
        (0..n).map(|_| T::decode(r)).collect()
    }
}

/// Implements [`Wire`] for a struct field by field.
#[macro_export]
#[doc(hidden)]
macro_rules! wire_struct {
    ($t:ty { $($f:ident),* $(,)? }) => {
        impl $crate::distributed::Wire for $t {
            fn encode(&self, out: &mut Vec<u8>) {
                $( $crate::distributed::Wire::encode(&self.$f, out); )*
            }
            fn decode(r: &mut $crate::distributed::Reader<'_>) -> $crate::error::Result<Self> {
                Ok(Self { $( $f: $crate::distributed::Wire::decode(r)?, )* })
            }
        }
    };
}

wire_struct!(crate::sim::BucketAcc {
    count,
    owners,
    sum_eps,
    sum_sq,
    sum_theory,
    sum_s2,
    sum_sc,
    sum_c2,
    post_exact,
    post_sq,
    correct_theory,
    correct_undefined
});
wire_struct!(crate::sim::aggregate::Table { buckets });
wire_struct!(crate::sim::Counts {
    owners,
    owners_without_recipients,
    responses,
    skipped_unreachable,
    jumps,
    jumps_expected
});

impl Wire for crate::mechanism::Mechanism {
    fn encode(&self, out: &mut Vec<u8>) {
        use crate::mechanism::Mechanism as M;
        let k: u64 = match self {
            M::Correlated => 0,
            M::Independent => 1,
            M::Gaussian => 2,
        };
        k.encode(out);
    }
    fn decode(r: &mut Reader<'_>) -> Result<Self> {
        use crate::mechanism::Mechanism as M;
        match u64::decode(r)? {
            0 => Ok(M::Correlated),
            1 => Ok(M::Independent),
            2 => Ok(M::Gaussian),
            _ => Err(malformed()),
        }
    }
}

impl Wire for crate::collusion::Estimator {
    fn encode(&self, out: &mut Vec<u8>) {
        let all = crate::collusion::Estimator::ALL;
        (all.iter()
            .position(|e| e == self)
            .expect("every estimator is listed") as u64)
            .encode(out);
    }
    fn decode(r: &mut Reader<'_>) -> Result<Self> {
        let k = usize::decode(r)?;
        crate::collusion::Estimator::ALL
            .get(k)
            .copied()
            .ok_or_else(malformed)
    }
}

wire_struct!(crate::collusion::GainSummary {
    trials,
    mse_best,
    mse_best_se,
    mse,
    mse_se,
    gain,
    gain_se,
    gain_lo,
    gain_hi,
    win_rate
});
wire_struct!(crate::collusion::LossSummary {
    count,
    mean,
    q99,
    max,
    max_abs
});
wire_struct!(crate::collusion::DistinguishingBound {
    threshold,
    trials_u,
    trials_u1,
    false_pos,
    false_neg,
    fp_upper,
    fn_upper,
    eps_lower_bound
});
wire_struct!(crate::collusion::AuditResult {
    eps_bound,
    eps_advanced,
    sigma_min,
    loss,
    bound_exceeded,
    chain_disagreement,
    distinguishing
});
wire_struct!(crate::collusion::Accounting {
    members,
    eps_max,
    eps_sum,
    eps_advanced,
    delta
});
wire_struct!(crate::collusion::MechanismResult {
    mechanism,
    estimators,
    audit
});
wire_struct!(crate::collusion::CoalitionResult {
    owner,
    coalition,
    label,
    size,
    sybils,
    distance_range,
    accounting,
    eps_sq_sum,
    mechanisms
});
wire_struct!(crate::collusion::PhaseTimes {
    select_s,
    sample_s,
    estimate_s,
    audit_s,
    attack_s
});

impl Wire for crate::util::table::Records {
    fn encode(&self, out: &mut Vec<u8>) {
        let t = self.as_str();
        (t.len() as u64).encode(out);
        out.extend_from_slice(t.as_bytes());
    }
    fn decode(r: &mut Reader<'_>) -> Result<Self> {
        Ok(crate::util::table::Records::from_text(String::decode(r)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_and_strings_round_trip_bit_for_bit() {
        let v: Vec<f64> = vec![0.1, -0.0, f64::NAN, f64::INFINITY, 1e-310];
        let back = Vec::<f64>::from_bytes(&v.to_bytes()).unwrap();
        assert!(v.iter().zip(&back).all(|(a, b)| a.to_bits() == b.to_bits()));
        let s = String::from("a,b\n\"é\"\n");
        assert_eq!(String::from_bytes(&s.to_bytes()).unwrap(), s);
        // Truncated and oversized inputs are refused, not panics.
        let b = v.to_bytes();
        assert!(Vec::<f64>::from_bytes(&b[..b.len() - 1]).is_err());
        assert!(Vec::<f64>::from_bytes(&u64::MAX.to_bytes()).is_err());
        // Options, pairs, flags and sizes; a flag byte other than 0/1 is refused.
        let x: Vec<(Option<f64>, (bool, usize))> =
            vec![(Some(-0.0), (true, 7)), (None, (false, 0))];
        let b = x.to_bytes();
        let back = Vec::<(Option<f64>, (bool, usize))>::from_bytes(&b).unwrap();
        assert_eq!(format!("{back:?}"), format!("{x:?}"));
        assert!(bool::from_bytes(&[2]).is_err());
    }
}
