//! The library speaks the library's words: no error raised below the command
//! line names a flag (`--eps`); parameters are named as in the API (`eps`,
//! `eps_min`), and the command line maps them to its flags in one place
//! (`src/cli/flags.rs`).

use crate::support::scratch::scratch;
use privdiffuse::collusion::{CollusionOptions, collude};
use privdiffuse::distance::Distances;
use privdiffuse::io::{PlotSpec, SweepOptions, run_sweep};
use privdiffuse::sim::Unreachable;
use privdiffuse::sim::{Plan, SimConfig};
use privdiffuse::sweep::Grid;
use privdiffuse::{
    Coalition, Collusion, DistanceKind, DistanceOptions, EpsilonMap, Error, Estimator, Graph,
    LoadOptions, MechanismChoice, Norm, Owners, Post, Simulation, ValueSpec,
};
use std::path::{Path, PathBuf};

/// Every error of the battery: no `--`, and a parameter is named as a word.
fn check(label: &str, r: Result<impl Sized, Error>, seen: &mut usize) {
    let Err(e) = r else {
        panic!("{label}: accepted")
    };
    let msg = e.to_string();
    assert!(
        !msg.contains("--"),
        "{label}: a flag in a library error: {msg}"
    );
    if let Error::Parameter { name, .. } = &e {
        assert!(
            !name.starts_with('-') && !name.is_empty(),
            "{label}: parameter named '{name}'"
        );
    }
    *seen += 1;
}

