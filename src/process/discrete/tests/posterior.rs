//! The chain built down from the top equals the chain built up from the
//! bottom with the exact posterior of memo §3 (test only: no upward sampler
//! is shipped). Exact rational arithmetic on |x|, |y| ≤ 400.
//!
//! The identity is algebraic in (a₁, a₂), so it is checked exactly at
//! rational a₁ < a₂; the same joint pmf is then compared in f64 over the whole
//! grid at two ladder rungs (irrational a = e^{−t}).

use crate::process::discrete::theory::{pmf, stay_probability, tail};
use crate::process::discrete::{DiscreteNoise, Grid, Rung};
use num_bigint::BigInt;
use num_integer::Integer;

/// An exact rational n/d (d > 0), reduced after each operation.
#[derive(Clone, Debug)]
struct Q {
    n: BigInt,
    d: BigInt,
}

impl Q {
    fn new(n: i64, d: i64) -> Q {
        Q {
            n: n.into(),
            d: d.into(),
        }
        .reduced()
    }
    fn reduced(self) -> Q {
        let g = self.n.gcd(&self.d);
        if g == BigInt::from(0) {
            return self;
        }
        Q {
            n: self.n / &g,
            d: self.d / g,
        }
    }
    fn add(&self, o: &Q) -> Q {
        Q {
            n: &self.n * &o.d + &o.n * &self.d,
            d: &self.d * &o.d,
        }
        .reduced()
    }
    fn sub(&self, o: &Q) -> Q {
        Q {
            n: &self.n * &o.d - &o.n * &self.d,
            d: &self.d * &o.d,
        }
        .reduced()
    }
    fn mul(&self, o: &Q) -> Q {
        Q {
            n: &self.n * &o.n,
            d: &self.d * &o.d,
        }
        .reduced()
    }
    fn div(&self, o: &Q) -> Q {
        let s = if o.n < BigInt::from(0) { -1 } else { 1 };
        Q {
            n: &self.n * &o.d * s,
            d: &self.d * &o.n * s,
        }
        .reduced()
    }
    fn pow(&self, k: u32) -> Q {
        Q {
            n: self.n.pow(k),
            d: self.d.pow(k),
        }
    }
    fn same(&self, o: &Q) -> bool {
        &self.n * &o.d == &o.n * &self.d
    }
}

struct Exact {
    a1: Q,
    a2: Q,
    c: Q,
    one: Q,
}

impl Exact {
    fn new(a1: Q, a2: Q) -> Exact {
        let one = Q::new(1, 1);
        let r = one.sub(&a2).div(&one.sub(&a1));
        let c = a1.div(&a2).mul(&r).mul(&r);
        Exact { a1, a2, c, one }
    }
    /// DL_a(x) = (1 − a)/(1 + a)·a^{|x|}.
    fn dl(&self, a: &Q, x: i64) -> Q {
        self.one
            .sub(a)
            .div(&self.one.add(a))
            .mul(&a.pow(x.unsigned_abs() as u32))
    }
    /// Top-down: DL₁(x)·[c·1{x=y} + (1 − c)·DL₂(y − x)] (memo §2).
    fn top_down(&self, x: i64, y: i64) -> Q {
        let mut k = self.one.sub(&self.c).mul(&self.dl(&self.a2, y - x));
        if x == y {
            k = k.add(&self.c);
        }
        self.dl(&self.a1, x).mul(&k)
    }
    /// π(y) = (a₁/a₂)^{1+|y|}·(1 − a₂²)/(1 − a₁²) (memo §3).
    fn atom(&self, y: i64) -> Q {
        let a1s = self.one.sub(&self.a1.mul(&self.a1));
        let a2s = self.one.sub(&self.a2.mul(&self.a2));
        self.a1
            .div(&self.a2)
            .pow(1 + y.unsigned_abs() as u32)
            .mul(&a2s)
            .div(&a1s)
    }
    /// Z(y) = Σ_x a₁^{|x|}·a₂^{|y−x|}: three geometric pieces (memo §3).
    fn z(&self, y: i64) -> Q {
        let s = y.unsigned_abs() as u32;
        let p = self.a1.mul(&self.a2);
        let g = p.div(&self.one.sub(&p));
        let outer = self.a2.pow(s).mul(&g).add(&self.a1.pow(s).mul(&g));
        let middle = self
            .a2
            .pow(s + 1)
            .sub(&self.a1.pow(s + 1))
            .div(&self.a2.sub(&self.a1));
        outer.add(&middle)
    }
    /// Bottom-up: DL₂(y)·[π(y)·1{x=y} + (1 − π(y))·a₁^{|x|}a₂^{|y−x|}/Z(y)].
    fn bottom_up(&self, x: i64, y: i64) -> Q {
        let pi = self.atom(y);
        let q = self
            .a1
            .pow(x.unsigned_abs() as u32)
            .mul(&self.a2.pow((y - x).unsigned_abs() as u32))
            .div(&self.z(y));
        let mut k = self.one.sub(&pi).mul(&q);
        if x == y {
            k = k.add(&pi);
        }
        self.dl(&self.a2, y).mul(&k)
    }
}

