//! Sweep grids: the cartesian product, its order, and every malformed input
//! rejected up front with the offending key and value named.

use privdiffuse::Error;
use privdiffuse::sweep::Grid;

fn grid(sets: &[&str]) -> Result<Grid, Error> {
    let mut g = Grid::new();
    for s in sets {
        g.add_set(s)?;
    }
    Ok(g)
}

#[test]
fn two_by_three_by_two_is_twelve_points_first_key_outermost() {
    let g = grid(&["dim=1,2", "seed=1..3", "norm=l1,l2"]).unwrap();
    let pts = g.points().unwrap();
    assert_eq!(pts.len(), 12);
    assert_eq!(pts[0].values, ["1", "1", "l1"]);
    assert_eq!(pts[1].values, ["1", "1", "l2"]);
    assert_eq!(pts[2].values, ["1", "2", "l1"]);
    assert_eq!(pts[11].values, ["2", "3", "l2"]);
    assert_eq!(pts[11].config.dim, 2);
    assert_eq!(pts[11].config.seed, 3);
    for (i, p) in pts.iter().enumerate() {
        assert_eq!(p.index, i);
    }
}

#[test]
fn pipe_splits_specs_with_commas_and_dash_spellings_are_accepted() {
    let g = grid(&[
        "eps=exp:a=4,b=1|exp:a=4,b=3.3",
        "eps-min=0.1,0.2",
        "approx-k=8",
    ])
    .unwrap();
    assert_eq!(g.axes[0].values, ["exp:a=4,b=1", "exp:a=4,b=3.3"]);
    assert_eq!(g.axes[1].key, "eps_min");
    let pts = g.points().unwrap();
    assert_eq!(pts.len(), 4);
    assert_eq!(pts[3].config.eps_min, Some(0.2));
    assert_eq!(pts[3].config.distance_options.approx_k, 8);
    // b varies between the two eps specs: a numeric eps.b column after the axes.
    assert_eq!(g.columns(), ["eps", "eps_min", "approx_k", "eps.b"]);
    // A key that is also an output column gets a `_spec` column.
    let g = grid(&["mechanism=both,correlated"]).unwrap();
    assert_eq!(g.columns(), ["mechanism_spec"]);
}

#[test]
fn toml_base_and_grid() {
    let g = Grid::from_toml_str(
        "[base]\ndim = 1\nnorm = \"l1\"\n[grid]\nseed = \"1..4\"\neps = [\"recip:c=2\", \"exp:a=3,b=1\"]\n",
    )
    .unwrap();
    let pts = g.points().unwrap();
    assert_eq!(pts.len(), 8);
    assert!(pts.iter().all(|p| p.config.dim == 1));
    assert_eq!(pts[7].config.seed, 4);
    assert_eq!(pts[7].config.eps.to_string(), "exp:a=3,b=1");
    // Axes nest in the order the file writes them: seed outermost here.
    assert_eq!(
        (pts[1].config.seed, pts[1].config.eps.to_string()),
        (1, "exp:a=3,b=1".to_string())
    );
    assert_eq!(g.columns()[..2], ["seed".to_string(), "eps".to_string()]);
}

/// The error is a parameter error whose text holds every `needle`.
fn rejects(r: Result<Vec<privdiffuse::sweep::Point>, Error>, needles: &[&str]) {
    let e = r.expect_err("must be rejected");
    assert!(matches!(e, Error::Parameter { .. }), "{e:?}");
    let msg = e.to_string();
    assert!(
        !msg.contains("expected unknown") && !msg.contains("expected invalid"),
        "{msg}"
    );
    for n in needles {
        assert!(msg.contains(n), "'{msg}' should name '{n}'");
    }
}

fn points(sets: &[&str]) -> Result<Vec<privdiffuse::sweep::Point>, Error> {
    grid(sets)?.points()
}

#[test]
fn malformed_inputs_name_key_and_value() {
    rejects(points(&["colour=red"]), &["colour"]);
    rejects(
        points(&["dim=two"]),
        &["dim", "two", "expected a whole number"],
    );
    rejects(points(&["dim=1,2.5"]), &["dim", "2.5"]);
    rejects(points(&["seed=5..1"]), &["seed", "5..1"]);
    rejects(points(&["seed=1..x"]), &["seed", "1..x"]);
    rejects(points(&["delta=0.1..0.3"]), &["delta", "0.1..0.3"]);
    rejects(points(&["dim="]), &["dim"]);
    rejects(points(&["dim=,"]), &["dim"]);
    rejects(
        points(&["norm=l3"]),
        &["norm", "l3", "expected `l1` or `l2`"],
    );
    rejects(points(&["distance=euclid"]), &["distance", "euclid"]);
    rejects(points(&["eps=exp:a=4"]), &["eps", "exp:a=4"]);
    rejects(points(&["directed=maybe"]), &["directed", "maybe"]);
    rejects(
        points(&["eps_min=abc"]),
        &["eps_min", "abc", "expected a number"],
    );
    rejects(points(&["dim=1,1"]), &["dim", "1"]);
    rejects(points(&["dim=1", "dim=2"]), &["dim"]);
    rejects(points(&["dim"]), &["dim"]);
    rejects(points(&["trials=0"]), &["trials", "0"]);
    rejects(
        points(&["coalition=nobody:x=1"]),
        &["coalition", "nobody:x=1"],
    );
    rejects(points(&["estimators=oracle"]), &["estimators", "oracle"]);
    // Conflicting base/grid key, empty list, bad types in TOML.
    rejects(
        Grid::from_toml_str("[base]\ndim = 2\n[grid]\ndim = [1, 3]\n").and_then(|g| g.points()),
        &["dim"],
    );
    rejects(
        Grid::from_toml_str("[grid]\nseed = []\n").and_then(|g| g.points()),
        &["seed", "[]"],
    );
    rejects(
        Grid::from_toml_str("[grid]\ndim = [\"x\"]\n").and_then(|g| g.points()),
        &["dim", "x"],
    );
    rejects(
        Grid::from_toml_str("[grid]\nbogus = [1]\n").and_then(|g| g.points()),
        &["bogus"],
    );
    rejects(
        Grid::from_toml_str("[base]\nsensitivity = -1\n").and_then(|g| g.points()),
        &["sensitivity", "-1"],
    );
}