#[test]
fn no_library_error_names_a_flag() {
    let mut n = 0;
    let n = &mut n;
    for spec in [
        "exp:a=1",
        "exp:a=1,b=-1",
        "exp:a=inf,b=1",
        "recip:c=0",
        "power:c=1,p=-1",
        "table:",
        "table:1=5,2=15",
        "table:1=5,*=6",
        "range:5..1",
        "linear:a=1",
        "nonsense",
    ] {
        check(spec, spec.parse::<EpsilonMap>(), n);
    }
    check("exp(b<0)", EpsilonMap::exp(1.0, -1.0), n);
    check("recip(0)", EpsilonMap::recip(0.0), n);
    check("power(p<0)", EpsilonMap::power(1.0, -1.0), n);
    check("table([])", EpsilonMap::table(&[], None), n);
    check("range(0,1)", EpsilonMap::range(0.0, 1.0), n);
    let m = EpsilonMap::exp(1.0, 1.0).unwrap();
    check("clamp order", m.clone().with_clamp(Some(2.0), Some(1.0)), n);
    check("clamp nan", m.with_clamp(Some(f64::NAN), None), n);
    for s in ["uniform:1,0", "bits:2", "foo", "file:"] {
        check(s, s.parse::<ValueSpec>(), n);
    }
    for s in ["floor", "clamp:2,1"] {
        check(s, s.parse::<Post>(), n);
    }
    for s in ["0", "x", ","] {
        check(s, s.parse::<Owners>(), n);
    }
    for s in [
        "blob:m=3",
        "far",
        "nearest:m=0",
        "sybil:m=3",
        "file:/nonexistent/x",
    ] {
        check(s, s.parse::<Coalition>(), n);
    }
    check("far(-1)", Coalition::far(-1.0), n);
    check("random(0)", Coalition::random(0, None), n);
    check("oracle", Estimator::parse_list("best,oracle"), n);
    check("estimators ''", Estimator::parse_list(""), n);
    check("magic", "magic".parse::<MechanismChoice>(), n);
    check("sometimes", "sometimes".parse::<Unreachable>(), n);
    check("euclid", "euclid".parse::<DistanceKind>(), n);
    check("l3", "l3".parse::<Norm>(), n);

    // Simulations that cannot run.
    let karate = Graph::load("data/karate.edges").unwrap();
    let s = || Simulation::new(&karate);
    check("owners 0", s().owners(Owners::Count(0)).run(), n);
    check("owners 99", s().owners(Owners::Count(99)).run(), n);
    check(
        "owner id",
        s().owners(Owners::Ids(vec!["nobody".into()])).run(),
        n,
    );
    check(
        "owner twice",
        s().owners(Owners::Ids(vec!["1".into(), "1".into()])).run(),
        n,
    );
    check("bins 0", s().bins(0).run(), n);
    check("dim 0", s().dim(0).run(), n);
    check("dim huge", s().dim(100_000).run(), n);
    check("sensitivity", s().sensitivity(0.0).run(), n);
    check("delta", s().delta(1.5).run(), n);
    check("floor", s().unreachable(Unreachable::Floor).run(), n);
    check(
        "overflow",
        s().eps(EpsilonMap::exp(800.0, 1.0).unwrap()).run(),
        n,
    );
    check(
        "uniform variant",
        s().values(ValueSpec::Uniform { lo: 1.0, hi: 0.0 }).run(),
        n,
    );
    check(
        "clamp variant",
        s().post(Post::Clamp { lo: 2.0, hi: 1.0 }).run(),
        n,
    );
    check(
        "coords dim 3",
        s().values(ValueSpec::Coords).dim(3).run(),
        n,
    );
    check("coords absent", s().values(ValueSpec::Coords).run(), n);
    let d = scratch("values");
    let f = d.join("v.csv");
    std::fs::write(&f, "0,1,2\n").unwrap();
    check(
        "values columns",
        s().values(ValueSpec::File(f.clone())).dim(1).run(),
        n,
    );
    let approx = DistanceOptions {
        approx_k: 0,
        ..DistanceOptions::default()
    };
    check(
        "approx_k 0",
        s().distance(DistanceKind::ResistanceApprox)
            .distance_options(approx)
            .run(),
        n,
    );
    let tiny_cap = DistanceOptions {
        resistance_cap: 3,
        ..DistanceOptions::default()
    };
    check(
        "resistance cap",
        s().distance(DistanceKind::Resistance)
            .distance_options(tiny_cap)
            .run(),
        n,
    );
    let directed = Graph::load_with(
        "data/karate.edges",
        &LoadOptions {
            directed: true,
            ..LoadOptions::default()
        },
    )
    .unwrap();
    for kind in [DistanceKind::Resistance, DistanceKind::ResistanceApprox] {
        check(
            "directed resistance",
            Simulation::new(&directed).distance(kind).run(),
            n,
        );
    }
    check(
        "default graph elsewhere",
        privdiffuse::io::simulate_to_dir(
            &SimConfig {
                graph: PathBuf::from("nowhere/geometric150.edges"),
                ..SimConfig::default()
            },
            &privdiffuse::io::OutputOptions {
                out: d.join("run"),
                explicit_out: true,
                force: false,
                plots: false,
                control: Default::default(),
            },
        ),
        n,
    );
    std::fs::write(d.join("keep.txt"), "x").unwrap();
    check(
        "non-empty out",
        privdiffuse::io::simulate_to_dir(
            &SimConfig::default(),
            &privdiffuse::io::OutputOptions {
                out: d.to_path_buf(),
                explicit_out: true,
                force: false,
                plots: false,
                control: Default::default(),
            },
        ),
        n,
    );

    // Collusion.
    let c = || Collusion::new(&karate).coalition(Coalition::far(2.0).unwrap());
    check("no coalition", Collusion::new(&karate).run(), n);
    check("no estimator", c().estimators([]).run(), n);
    check("trials 0", c().trials(0).run(), n);
    check("composition delta", c().composition_delta(2.0).run(), n);
    let dist = Distances::new(&karate, DistanceKind::Hop, &DistanceOptions::default()).unwrap();
    let cfg = SimConfig {
        eps: EpsilonMap::exp(800.0, 1.0).unwrap(),
        owners: Owners::Count(2),
        ..SimConfig::default()
    };
    // The plan is fine (hop 1 overflows only at answer time); the members' ε is not.
    if let Ok(plan) = Plan::new(&cfg, &karate, &dist) {
        let opts = CollusionOptions {
            coalitions: vec![Coalition::nearest(2).unwrap()],
            estimators: vec![Estimator::Best],
            trials: 2,
            composition_delta: 1e-6,
        };
        check("member eps", collude(&plan, &opts, &Default::default()), n);
    }

    // Sweeps.
    let grid = |sets: &[&str]| -> Result<Vec<privdiffuse::sweep::Point>, Error> {
        let mut g = Grid::new();
        for s in sets {
            g.add_set(s)?;
        }
        g.points()
    };
    for sets in [
        &["dim"][..],
        &["colour=red"],
        &["eps=exp:a=4"],
        &["eps_min=abc"],
        &["unreachable=floor"],
        &["coalition=nobody:x=1"],
        &["estimators=oracle"],
        &["trials=0"],
    ] {
        check(sets[0], grid(sets), n);
    }
    let mut g = Grid::new();
    g.add_set("dim=1,2").unwrap();
    let mut opts = SweepOptions::new(d.join("s.csv"));
    for (x, metric) in [("delta", "mse"), ("dim", "msee"), ("dim", "gain")] {
        opts.plot = Some(PlotSpec {
            x: x.into(),
            metrics: vec![metric.into()],
            at: vec![],
            only: vec![],
            ..Default::default()
        });
        check(metric, run_sweep(&g, &opts), n);
    }

    // Figures.
    #[cfg(feature = "plots")]
    {
        use privdiffuse::io::plot::{self, Kind, PlotOptions};
        let small = PlotOptions {
            width: 5,
            ..PlotOptions::default()
        };
        let png = d.join("x.png");
        check(
            "width",
            plot::draw(Kind::Jumps, Path::new("data"), &png, &small),
            n,
        );
        let o = PlotOptions::default();
        check(
            "format",
            plot::draw(Kind::Jumps, Path::new("data"), &d.join("x.pdf"), &o),
            n,
        );
        check(
            "input",
            plot::draw(Kind::Jumps, Path::new("data/karate.edges"), &png, &o),
            n,
        );
    }
    std::fs::remove_dir_all(&d).unwrap();
    assert!(*n > 70, "{n} errors checked");
}

