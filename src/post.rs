//! Post-processing of released answers ([`Post`], parameter `post`): `none`, `clamp:LO,HI`,
//! `bit` (projection on {0, 1}: 1 iff y ≥ 1/2, as in the thesis' Facebook
//! example) and `round` (nearest integer). Post-processing never weakens
//! privacy; it can only change accuracy.

use crate::error::{Error, Result};
use crate::util::fmt_f64;

/// A post-processing step applied coordinate-wise to an answer.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub enum Post {
    /// Answers are released as drawn.
    #[default]
    None,
    /// Clamp each coordinate to `[lo, hi]`.
    Clamp {
        /// Lower bound.
        lo: f64,
        /// Upper bound.
        hi: f64,
    },
    /// 1 if the coordinate is ≥ 1/2, else 0.
    Bit,
    /// Nearest integer (ties away from zero).
    Round,
}

impl Post {
    /// Applies the step in place.
    #[inline]
    pub fn apply(&self, y: &mut [f64]) {
        match *self {
            Post::None => {}
            Post::Clamp { lo, hi } => y.iter_mut().for_each(|x| *x = x.clamp(lo, hi)),
            Post::Bit => y
                .iter_mut()
                .for_each(|x| *x = if *x >= 0.5 { 1.0 } else { 0.0 }),
            Post::Round => y.iter_mut().for_each(|x| *x = x.round()),
        }
    }

    /// Whether this is [`Post::None`].
    pub fn is_none(&self) -> bool {
        matches!(self, Post::None)
    }

    /// Checks a step built from its variants (the parser makes the same
    /// check): clamp bounds are numbers with `lo ≤ hi`.
    pub fn check(&self) -> Result<()> {
        match *self {
            Post::Clamp { lo, hi } if lo.is_nan() || hi.is_nan() || lo > hi => Err(Error::param(
                "post",
                self,
                "clamp:LO,HI with numbers LO ≤ HI",
            )),
            _ => Ok(()),
        }
    }
}

impl std::str::FromStr for Post {
    type Err = Error;
    fn from_str(spec: &str) -> Result<Post> {
        let s = spec.trim();
        let expected = "one of none | clamp:LO,HI | bit | round";
        match s {
            "none" => Ok(Post::None),
            "bit" => Ok(Post::Bit),
            "round" => Ok(Post::Round),
            _ => {
                let body = s.strip_prefix("clamp:").ok_or_else(|| {
                    let head = s.split(':').next().unwrap_or(s);
                    let hint = crate::util::suggest::did_you_mean(
                        head,
                        &["none", "clamp", "bit", "round"],
                    );
                    Error::param("post", spec, format!("{expected}{hint}"))
                })?;
                let v: Vec<f64> = body
                    .split(',')
                    .map(|t| t.trim().parse::<f64>())
                    .collect::<std::result::Result<_, _>>()
                    .map_err(|_| Error::param("post", spec, "clamp:LO,HI with numbers LO ≤ HI"))?;
                if v.len() != 2 || v.iter().any(|x| x.is_nan()) || v[0] > v[1] {
                    return Err(Error::param(
                        "post",
                        spec,
                        "clamp:LO,HI with numbers LO ≤ HI",
                    ));
                }
                Ok(Post::Clamp { lo: v[0], hi: v[1] })
            }
        }
    }
}

impl std::fmt::Display for Post {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Post::None => f.write_str("none"),
            Post::Bit => f.write_str("bit"),
            Post::Round => f.write_str("round"),
            Post::Clamp { lo, hi } => write!(f, "clamp:{},{}", fmt_f64(*lo), fmt_f64(*hi)),
        }
    }
}

// `summary.json` records the step as its spec.
crate::util::spec::serde_as_spec!(Post);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_applies() {
        let p: Post = "clamp:0,1".parse().unwrap();
        let mut y = [-1.0, 0.3, 7.0];
        p.apply(&mut y);
        assert_eq!(y, [0.0, 0.3, 1.0]);
        let mut y = [0.49, 0.5, -3.0];
        Post::Bit.apply(&mut y);
        assert_eq!(y, [0.0, 1.0, 0.0]);
        for s in ["none", "bit", "round", "clamp:-1,2.5"] {
            assert_eq!(s.parse::<Post>().unwrap().to_string(), s);
        }
        for s in ["clamp:2,1", "clamp:1", "floor", "clamp:a,b"] {
            assert!(s.parse::<Post>().is_err(), "{s}");
        }
    }
}
