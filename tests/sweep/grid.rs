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
    assert_eq!(g.columns(), ["eps", "eps_min", "approx_k"]);
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