/// String literals of a Rust source (comments skipped), with their line.
fn string_literals(src: &str) -> Vec<(usize, String)> {
    let c: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    let at = |i: usize| c.get(i).copied().unwrap_or('\0');
    while i < c.len() {
        match c[i] {
            '\n' => {
                line += 1;
                i += 1;
            }
            '/' if at(i + 1) == '/' => {
                while i < c.len() && c[i] != '\n' {
                    i += 1;
                }
            }
            '/' if at(i + 1) == '*' => {
                i += 2;
                while i < c.len() && !(c[i] == '*' && at(i + 1) == '/') {
                    line += usize::from(c[i] == '\n');
                    i += 1;
                }
                i += 2;
            }
            '\'' => {
                // A char literal ('x', '\n', '"'), else a lifetime.
                if at(i + 1) == '\\' {
                    i += 2;
                    while i < c.len() && c[i] != '\'' {
                        i += 1;
                    }
                    i += 1;
                } else if at(i + 2) == '\'' {
                    i += 3;
                } else {
                    i += 1;
                }
            }
            'r' if (at(i + 1) == '"' || at(i + 1) == '#')
                && !(i > 0 && (c[i - 1].is_alphanumeric() || c[i - 1] == '_')) =>
            {
                let mut j = i + 1;
                let mut hashes = 0;
                while at(j) == '#' {
                    hashes += 1;
                    j += 1;
                }
                if at(j) != '"' {
                    i += 1;
                    continue;
                }
                let start_line = line;
                let mut s = String::new();
                j += 1;
                loop {
                    if j >= c.len() {
                        break;
                    }
                    if c[j] == '"' && (0..hashes).all(|k| at(j + 1 + k) == '#') {
                        j += 1 + hashes;
                        break;
                    }
                    line += usize::from(c[j] == '\n');
                    s.push(c[j]);
                    j += 1;
                }
                out.push((start_line, s));
                i = j;
            }
            '"' => {
                let start_line = line;
                let mut s = String::new();
                i += 1;
                while i < c.len() && c[i] != '"' {
                    if c[i] == '\\' {
                        s.push(c[i]);
                        i += 1;
                    }
                    line += usize::from(c.get(i) == Some(&'\n'));
                    if let Some(&ch) = c.get(i) {
                        s.push(ch);
                    }
                    i += 1;
                }
                i += 1;
                out.push((start_line, s));
            }
            _ => i += 1,
        }
    }
    out
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// `--` followed by a letter: a flag.
fn names_a_flag(s: &str) -> bool {
    s.as_bytes()
        .windows(3)
        .any(|w| w[0] == b'-' && w[1] == b'-' && w[2].is_ascii_lowercase())
}

#[test]
fn no_string_literal_of_the_library_names_a_flag() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let library: Vec<&PathBuf> = files
        .iter()
        .filter(|p| {
            let rel = p.strip_prefix(&root).unwrap();
            !rel.starts_with("cli") && rel != Path::new("main.rs")
        })
        .collect();
    assert!(library.len() > 40, "{} library files", library.len());
    let mut found = Vec::new();
    for p in library {
        let src = std::fs::read_to_string(p).unwrap();
        for (line, s) in string_literals(&src) {
            if names_a_flag(&s) {
                found.push(format!("{}:{line}: \"{s}\"", p.display()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "flags in library strings:\n{}",
        found.join("\n")
    );
    // The scanner sees what it should.
    let probe = "let a = 'x'; // \"--no\"\nlet b = \"--yes\"; /* \"--no\" */ let c = r#\"--raw\"#;";
    let lits: Vec<String> = string_literals(probe).into_iter().map(|x| x.1).collect();
    assert_eq!(lits, ["--yes", "--raw"]);
}