/// `{m}` placeholders are filled from a template axis (a key that is not an
/// option); the CSV gets a numeric `m` column and, for every spec parameter
/// that varies, a `KEY.PARAM` column; a value with a placeholder is never
/// split on commas.
#[test]
fn templates_fill_placeholders_and_add_numeric_columns() {
    let mut g = Grid::new();
    g.add_set("m=2,5,10,20").unwrap();
    // No `|`: the placeholder keeps the comma-holding spec whole.
    g.add_set("coalition=random:m={m},min-d=2").unwrap();
    g.add_set("eps=exp:a=3,b=1|exp:a=3,b=0.5").unwrap();
    let points = g.points().unwrap();
    assert_eq!(points.len(), 8);
    assert_eq!(
        g.columns(),
        ["m", "coalition_spec", "eps", "coalition.m", "eps.b"]
    );
    let p = &points[3]; // m = 5, b = 0.5
    assert_eq!(
        p.values,
        ["5", "random:m={m},min-d=2", "exp:a=3,b=0.5", "5", "0.5"]
    );
    let c = p.collude.as_ref().unwrap();
    assert_eq!(c.options.coalitions[0].label(), "random:m=5,min-d=2");
    // As `collude`: 20 owners when a coalition is set and the grid names none.
    assert_eq!(p.config.owners, privdiffuse::Owners::Count(20));
    assert!(p.owners_default);
    // Unchanged parameters (eps.a, coalition.min_d) get no column.
    assert!(
        !g.columns()
            .iter()
            .any(|c| c == "eps.a" || c == "coalition.min_d")
    );
}

#[test]
fn template_mistakes_are_refused_by_name() {
    // A key that is neither an option nor used as {name}: a typo.
    let mut g = Grid::new();
    g.add_set("dimm=1,2").unwrap();
    let e = g.points().unwrap_err().to_string();
    assert!(e.contains("dimm") && e.contains("template variable"), "{e}");
    // A placeholder that names no axis.
    let mut g = Grid::new();
    g.add_set("m=2,3").unwrap();
    g.add_base("coalition", "random:m={n}").unwrap();
    let e = g.points().unwrap_err().to_string();
    assert!(e.contains("{n}") && e.contains("m"), "{e}");
    // A filled value that is not valid names the template and the point.
    let mut g = Grid::new();
    g.add_set("m=2,0").unwrap();
    g.add_base("coalition", "random:m={m}").unwrap();
    let e = g.points().unwrap_err().to_string();
    assert!(e.contains("random:m={m}") && e.contains("m=0"), "{e}");
    // `replicates` must be ≥ 1.
    let e = grid(&["replicates=0"])
        .and_then(|g| g.points().map(|_| ()))
        .unwrap_err()
        .to_string();
    assert!(e.contains("replicates"), "{e}");
}

/// `replicates` is a key like `simulate --replicates`: each point runs K
/// realisations (pooled in its by-distance metrics).
#[test]
fn replicates_is_a_sweep_key() {
    let points = grid(&["replicates=1,3"]).unwrap().points().unwrap();
    let k: Vec<u32> = points.iter().map(|p| p.config.replicates).collect();
    assert_eq!(k, [1, 3]);
}

/// Defaults are the commands': without a coalition a sweep point is
/// `simulate` (every owner), with one it is `collude` (20 owners), and an
/// explicit `owners` wins.
#[test]
fn defaults_match_the_commands() {
    let owners = |sets: &[&str]| {
        grid(sets).unwrap().points().unwrap()[0]
            .config
            .owners
            .clone()
    };
    assert_eq!(owners(&["dim=1,2"]), privdiffuse::Owners::All);
    assert_eq!(
        owners(&["coalition=random:m=3|nearest:m=2"]),
        privdiffuse::Owners::Count(20)
    );
    assert_eq!(
        owners(&["coalition=random:m=3|nearest:m=2", "owners=7"]),
        privdiffuse::Owners::Count(7)
    );
    let c = grid(&["coalition=random:m=3|nearest:m=2"])
        .unwrap()
        .points()
        .unwrap()[0]
        .collude
        .clone()
        .unwrap();
    assert_eq!(c.options.trials, 1000);
    assert_eq!(c.options.estimators.len(), 6);
}
