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
