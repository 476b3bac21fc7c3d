//! How partial aggregates travel between peers: CBOR (self-describing, so the
//! row types' optional columns survive) of their serde form. Floats keep
//! their value exactly (CBOR stores the shortest lossless width), so a merge
//! of decoded partials equals the local merge, bit for bit in every output.

use super::cluster_error;
use crate::error::Result;
use serde::Serialize;
use serde::de::DeserializeOwned;

/// The encoding of `value`.
pub(crate) fn encode<T: Serialize>(value: &T) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    ciborium::into_writer(value, &mut out)
        .map_err(|e| cluster_error(format!("encoding a partial aggregate: {e}")))?;
    Ok(out)
}

/// Decodes a whole buffer written by [`encode`].
pub(crate) fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<T> {
    ciborium::from_reader(bytes).map_err(|e| {
        cluster_error(format!(
            "a malformed partial aggregate arrived (peers built from different versions?): {e}"
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, Serialize, serde::Deserialize)]
    struct Sample {
        a: f64,
        b: Vec<f64>,
        c: i128,
        d: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none", default)]
        e: Option<u8>,
    }

    #[test]
    fn values_come_back_bit_for_bit() {
        let xs = [
            0.1,
            -0.0,
            f64::MIN_POSITIVE,
            5e-324,
            f64::MAX,
            f64::INFINITY,
            f64::NEG_INFINITY,
            1.0 / 3.0,
        ];
        let s = Sample {
            a: 0.30000000000000004,
            b: xs.to_vec(),
            c: -(1i128 << 100) + 7,
            d: Some("x7".into()),
            e: None,
        };
        let back: Sample = decode(&encode(&s).unwrap()).unwrap();
        assert_eq!(back.b.len(), xs.len());
        for (x, y) in xs.iter().zip(&back.b) {
            assert_eq!(x.to_bits(), y.to_bits());
        }
        assert_eq!(back, s);
        let nan: f64 = decode(&encode(&f64::NAN).unwrap()).unwrap();
        assert!(nan.is_nan());
    }

    #[test]
    fn garbage_is_an_error_naming_the_cluster() {
        let e = decode::<Sample>(&[0xff, 0x00, 0x13]).unwrap_err();
        assert!(
            e.to_string().starts_with("cluster: a malformed partial"),
            "{e}"
        );
    }
}
