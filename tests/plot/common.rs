//! Fixtures for the plot tests: a run directory in the formats `simulate` and
//! `collude` write, generated with the real path sampler (so the jump data
//! follow the true law), plus helpers to inspect PNG and SVG output.
#![allow(dead_code)]

pub use crate::support::scratch::scratch;
use privdiffuse::process::{NoisePath, Norm, PathSampler};
use privdiffuse::rng::{Purpose, rng_for};
use privdiffuse::util::fmt_f64 as f;
use std::fmt::Write as _;
use std::path::Path;

/// `exp:a=3.4,b=0.8`: ε(d) = e^(a − b·d).
pub const A: f64 = 3.4;
/// See [`A`].
pub const B: f64 = 0.8;

pub fn eps(d: f64) -> f64 {
    (A - B * d).exp()
}

/// Inverse of [`eps`]: d = (a − ln ε)/b.
pub fn dist(e: f64) -> f64 {
    (A - e.ln()) / B
}

/// One simulated owner: id, hop range, sampled path.
pub struct Owner {
    pub id: String,
    pub d_min: f64,
    pub d_max: f64,
    pub path: NoisePath,
}

/// Samples `count` owners of dimension `dim` in `norm`; owner `i` covers hop
/// distances `[1, 2 + i mod 7]`, its path drawn over `[ε(d_max), ε(d_min)]`.
pub fn sample_owners(count: usize, dim: usize, norm: Norm, seed: u64) -> Vec<Owner> {
    (0..count)
        .map(|i| {
            let (d_min, d_max) = (1.0, (2 + i % 7) as f64);
            let s = PathSampler::new(dim, norm, eps(d_max), eps(d_min)).unwrap();
            let mut rng = rng_for(seed, i as u64, 0, Purpose::Path);
            Owner {
                id: format!("{}", 100 + 7 * i),
                d_min,
                d_max,
                path: s.sample(&mut rng),
            }
        })
        .collect()
}

/// Writes `jumps.csv`, `owners.csv` and `summary.json` for `owners`.
pub fn write_jump_files(dir: &Path, owners: &[Owner], dim: usize, norm: Norm) {
    let mut jumps = String::from("owner,eps,distance,jump_norm\n");
    let mut own = String::from(
        "owner,recipients,distance_min,distance_max,eps_lo,eps_hi,jumps,jumps_expected\n",
    );
    let rate = norm.jump_rate(dim);
    for o in owners {
        for j in o.path.jumps() {
            let _ = writeln!(
                jumps,
                "{},{},{},{}",
                o.id,
                f(j.eps),
                f(dist(j.eps)),
                f(j.size(norm))
            );
        }
        let (lo, hi) = (o.path.eps_lo(), o.path.eps_hi());
        let _ = writeln!(
            own,
            "{},{},{},{},{},{},{},{}",
            o.id,
            10,
            f(o.d_min),
            f(o.d_max),
            f(lo),
            f(hi),
            o.path.num_jumps(),
            f(rate * (hi / lo).ln())
        );
    }
    std::fs::write(dir.join("jumps.csv"), jumps).unwrap();
    std::fs::write(dir.join("owners.csv"), own).unwrap();
    let summary = format!(
        r#"{{"tool":"privdiffuse","eps_map":{{"requested":"exp:a=3.4,b=0.8","spec":"exp:a=3.4,b=0.8","a":3.4,"b":0.8}},"config":{{"dim":{dim},"norm":"{norm}","distance":"hop","eps_min":null,"seed":1}},"extra":[1,2,3]}}"#
    );
    std::fs::write(dir.join("summary.json"), summary).unwrap();
}

