//! Specs as strings on the wire: a type with a textual spec grammar (`FromStr`)
//! and a canonical spelling (`Display`) is serialised as that string, so files
//! such as `summary.json` stay readable and old files keep loading.

/// Implements `Serialize` (the `Display` spelling) and `Deserialize` (through
/// `FromStr`, its error message kept) for each listed type.
macro_rules! serde_as_spec {
    ($($t:ty),* $(,)?) => {$(
        impl serde::Serialize for $t {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }
        impl<'de> serde::Deserialize<'de> for $t {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let text = <String as serde::Deserialize>::deserialize(d)?;
                text.parse().map_err(serde::de::Error::custom)
            }
        }
    )*};
}

pub(crate) use serde_as_spec;

/// The values of `k=v,k=v` with exactly the keys in `keys` (any order, each
/// once), in the order of `keys`, untrimmed; `bad(expected)` makes the error
/// of a spec that is not that.
pub(crate) fn key_values<'s, E>(
    body: &'s str,
    keys: &[&str],
    bad: impl Fn(String) -> E,
) -> Result<Vec<&'s str>, E> {
    let mut out: Vec<Option<&str>> = vec![None; keys.len()];
    for part in body.split(',').filter(|p| !p.trim().is_empty()) {
        let (k, v) = part
            .split_once('=')
            .ok_or_else(|| bad(format!("key=value pairs, got '{part}'")))?;
        let k = k.trim();
        let i = keys
            .iter()
            .position(|x| *x == k)
            .ok_or_else(|| bad(format!("keys {}, got unknown key '{k}'", keys.join(","))))?;
        if out[i].is_some() {
            return Err(bad(format!("each key once, got '{k}' twice")));
        }
        out[i] = Some(v);
    }
    out.iter()
        .zip(keys)
        .map(|(v, k)| v.ok_or_else(|| bad(format!("a value for '{k}'"))))
        .collect()
}