/// For every y in [−400, 400]: the atoms agree (DL₂(y)·π(y) = c·DL₁(y)) and
/// the non-atom weights agree (DL₂(y)·(1 − π(y))/Z(y) equals the top-down
/// factor (1 − c)·DL₁(0)·DL₂(0)), which together make the joint pmfs equal
/// at every x; the joint pmfs are also compared pointwise on a grid of (x, y)
/// reaching ±400, and Z's closed form against its direct sum.
#[test]
fn top_down_equals_bottom_up_exactly() {
    let e = Exact::new(Q::new(2, 3), Q::new(3, 4));
    let k = e.one.sub(&e.c).mul(&e.dl(&e.a1, 0)).mul(&e.dl(&e.a2, 0));
    for y in -400..=400 {
        let pi = e.atom(y);
        assert!(
            e.dl(&e.a2, y).mul(&pi).same(&e.c.mul(&e.dl(&e.a1, y))),
            "atom at y = {y}"
        );
        let w = e.dl(&e.a2, y).mul(&e.one.sub(&pi)).div(&e.z(y));
        assert!(w.same(&k), "non-atom weight at y = {y}");
    }
    let grid = [-400i64, -263, -17, -2, -1, 0, 1, 2, 17, 263, 400];
    for &x in &grid {
        for &y in &grid {
            assert!(
                e.top_down(x, y).same(&e.bottom_up(x, y)),
                "joint at ({x}, {y})"
            );
        }
    }
    // Z(y) = Σ_{|x| ≤ L} a₁^{|x|}a₂^{|y−x|} + the two tails beyond ±L.
    let l = 400i64;
    let p = e.a1.mul(&e.a2);
    let tail = p.pow(l as u32 + 1).div(&e.one.sub(&p));
    for y in [-400i64, -3, 0, 5, 400] {
        let mut sum = Q::new(0, 1);
        for x in -l..=l {
            let term =
                e.a1.pow(x.unsigned_abs() as u32)
                    .mul(&e.a2.pow((y - x).unsigned_abs() as u32));
            sum = sum.add(&term);
        }
        // Left: a₂^{y}·(a₁a₂)^{L+1}/(1 − a₁a₂); right: a₂^{−y}·(same).
        let (left, right) = if y >= 0 {
            (e.a2.pow(y as u32).mul(&tail), tail.div(&e.a2.pow(y as u32)))
        } else {
            (
                tail.div(&e.a2.pow((-y) as u32)),
                e.a2.pow((-y) as u32).mul(&tail),
            )
        };
        assert!(sum.add(&left).add(&right).same(&e.z(y)), "Z({y})");
    }
    // A wrong atom (c alone as π) breaks the identity.
    assert!(!e.dl(&e.a2, 3).mul(&e.c).same(&e.c.mul(&e.dl(&e.a1, 3))));
}

/// The same joint pmf at two ladder rungs (Δ_Z = 8, ε = 0.5 and the rung 18
/// below: σ ≈ 23 and 33), in f64 over the whole grid |x|, |y| ≤ 400: the two
/// constructions agree to 1e−12 relative, and their sums agree and miss
/// only the mass beyond ±400.
#[test]
fn top_down_equals_bottom_up_at_ladder_rungs() {
    let noise = DiscreteNoise::new(Grid::from_exponent(-3).unwrap(), 32, 1.0, 1).unwrap();
    let (k1, k2) = (Rung(-32), Rung(-50));
    let (t1, t2) = (noise.rate_f64(k1), noise.rate_f64(k2));
    let (a1, a2) = ((-t1).exp(), (-t2).exp());
    let c = stay_probability(t1, t2);
    let pi = |y: i64| (-(t1 - t2) * (1 + y.abs()) as f64).exp() * (1.0 - a2 * a2) / (1.0 - a1 * a1);
    let z = |y: i64| {
        let s = y.abs();
        let g = a1 * a2 / (1.0 - a1 * a2);
        let (p1, p2) = ((-t1 * s as f64).exp(), (-t2 * s as f64).exp());
        p2 * g + p1 * g + (a2 * p2 - a1 * p1) / (a2 - a1)
    };
    let (mut td_sum, mut bu_sum) = (0.0, 0.0);
    for y in -400i64..=400 {
        let (py, piy, zy) = (pmf(t2, y), pi(y), z(y));
        for x in -400i64..=400 {
            let eq = if x == y { 1.0 } else { 0.0 };
            let td = pmf(t1, x) * (c * eq + (1.0 - c) * pmf(t2, y - x));
            let q = (-t1 * x.abs() as f64 - t2 * (y - x).abs() as f64).exp() / zy;
            let bu = py * (piy * eq + (1.0 - piy) * q);
            assert!(
                (td - bu).abs() <= 1e-12 * td,
                "({x}, {y}): {td} against {bu}"
            );
            td_sum += td;
            bu_sum += bu;
        }
    }
    assert!((td_sum - bu_sum).abs() < 1e-12, "{td_sum} {bu_sum}");
    // Outside the grid: |X₁| > 400 or |X₂| > 400, each at most 2·P(X ≥ 401).
    let outside = 2.0 * (tail(t1, 401) + tail(t2, 401));
    assert!(
        1.0 - td_sum >= -1e-12 && 1.0 - td_sum <= outside + 1e-12,
        "{td_sum}, {outside}"
    );
}