/// A complete run directory: every CSV `simulate` and `collude` write (n = 2,
/// ℓ2), plus a `privdiffuse path` CSV `samples.csv` (n = 1, ℓ1).
pub fn write_run(dir: &Path) {
    let (dim, norm) = (2, Norm::L2);
    let owners = sample_owners(40, dim, norm, 11);
    write_jump_files(dir, &owners, dim, norm);

    // paths.csv: the first 4 owners' breakpoints.
    let mut paths = String::from("owner,eps,v1,v2\n");
    for o in owners.iter().take(4) {
        for (e, v) in o.path.breakpoints() {
            let _ = writeln!(paths, "{},{},{},{}", o.id, f(e), f(v[0]), f(v[1]));
        }
    }
    std::fs::write(dir.join("paths.csv"), paths).unwrap();

    // ego.csv: the first owner's recipients, 8 per hop distance.
    let o = &owners[6]; // covers [1, 8]
    // Put that owner first in owners.csv order by rewriting the file.
    let own = std::fs::read_to_string(dir.join("owners.csv")).unwrap();
    let mut lines: Vec<&str> = own.lines().collect();
    let line = lines.remove(7);
    lines.insert(1, line);
    std::fs::write(dir.join("owners.csv"), lines.join("\n") + "\n").unwrap();
    let mut ego = String::from("recipient,distance,eps,error_norm\n");
    for d in 1..=8 {
        for k in 0..8 {
            let e = eps(d as f64);
            let v = o.path.value_at(e);
            let _ = writeln!(
                ego,
                "{},{},{},{}",
                1000 + 10 * d + k,
                d,
                f(e),
                f(norm.norm_of(v))
            );
        }
    }
    std::fs::write(dir.join("ego.csv"), ego).unwrap();

    // by_distance.csv: empirical MSE scattered around the theory 6/ε².
    let mut bd =
        String::from("mechanism,distance_lo,distance_hi,count,mean_eps,mse,mse_se,mse_theory\n");
    for (m, mech) in ["correlated", "independent", "gaussian"].iter().enumerate() {
        for d in 1..=8 {
            let e = eps(d as f64);
            let theory = if *mech == "gaussian" { 9.0 } else { 6.0 } / (e * e);
            let wobble = 1.0 + 0.08 * (((d * 7 + m * 3) % 5) as f64 - 2.0) / 2.0;
            let mse = theory * wobble;
            let _ = writeln!(
                bd,
                "{mech},{d},{d},{},{},{},{},{}",
                40 * d,
                f(e),
                f(mse),
                f(0.12 * mse),
                f(theory)
            );
        }
    }
    std::fs::write(dir.join("by_distance.csv"), bd).unwrap();

    // coalition.csv: 3 owners; correlated gains ≤ 1, independent > 1.
    let mut co = String::from(
        "owner,coalition,size,eps_max,eps_sum,mechanism,estimator,mse,gain,gain_lo,gain_hi,win_rate\n",
    );
    let coalitions = [
        ("nearest:m=5", 5u64),
        ("random:m=20", 20),
        ("far:min-d=3", 60),
    ];
    for (oi, owner) in ["3", "8", "21"].iter().enumerate() {
        for (ci, (label, size)) in coalitions.iter().enumerate() {
            let size = if ci == 2 {
                size + 10 * oi as u64
            } else {
                *size
            };
            for mech in ["correlated", "independent"] {
                for (ei, est) in ["best", "mean", "ivw", "median", "pitman"]
                    .iter()
                    .enumerate()
                {
                    let base = if mech == "correlated" {
                        1.0 - 0.15 * ei as f64 / 4.0 - 0.02 * oi as f64
                    } else if *est == "best" {
                        1.0
                    } else {
                        (size as f64).sqrt() * (1.0 + 0.3 * ei as f64) * (1.0 + 0.05 * oi as f64)
                    };
                    let _ = writeln!(
                        co,
                        "{owner},{label},{size},2.5,{},{mech},{est},{},{},{},{},{}",
                        f(2.5 * size as f64 * 0.3),
                        f(0.5 / base),
                        f(base),
                        f(base * 0.85),
                        f(base * 1.15),
                        f(0.5)
                    );
                }
            }
        }
    }
    std::fs::write(dir.join("coalition.csv"), co).unwrap();

    // samples.csv: a `privdiffuse path` file, 5 samples of the 1-D process.
    let s = PathSampler::new(1, Norm::L1, 0.05, 50.0).unwrap();
    let mut out = String::from("sample,eps,v1\n");
    for k in 0..5u64 {
        let p = s.sample(&mut rng_for(3, k, 0, Purpose::Path));
        for (e, v) in p.breakpoints() {
            let _ = writeln!(out, "{k},{},{}", f(e), f(v[0]));
        }
    }
    std::fs::write(dir.join("samples.csv"), out).unwrap();
}

/// Width and height from a PNG's IHDR, after checking the signature.
pub fn png_size(bytes: &[u8]) -> (u32, u32) {
    assert!(bytes.len() > 24, "PNG too short");
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "not a PNG signature");
    assert_eq!(&bytes[12..16], b"IHDR");
    let w = u32::from_be_bytes(bytes[16..20].try_into().unwrap());
    let h = u32::from_be_bytes(bytes[20..24].try_into().unwrap());
    (w, h)
}

