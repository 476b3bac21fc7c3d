use super::*;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1.0)
}

#[test]
fn evaluates_each_kind() {
    let m = EpsilonMap::parse("exp:a=4,b=3.3").unwrap();
    assert!(close(m.eps(1.0), (0.7f64).exp()));
    assert!(close(m.distance_at(m.eps(2.5)), 2.5));
    assert_eq!(m.log_slope(7.0), 3.3);
    let r = EpsilonMap::parse("recip:c=2").unwrap();
    assert_eq!(r.eps(4.0), 0.5);
    assert!(close(r.log_slope(4.0), 0.25));
    assert!(close(r.distance_at(0.5), 4.0));
    let p = EpsilonMap::parse("power:c=2,p=2").unwrap();
    assert_eq!(p.eps(2.0), 0.5);
    assert!(close(p.distance_at(0.5), 2.0));
}

#[test]
fn table_semantics() {
    let t = EpsilonMap::parse("table:1=15,2=5,3=1.5,*=0.5").unwrap();
    assert_eq!(t.eps(0.3), 15.0); // below the smallest key: that key's ε
    assert_eq!(t.eps(1.0), 15.0);
    assert_eq!(t.eps(2.0), 5.0);
    assert_eq!(t.eps(2.7), 5.0); // largest key ≤ d
    assert_eq!(t.eps(3.0), 1.5);
    assert_eq!(t.eps(4.0), 0.5); // beyond the largest key
    // Interpolated ln ε places a jump at ε = sqrt(15·5) halfway between 1 and 2.
    assert!(close(t.distance_at((75f64).sqrt()), 1.5));
    assert!(close(t.log_slope(1.5), (15f64 / 5.0).ln()));
    let no_star = EpsilonMap::parse("table:1=3,2=1").unwrap();
    assert_eq!(no_star.eps(9.0), 1.0);
}

#[test]
fn table_that_increases_names_the_entries() {
    let e = EpsilonMap::parse("table:1=5,2=15").unwrap_err().to_string();
    assert!(e.contains("1=5 is followed by 2=15"), "{e}");
    let e = EpsilonMap::parse("table:1=5,*=6").unwrap_err().to_string();
    assert!(e.contains("*=6"), "{e}");
}

#[test]
fn range_hits_extremes_exactly() {
    let m = EpsilonMap::parse("range:0.5..15").unwrap();
    assert!(m.needs_resolution());
    let r = m.resolve(1.0, 9.0).unwrap();
    assert_eq!(r.eps(1.0), 15.0);
    assert_eq!(r.eps(9.0), 0.5);
    let mid = r.eps(5.0);
    assert!(close(mid, (15.0f64 * 0.5).sqrt()));
    let (a, b) = r.exp_params().unwrap();
    assert!(close((a - b * 5.0).exp(), mid));
    let back = EpsilonMap::parse(&r.spec()).unwrap();
    assert!(close(back.eps(3.0), r.eps(3.0)));
    assert!(close(r.distance_at(mid), 5.0));
}

#[test]
fn clamps_and_errors() {
    let m = EpsilonMap::parse("exp:a=4,b=1")
        .unwrap()
        .with_clamp(Some(0.5), Some(10.0))
        .unwrap();
    assert_eq!(m.eps(0.1), 10.0);
    assert_eq!(m.eps(100.0), 0.5);
    assert_eq!(m.log_slope(100.0), 0.0);
    for bad in [
        "exp:a=1",
        "exp:a=1,b=-1",
        "exp:a=1,b=x",
        "exp:a=1,b=2,c=3",
        "recip:c=0",
        "power:c=1,p=-1",
        "range:5..1",
        "range:0..1",
        "table:",
        "table:1=0",
        "linear:a=1",
        "nonsense",
        "exp:a=inf,b=1",
    ] {
        let e = EpsilonMap::parse(bad);
        assert!(e.is_err(), "{bad}");
        assert!(e.unwrap_err().to_string().contains("invalid eps"));
    }
    assert!(
        EpsilonMap::parse("exp:a=1,b=1")
            .unwrap()
            .with_clamp(Some(2.0), Some(1.0))
            .is_err()
    );
}

#[test]
fn constructors_match_specs_and_validate() {
    assert_eq!(
        EpsilonMap::exp(3.0, 1.0).unwrap(),
        EpsilonMap::parse("exp:a=3,b=1").unwrap()
    );
    assert_eq!(EpsilonMap::recip(2.0).unwrap().to_string(), "recip:c=2");
    assert_eq!(
        EpsilonMap::power(2.0, 1.5).unwrap().to_string(),
        "power:c=2,p=1.5"
    );
    let t = EpsilonMap::table(&[(2.0, 5.0), (1.0, 15.0)], Some(0.5)).unwrap();
    assert_eq!(t, EpsilonMap::parse("table:1=15,2=5,*=0.5").unwrap());
    let r = EpsilonMap::range(0.5, 15.0).unwrap();
    assert!(r.needs_resolution());
    assert_eq!(r.to_string(), "range:0.5..15");
    for e in [
        EpsilonMap::exp(1.0, -1.0),
        EpsilonMap::exp(f64::INFINITY, 1.0),
        EpsilonMap::recip(0.0),
        EpsilonMap::power(1.0, -1.0),
        EpsilonMap::table(&[], None),
        EpsilonMap::table(&[(1.0, 5.0), (2.0, 15.0)], None),
        EpsilonMap::table(&[(1.0, 5.0), (1.0, 4.0)], None),
        EpsilonMap::table(&[(1.0, 5.0)], Some(6.0)),
        EpsilonMap::table(&[(-1.0, 5.0)], None),
        EpsilonMap::range(5.0, 1.0),
        EpsilonMap::range(0.0, 1.0),
    ] {
        let e = e.unwrap_err();
        assert!(
            matches!(&e, Error::Parameter { name, .. } if name == "eps"),
            "{e}"
        );
    }
    let m = EpsilonMap::exp(1.0, 1.0).unwrap();
    let e = m.with_clamp(Some(2.0), Some(1.0)).unwrap_err().to_string();
    assert!(e.contains("`eps_max`") && !e.contains("--"), "{e}");
}

#[test]
fn spec_round_trips() {
    for s in [
        "exp:a=4,b=3.3",
        "recip:c=1",
        "power:c=2,p=1.5",
        "table:1=15,2=5,*=0.5",
        "range:0.5..15",
    ] {
        let m = EpsilonMap::parse(s).unwrap();
        assert_eq!(m.spec(), s);
        assert_eq!(EpsilonMap::parse(&m.spec()).unwrap(), m);
    }
}

#[test]
fn a_range_over_subnormal_distances_is_refused_naming_eps() {
    let m = EpsilonMap::range(0.5, 15.0).unwrap();
    let e = m.resolve(5e-324, 5e-323).unwrap_err().to_string();
    assert!(e.contains("eps") && e.contains("finite"), "{e}");
    // Ordinary distances resolve, and the recorded parameters are finite.
    let (a, b) = m.resolve(1.0, 9.0).unwrap().exp_params().unwrap();
    assert!(a.is_finite() && b.is_finite());
}
