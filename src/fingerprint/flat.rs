//! A serde value flattened to `(dotted key, value)` strings in the order it
//! serialises: `{"a": {"b": 1}, "c": [true]}` → `a.b = 1`, `c.0 = true`.
//! Numbers read as `summary.json` writes them (a form that reads back
//! exactly), so equal values give equal text; an empty list or map keeps its key (`[]`, `{}`).

use crate::error::{Error, Result};
use serde::Serialize;
use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use std::fmt;

/// `value`'s leaves as `(dotted key, text)`, in serialisation order (a
/// scalar at the top level has the key `""`).
pub(super) fn flatten(value: &impl Serialize) -> Result<Vec<(String, String)>> {
    let text = serde_json::to_string(value).map_err(failed)?;
    let mut out = Vec::new();
    let mut de = serde_json::Deserializer::from_str(&text);
    Leaf {
        key: String::new(),
        out: &mut out,
    }
    .deserialize(&mut de)
    .map_err(failed)?;
    Ok(out)
}

fn failed(e: serde_json::Error) -> Error {
    Error::Unsupported(format!(
        "fingerprint: the configuration does not flatten: {e}"
    ))
}

/// Reads one value under `key` (JSON text keeps the map order, which a
/// `serde_json::Value` would sort).
struct Leaf<'a> {
    key: String,
    out: &'a mut Vec<(String, String)>,
}

impl Leaf<'_> {
    fn child(&mut self, part: &str) -> Leaf<'_> {
        let key = if self.key.is_empty() {
            part.to_string()
        } else {
            format!("{}.{part}", self.key)
        };
        Leaf {
            key,
            out: &mut *self.out,
        }
    }

    fn push(self, text: String) {
        self.out.push((self.key, text));
    }
}

impl<'de> DeserializeSeed<'de> for Leaf<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> std::result::Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Leaf<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> std::result::Result<(), E> {
        self.push(v.to_string());
        Ok(())
    }

    fn visit_i64<E>(self, v: i64) -> std::result::Result<(), E> {
        self.push(v.to_string());
        Ok(())
    }

    fn visit_u64<E>(self, v: u64) -> std::result::Result<(), E> {
        self.push(v.to_string());
        Ok(())
    }

    fn visit_f64<E>(self, v: f64) -> std::result::Result<(), E> {
        // As `summary.json` writes it (serde_json: a form that reads back
        // exactly); JSON has no NaN or infinity (written as null).
        self.push(serde_json::to_string(&v).unwrap_or_else(|_| "null".into()));
        Ok(())
    }

    fn visit_str<E>(self, v: &str) -> std::result::Result<(), E> {
        self.push(v.to_string());
        Ok(())
    }

    fn visit_unit<E>(self) -> std::result::Result<(), E> {
        self.push("null".into());
        Ok(())
    }

    fn visit_none<E>(self) -> std::result::Result<(), E> {
        self.push("null".into());
        Ok(())
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> std::result::Result<(), D::Error> {
        d.deserialize_any(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> std::result::Result<(), A::Error> {
        let mut i = 0usize;
        while seq.next_element_seed(self.child(&i.to_string()))?.is_some() {
            i += 1;
        }
        if i == 0 {
            self.push("[]".into());
        }
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> std::result::Result<(), A::Error> {
        let mut n = 0usize;
        while let Some(k) = map.next_key::<String>()? {
            map.next_value_seed(self.child(&k))?;
            n += 1;
        }
        if n == 0 {
            self.push("{}".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Inner {
        z: f64,
        a: Option<u32>,
    }

    #[derive(Serialize)]
    struct Outer {
        seed: u64,
        inner: Inner,
        list: Vec<&'static str>,
        empty: Vec<u8>,
        none: Option<u8>,
        tiny: f64,
        negative: i32,
        flag: bool,
    }

    #[test]
    fn keys_are_dotted_and_in_field_order() {
        let v = Outer {
            seed: 7,
            inner: Inner { z: 0.5, a: Some(3) },
            list: vec!["x", "y"],
            empty: vec![],
            none: None,
            tiny: 1e-5,
            negative: -2,
            flag: true,
        };
        let got = flatten(&v).unwrap();
        let want = [
            ("seed", "7"),
            ("inner.z", "0.5"),
            ("inner.a", "3"),
            ("list.0", "x"),
            ("list.1", "y"),
            ("empty", "[]"),
            ("none", "null"),
            ("tiny", "0.00001"), // serde_json's text of 1e-5
            ("negative", "-2"),
            ("flag", "true"),
        ];
        let got: Vec<(&str, &str)> = got.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn a_float_reads_back_as_the_same_text() {
        // Equal values, equal text; 0.1 + 0.2 is not 0.3 and says so.
        let a = flatten(&[0.1 + 0.2, 0.3]).unwrap();
        assert_eq!(a[0].1, "0.30000000000000004");
        assert_eq!(a[1].1, "0.3");
        assert_eq!(
            flatten(&f64::NAN).unwrap(),
            vec![(String::new(), "null".into())]
        );
    }
}