/// Decodes a PNG (8-bit RGB or RGBA, as the figures are written) with the
/// `png` crate: (width, height, RGB pixels row by row).
pub fn decode_rgb(bytes: &[u8]) -> (u32, u32, Vec<[u8; 3]>) {
    let mut reader = png::Decoder::new(std::io::Cursor::new(bytes))
        .read_info()
        .expect("PNG header decodes");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("PNG decodes");
    assert_eq!(info.bit_depth, png::BitDepth::Eight);
    let step = match info.color_type {
        png::ColorType::Rgb => 3,
        png::ColorType::Rgba => 4,
        other => panic!("unexpected colour type {other:?}"),
    };
    let px = buf[..info.buffer_size()]
        .chunks_exact(step)
        .map(|p| [p[0], p[1], p[2]])
        .collect();
    (info.width, info.height, px)
}

/// Decodes a PNG and returns (width, height, variance of the luma, share of
/// non-white pixels).
pub fn png_stats(path: &Path) -> (u32, u32, f64, f64) {
    let bytes = std::fs::read(path).unwrap();
    let (w0, h0) = png_size(&bytes);
    let (w, h, px) = decode_rgb(&bytes);
    assert_eq!((w, h), (w0, h0));
    // Rec. 709 luma.
    let luma: Vec<f64> = px
        .iter()
        .map(|p| 0.2126 * p[0] as f64 + 0.7152 * p[1] as f64 + 0.0722 * p[2] as f64)
        .collect();
    let n = luma.len() as f64;
    let mean = luma.iter().sum::<f64>() / n;
    let var = luma.iter().map(|l| (l - mean).powi(2)).sum::<f64>() / n;
    let ink = luma.iter().filter(|l| **l < 250.0).count() as f64 / n;
    (w, h, var, ink)
}

/// The text content of every `<text>` element of an SVG.
pub fn svg_texts(svg: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = svg;
    while let Some(i) = rest.find("<text") {
        rest = &rest[i..];
        let Some(gt) = rest.find('>') else { break };
        let Some(end) = rest.find("</text>") else {
            break;
        };
        out.push(
            rest[gt + 1..end]
                .replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&amp;", "&")
                .trim()
                .to_string(),
        );
        rest = &rest[end + 7..];
    }
    out
}

/// One `<text>` of an SVG: its content, position and font size.
#[derive(Clone, Debug, PartialEq)]
pub struct SvgText {
    pub text: String,
    pub x: f64,
    pub y: f64,
    pub size: f64,
}

/// Every `<text>` of an SVG with its `x`, `y` and `font-size`.
pub fn svg_text_items(svg: &str) -> Vec<SvgText> {
    let attr = |tag: &str, name: &str| -> f64 {
        let key = format!(" {name}=\"");
        tag.find(&key)
            .and_then(|i| {
                let rest = &tag[i + key.len()..];
                rest[..rest.find('"')?].parse().ok()
            })
            .unwrap_or(f64::NAN)
    };
    let texts = svg_texts(svg);
    let mut out = Vec::new();
    let mut rest = svg;
    for text in texts {
        let i = rest.find("<text").unwrap();
        rest = &rest[i..];
        let gt = rest.find('>').unwrap();
        let tag = &rest[..gt];
        out.push(SvgText {
            text,
            x: attr(tag, "x"),
            y: attr(tag, "y"),
            size: attr(tag, "font-size"),
        });
        rest = &rest[rest.find("</text>").unwrap() + 7..];
    }
    out
}

/// For each `<text>` whose content is in `labels`, the `stroke` colour of
/// the last `<polyline>` drawn before it (a legend entry's line sample).
pub fn svg_legend_strokes(svg: &str, labels: &[String]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut stroke = String::new();
    let mut rest = svg;
    while let Some(i) = rest.find('<') {
        rest = &rest[i..];
        let end = rest.find('>').unwrap_or(rest.len() - 1);
        let tag = &rest[..end];
        if tag.starts_with("<polyline")
            && let Some(s) = tag.find(" stroke=\"")
        {
            let v = &tag[s + 9..];
            stroke = v[..v.find('"').unwrap()].to_string();
        } else if tag.starts_with("<text") {
            let body = &rest[end + 1..];
            let text = body[..body.find("</text>").unwrap()].trim().to_string();
            if labels.contains(&text) {
                out.push((text, stroke.clone()));
            }
        }
        rest = &rest[end + 1..];
    }
    out
}
