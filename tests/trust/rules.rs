//! The rules every command keeps, one table (issue 32 item 5): [`RULES`]
//! × the commands each concerns ([`COMMANDS`]) × every noise the command
//! runs. A rule is a refusal — exit 1 or 2, one line naming the parameter as
//! the command names it (its flag, or its key in a sweep) or the file, line
//! and column, no secret, nothing written — and a failing cell is a bug in
//! the library's one check every command calls, not in the command.
//!
//! The rules: a secret never appears in a message (a sentinel secret in a
//! values file and in `--value`: cells that do not parse, overflow, or lie
//! beyond the grid or the public range); `--out` is claimed (a run into a
//! new `--out` that another live run has claimed fails at once and leaves
//! the claim alone; a run into an `--out` whose `OUT.lock` a live `evolve`
//! holds, or `evolve` into one a staged run holds, fails at once); ε that underflows is refused before anything is
//! written; values that overflow are refused; one grid limit.
//!
//! The table cannot fall behind the program: [`the_table_lists_every_command_and_flag_a_rule_concerns`]
//! reads `--help` and fails on a command missing from [`COMMANDS`], on a
//! flag of a rule that a row does not declare, and on a noise a row leaves
//! out that the command takes.

use super::common::{bin, names, tmpdir};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The sentinel secret: beyond ±2^42, the default grid's range, so that it
/// is refused under `--noise discrete`.
const SECRET: &str = "314159265358979";

/// The noises a command may take with `--noise`.
const NOISES: [&str; 3] = ["laplace", "gaussian", "discrete"];

/// What a command reads that a rule concerns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Input {
    /// A value model or `file:` of owners' values (`--values`).
    Values,
    /// The one secret of `relax` (`--value`).
    Value,
    /// A privacy map ε(d) (`--eps` of the run commands).
    EpsMap,
    /// A privacy level given as a number (`relax --eps`, `path --eps-lo`).
    EpsLevel,
    /// The discrete grid (`--granularity`).
    Granularity,
}

/// Where a command writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Out {
    /// A run directory.
    Dir,
    /// One file with this extension (its sidecars beside it).
    File(&'static str),
    /// Standard output only.
    None,
}

/// One command as the table runs it.
struct Cmd {
    /// The subcommand path.
    name: &'static str,
    /// A tiny run's arguments. `{k}`: the karate graph; `{start}`,
    /// `{nodes}`, `{events}`: karate split by `generate events`; `{db}`: a
    /// store to read; `{run}`: a results directory to draw.
    args: &'static [&'static str],
    /// Where it writes.
    out: Out,
    /// The noises it runs (`--noise WORD`, or `--set noise=WORD`); `gossip`
    /// runs its own Gaussian noise and takes no such flag.
    noises: &'static [&'static str],
    /// What it reads that a rule concerns, each under the name a message
    /// gives it (the flag; a sweep's key).
    reads: &'static [(Input, &'static str)],
    /// Options are sweep keys (`--set KEY=VALUE`), not flags.
    keys: bool,
}

/// The arguments of a one-dimensional ℓ1 run on the graph `{k}`, figures off.
const ONE_DIM_RUN: &[&str] = &[
    "--graph",
    "{k}",
    "--dim",
    "1",
    "--norm",
    "l1",
    "--no-plots",
    "-q",
];

const RUN: &[(Input, &str)] = &[
    (Input::Values, "--values"),
    (Input::EpsMap, "--eps"),
    (Input::Granularity, "--granularity"),
];

const COMMANDS: &[Cmd] = &[
    Cmd {
        name: "simulate",
        args: ONE_DIM_RUN,
        out: Out::Dir,
        noises: &NOISES,
        reads: RUN,
        keys: false,
    },
    Cmd {
        name: "collude",
        args: &[
            "--graph",
            "{k}",
            "--coalition",
            "random:m=3",
            "--trials",
            "20",
            "--dim",
            "1",
            "--norm",
            "l1",
            "--no-plots",
            "-q",
        ],
        out: Out::Dir,
        noises: &NOISES,
        reads: RUN,
        keys: false,
    },
    Cmd {
        name: "utility",
        args: ONE_DIM_RUN,
        out: Out::Dir,
        noises: &["laplace", "discrete"],
        reads: RUN,
        keys: false,
    },
    Cmd {
        name: "relay",
        args: ONE_DIM_RUN,
        out: Out::Dir,
        noises: &["laplace", "discrete"],
        reads: RUN,
        keys: false,
    },
    Cmd {
        name: "evolve",
        args: &[
            "--graph",
            "{start}",
            "--nodes",
            "{nodes}",
            "--events",
            "{events}",
            "--store",
            "s.db",
            "--dim",
            "1",
            "--norm",
            "l1",
            "--no-plots",
            "-q",
        ],
        out: Out::Dir,
        noises: &["laplace", "discrete"],
        reads: RUN,
        keys: false,
    },
    Cmd {
        name: "sweep",
        args: &[
            "--set",
            "graph={k}",
            "--set",
            "dim=1",
            "--set",
            "norm=l1",
            "-q",
        ],
        out: Out::File("csv"),
        noises: &NOISES,
        reads: &[
            (Input::Values, "values"),
            (Input::EpsMap, "eps"),
            (Input::Granularity, "granularity"),
        ],
        keys: true,
    },
    Cmd {
        name: "gossip",
        args: &[
            "--graph",
            "{k}",
            "--sigma",
            "1",
            "--sensitivity",
            "1",
            "--no-plots",
            "-q",
        ],
        out: Out::Dir,
        noises: &["gossip"],
        reads: &[(Input::Values, "--values")],
        keys: false,
    },
    Cmd {
        name: "relax",
        args: &["--value", "1", "--eps", "1"],
        out: Out::File("csv"),
        noises: &NOISES,
        reads: &[
            (Input::Value, "--value"),
            (Input::EpsLevel, "--eps"),
            (Input::Granularity, "--granularity"),
        ],
        keys: false,
    },
    Cmd {
        name: "path",
        args: &[
            "--dim", "1", "--norm", "l1", "--eps-lo", "0.5", "--eps-hi", "2",
        ],
        out: Out::File("csv"),
        noises: &["laplace", "discrete"],
        reads: &[
            (Input::EpsLevel, "--eps-lo"),
            (Input::Granularity, "--granularity"),
        ],
        keys: false,
    },
    Cmd {
        name: "distances",
        args: &["--graph", "{k}", "--owner", "0"],
        out: Out::File("csv"),
        noises: &[],
        reads: &[],
        keys: false,
    },
    Cmd {
        name: "generate er",
        args: &["--n", "30", "--m", "40"],
        out: Out::File("edges"),
        noises: &[],
        reads: &[],
        keys: false,
    },
    Cmd {
        name: "generate events",
        args: &["--graph", "{k}", "--hold-out", "0.2"],
        out: Out::File("edges"),
        noises: &[],
        reads: &[],
        keys: false,
    },
    Cmd {
        name: "info",
        args: &["--graph", "{k}"],
        out: Out::None,
        noises: &[],
        reads: &[],
        keys: false,
    },
    Cmd {
        name: "subgraph",
        args: &["--graph", "{k}", "--ego", "0"],
        out: Out::File("edges"),
        noises: &[],
        reads: &[],
        keys: false,
    },
    Cmd {
        name: "plot",
        args: &["--input", "{run}", "--kind", "error"],
        out: Out::File("svg"),
        noises: &[],
        reads: &[],
        keys: false,
    },
    Cmd {
        name: "answers",
        args: &["--store", "{db}"],
        out: Out::File("csv"),
        noises: &[],
        reads: &[],
        keys: false,
    },
];

/// One rule over one input.
struct Rule {
    /// What the rule says (failures name it).
    says: &'static str,
    /// The input it concerns: every command that reads it is run.
    input: Input,
    /// The offending value (`{fx}`: the fixture folder).
    value: &'static str,
    /// The noises it holds under (`None`: every noise the command runs).
    noises: Option<&'static [&'static str]>,
    /// The exit code.
    code: i32,
    /// What the one line holds; `{p}` is the parameter as the command
    /// names it.
    parts: &'static [&'static str],
}

const RULES: &[Rule] = &[
    Rule {
        says: "a values file with a cell too many: file, line and column, never the cells",
        input: Input::Values,
        value: "file:{fx}/cols.csv",
        noises: None,
        code: 1,
        parts: &["cols.csv:2: column 3: expected 2 columns"],
    },
    Rule {
        says: "a values file's cell that does not parse: file, line and column, never the cell",
        input: Input::Values,
        value: "file:{fx}/cell.csv",
        noises: None,
        code: 1,
        parts: &["cell.csv:2: column 2 (v1)", "(the cell is not shown)"],
    },
    Rule {
        says: "a values file's cell that overflows: file, line and column, never the cell",
        input: Input::Values,
        value: "file:{fx}/over.csv",
        noises: None,
        code: 1,
        parts: &["over.csv:3: column 2 (v1)", "(the cell is not shown)"],
    },
    Rule {
        says: "a secret beyond the grid or the public range: the owner, never the value",
        input: Input::Values,
        value: "file:{fx}/big.csv",
        noises: Some(&["discrete", "gossip"]),
        code: 2,
        parts: &["invalid {p} '(owner 0: not shown)'"],
    },
    Rule {
        says: "a secret the f64 noise cannot hide (rounding would show it): the owner, never the value",
        input: Input::Values,
        value: "file:{fx}/big.csv",
        noises: Some(&["laplace", "gaussian"]),
        code: 2,
        parts: &[
            "invalid {p} '(owner ",
            ": not shown)'",
            "2^42 noise standard deviations",
        ],
    },
    Rule {
        says: "const:X is every owner's secret: never shown",
        input: Input::Values,
        value: "const:314159265358979x",
        noises: None,
        code: 2,
        parts: &["invalid {p} 'const:(not shown)'"],
    },
    Rule {
        says: "a --value the f64 noise cannot hide is not shown",
        input: Input::Value,
        value: SECRET,
        noises: Some(&["laplace", "gaussian"]),
        code: 2,
        parts: &[
            "invalid {p} '(not shown)'",
            "2^42 noise standard deviations",
        ],
    },
    Rule {
        says: "a --value that does not parse is not shown",
        input: Input::Value,
        value: "314159265358979x",
        noises: None,
        code: 2,
        parts: &["invalid {p} '(not shown)'"],
    },
    Rule {
        says: "a --value beyond the grid is not shown",
        input: Input::Value,
        value: SECRET,
        noises: Some(&["discrete"]),
        code: 2,
        parts: &["invalid {p} '(not shown)'", "--granularity"],
    },
    Rule {
        says: "a --value that overflows is refused, not shown",
        input: Input::Value,
        value: "314159265358979e400",
        noises: None,
        code: 2,
        parts: &["invalid {p} '(not shown)'"],
    },
    Rule {
        says: "values whose range overflows are refused",
        input: Input::Values,
        value: "uniform:-1e308,1e308",
        noises: None,
        code: 2,
        parts: &["invalid {p} 'uniform:-1e308,1e308'", "finite width"],
    },
    Rule {
        says: "a map whose ε underflows at the top is refused as typed",
        input: Input::EpsMap,
        value: "exp:a=-800,b=1",
        noises: None,
        code: 2,
        parts: &["invalid {p} 'exp:a=-800,b=1'", "got ε = 0 at distance 1"],
    },
    Rule {
        says: "a map whose ε underflows further down is refused as typed",
        input: Input::EpsMap,
        value: "power:c=1,p=1e308",
        noises: None,
        code: 2,
        parts: &["invalid {p} 'power:c=1,p=1e308'", "got ε = 0 at distance 2"],
    },
    Rule {
        says: "a map below the range of levels is refused as typed",
        input: Input::EpsMap,
        value: "table:1=1e-320,*=1e-320",
        noises: None,
        code: 2,
        parts: &[
            "invalid {p} 'table:1=1e-320,*=1e-320'",
            "got ε = 1e-320 at distance 1",
        ],
    },
    Rule {
        says: "a level below the range is refused naming its parameter",
        input: Input::EpsLevel,
        value: "1e-320",
        noises: None,
        code: 2,
        parts: &["invalid {p} '1e-320'"],
    },
    Rule {
        says: "a level that underflows is refused as typed",
        input: Input::EpsLevel,
        value: "1e-400",
        noises: None,
        code: 2,
        parts: &["invalid {p} '1e-400'"],
    },
    Rule {
        says: "a grid without the discrete noise is refused as typed",
        input: Input::Granularity,
        value: "2^-3",
        noises: Some(&["laplace", "gaussian"]),
        code: 2,
        parts: &["invalid {p} '2^-3'", "its default unless"],
    },
    Rule {
        says: "one grid limit",
        input: Input::Granularity,
        value: "2^401",
        noises: Some(&["discrete"]),
        code: 2,
        parts: &["invalid {p} '2^401'", "at most 2^400"],
    },
];

/// The fixtures every case reads (outside the cases' folders).
struct Fixtures {
    dir: PathBuf,
}

impl Fixtures {
    fn new(dir: &Path) -> Fixtures {
        let fx = dir.join("fx");
        std::fs::create_dir_all(&fx).unwrap();
        let w = |name: &str, text: String| std::fs::write(fx.join(name), text).unwrap();
        w("cols.csv", format!("1,0.5\n0,{SECRET},27\n"));
        w("cell.csv", format!("1,0.5\n0,{SECRET}x\n"));
        w("over.csv", format!("1,0.5\n2,0.5\n0,{SECRET}e999\n"));
        w(
            "big.csv",
            (0..34).map(|i| format!("{i},{SECRET}\n")).collect(),
        );
        let k = repo("data/karate.edges");
        let run = |args: &[&str]| {
            let o = bin().args(args).output().unwrap();
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        };
        let start = fx.join("k.edges").display().to_string();
        run(&[
            "generate",
            "events",
            "--graph",
            &k,
            "--hold-out",
            "0.2",
            "--seed",
            "1",
            "--out",
            &start,
        ]);
        let f = Fixtures { dir: fx };
        let db = f.fill("{db}");
        run(&[
            "evolve",
            "--graph",
            &start,
            "--nodes",
            &f.fill("{nodes}"),
            "--events",
            &f.fill("{events}"),
            "--store",
            &db,
            "--dim",
            "1",
            "--no-plots",
            "-q",
            "--out",
            &f.dir.join("evolve").display().to_string(),
        ]);
        f
    }

    /// `text` with the fixtures' paths filled in.
    fn fill(&self, text: &str) -> String {
        let p = |n: &str| self.dir.join(n).display().to_string();
        text.replace("{k}", &repo("data/karate.edges"))
            .replace("{start}", &p("k.edges"))
            .replace("{nodes}", &p("k.nodes"))
            .replace("{events}", &p("k.events.csv"))
            .replace("{db}", &p("a.db"))
            .replace("{run}", &repo("results/geometric150"))
            .replace("{fx}", &self.dir.display().to_string())
    }
}

fn repo(p: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(p)
        .display()
        .to_string()
}

impl Cmd {
    /// The name of `input` in this command, if it reads it.
    fn reads(&self, input: Input) -> Option<&'static str> {
        self.reads
            .iter()
            .find(|(i, _)| *i == input)
            .map(|(_, n)| *n)
    }

    /// `--NAME VALUE`, or `--set NAME=VALUE` (a value with commas ends in
    /// `|`: one value, not a list).
    fn option(&self, name: &str, value: &str) -> Vec<String> {
        if self.keys {
            let bar = if value.contains(',') { "|" } else { "" };
            vec!["--set".into(), format!("{name}={value}{bar}")]
        } else {
            vec![name.into(), value.into()]
        }
    }

    /// The arguments of a run under `noise` writing into the current
    /// folder, with `extra` options (a flag of the tiny run's given again
    /// replaces its value there).
    fn line(&self, fx: &Fixtures, noise: &str, extra: &[String]) -> Vec<String> {
        let mut a: Vec<String> = self.name.split(' ').map(String::from).collect();
        let mut base: Vec<String> = self.args.iter().map(|s| fx.fill(s)).collect();
        let mut extra = extra.to_vec();
        if !self.keys
            && extra.len() == 2
            && let Some(i) = base.iter().position(|x| *x == extra[0])
        {
            base[i + 1] = extra.pop().unwrap();
            extra.clear();
        }
        a.extend(base);
        if NOISES.contains(&noise) {
            a.extend(self.option(if self.keys { "noise" } else { "--noise" }, noise));
        }
        a.extend(extra);
        if let Some(o) = self.out_name() {
            a.extend(["--out".into(), o]);
        }
        a
    }

    /// The `--out` of a case (relative to its folder).
    fn out_name(&self) -> Option<String> {
        match self.out {
            Out::Dir => Some("o".into()),
            Out::File(ext) => Some(format!("o.{ext}")),
            Out::None => None,
        }
    }

    /// The noises to run it under (one pass for a command without noise).
    fn runs(&self) -> Vec<&'static str> {
        if self.noises.is_empty() {
            vec!["-"]
        } else {
            self.noises.to_vec()
        }
    }
}

/// One run of the table: a label, its arguments, its own folder, what the
/// folder holds before it (a planted claim, or nothing), and the refusal.
struct Case {
    label: String,
    args: Vec<String>,
    dir: PathBuf,
    before: Vec<String>,
    code: i32,
    parts: Vec<String>,
    /// A lock on the case's `o.lock` this test holds while the case runs.
    _held: Option<std::fs::File>,
}

/// What the case did wrong, if anything.
fn check(c: &Case) -> Option<String> {
    let t = Instant::now();
    let o = bin().args(&c.args).current_dir(&c.dir).output().unwrap();
    let took = t.elapsed();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    let out = String::from_utf8_lossy(&o.stdout);
    let mut bad = Vec::new();
    if o.status.code() != Some(c.code) {
        bad.push(format!("exit {:?}, not {}", o.status.code(), c.code));
    }
    if err.lines().count() != 1 || !err.starts_with("error: ") {
        bad.push("not one error line".into());
    }
    for p in &c.parts {
        if !err.contains(p.as_str()) {
            bad.push(format!("no {p:?}"));
        }
    }
    if err.contains(SECRET) || out.contains(SECRET) {
        bad.push("the secret is shown".into());
    }
    if took > Duration::from_secs(20) {
        bad.push(format!("took {took:?}: not at once"));
    }
    let after = names(&c.dir);
    if after != c.before {
        bad.push(format!("wrote {after:?} (had {:?})", c.before));
    }
    (!bad.is_empty()).then(|| format!("{}: {} — {}", c.label, bad.join("; "), err.trim_end()))
}

/// Plants in `dir` what a live run into the new `--out` `name` leaves on
/// disk while it runs: the empty destination it claimed (a directory, or an
/// empty file) and its staging beside it, named with a live process's PID
/// (this test's).
fn plant_claim(dir: &Path, name: &str, is_dir: bool) {
    let dest = dir.join(name);
    if is_dir {
        std::fs::create_dir(&dest).unwrap();
    } else {
        std::fs::write(&dest, "").unwrap();
    }
    let staging = dir.join(format!(".{name}.tmp-{}-AbC123", std::process::id()));
    if is_dir {
        std::fs::create_dir(staging).unwrap();
    } else {
        std::fs::write(staging, "").unwrap();
    }
}

/// Every case of the table: each rule × each command reading its input ×
/// each noise the rule holds under, and `--out` claimed for every command
/// that writes, under each noise.
fn cases(root: &Path, fx: &Fixtures) -> Vec<Case> {
    let folder = |n: usize| {
        let d = root.join(format!("{n:03}"));
        std::fs::create_dir_all(&d).unwrap();
        d
    };
    let mut all = Vec::new();
    for rule in RULES {
        for cmd in COMMANDS {
            let Some(param) = cmd.reads(rule.input) else {
                continue;
            };
            for noise in cmd.runs() {
                if rule.noises.is_some_and(|n| !n.contains(&noise)) {
                    continue;
                }
                let label = format!("{} [{} --noise {noise}]: {}", rule.says, cmd.name, param);
                let dir = folder(all.len());
                let extra = cmd.option(param, &fx.fill(rule.value));
                all.push(Case {
                    args: cmd.line(fx, noise, &extra),
                    label,
                    dir,
                    before: Vec::new(),
                    code: rule.code,
                    parts: rule.parts.iter().map(|p| p.replace("{p}", param)).collect(),
                    _held: None,
                });
            }
        }
    }
    for cmd in COMMANDS {
        let Some(name) = cmd.out_name() else {
            continue;
        };
        for noise in cmd.runs() {
            let label = format!("--out claimed by a live run [{} --noise {noise}]", cmd.name);
            let dir = folder(all.len());
            plant_claim(&dir, &name, cmd.out == Out::Dir);
            all.push(Case {
                args: cmd.line(fx, noise, &[]),
                label,
                before: names(&dir),
                dir,
                code: 1,
                parts: vec![format!("error: {name} was created by another run")],
                _held: None,
            });
            if cmd.out != Out::Dir {
                continue;
            }
            // `o.lock` held as a live run (`evolve`) holds it, alone: every
            // run into `o` is refused; held shared, as a staged run holds
            // it: a live run is refused.
            for (holder, shared) in [("a live run", false), ("a staged run", true)] {
                if shared && cmd.name != "evolve" {
                    continue;
                }
                let dir = folder(all.len());
                all.push(Case {
                    label: format!("--out held by {holder} [{} --noise {noise}]", cmd.name),
                    args: cmd.line(fx, noise, &[]),
                    _held: Some(hold_lock(&dir.join(format!("{name}.lock")), shared)),
                    before: names(&dir),
                    dir,
                    code: 1,
                    parts: vec![format!("error: {name} is in use by another run")],
                });
            }
        }
    }
    all
}

/// `lock` created and locked (`shared` or alone) by this process, as a run
/// into its directory holds it while it runs.
fn hold_lock(lock: &Path, shared: bool) -> std::fs::File {
    let f = std::fs::File::create(lock).unwrap();
    if shared {
        f.try_lock_shared().unwrap();
    } else {
        f.try_lock().unwrap();
    }
    f
}

/// Runs `cases` on two threads; returns every failure.
fn run_all(cases: Vec<Case>) -> Vec<String> {
    let queue = Mutex::new(cases);
    let failures = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                loop {
                    let Some(c) = queue.lock().unwrap().pop() else {
                        break;
                    };
                    if let Some(f) = check(&c) {
                        failures.lock().unwrap().push(f);
                    }
                }
            });
        }
    });
    failures.into_inner().unwrap()
}

#[test]
fn every_rule_holds_for_every_command_and_noise_it_concerns() {
    let root = tmpdir("rules");
    let fx = Fixtures::new(&root);
    let cases = cases(&root.join("cases"), &fx);
    let n = cases.len();
    let t = Instant::now();
    let failures = run_all(cases);
    assert!(
        failures.is_empty(),
        "{} of {n} cases failed ({:?}):\n{}",
        failures.len(),
        t.elapsed(),
        failures.join("\n")
    );
}

/// The flags `cmd --help` lists.
fn flags(cmd: &str) -> Vec<String> {
    let o = bin().args(cmd.split(' ')).arg("--help").output().unwrap();
    assert!(o.status.success(), "{cmd} --help");
    String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| {
            let t = l.trim_start();
            let t = t
                .strip_prefix('-')
                .filter(|r| r.len() > 2 && r.as_bytes()[1] == b',')
                .map_or(t, |r| r[2..].trim_start());
            t.strip_prefix("--")
                .map(|r| format!("--{}", r.split([' ', ',', '=']).next().unwrap_or("")))
        })
        .collect()
}

/// The commands `privdiffuse CMD --help` lists under "Commands:".
fn subcommands(path: &[&str]) -> Vec<String> {
    let o = bin().args(path).arg("--help").output().unwrap();
    String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next().map(String::from))
        .filter(|c| c != "help")
        .collect()
}

/// A new command, a new flag a rule concerns or a noise newly accepted
/// fails here until the table has it.
#[test]
fn the_table_lists_every_command_and_flag_a_rule_concerns() {
    for c in subcommands(&[]) {
        let listed = |name: &str| COMMANDS.iter().any(|k| k.name == name);
        if c == "generate" {
            // Every generator writes one --out the same way: one in the
            // table per kind of input (a graph, or none).
            assert!(listed("generate er") && listed("generate events"));
            continue;
        }
        assert!(listed(&c), "command `{c}` is not in COMMANDS: add its row");
    }
    let concerned = [
        (Input::Values, "--values"),
        (Input::Value, "--value"),
        (Input::Granularity, "--granularity"),
    ];
    let dir = tmpdir("rules-noises");
    let fx = Fixtures::new(&dir);
    for cmd in COMMANDS.iter().filter(|c| !c.keys) {
        let f = flags(cmd.name);
        for (input, flag) in concerned {
            assert_eq!(
                f.iter().any(|x| x == flag),
                cmd.reads(input) == Some(flag),
                "`{} {flag}`: the row and --help disagree",
                cmd.name
            );
        }
        let eps = cmd.reads(Input::EpsMap).or(cmd.reads(Input::EpsLevel));
        for flag in ["--eps", "--eps-lo"] {
            if f.iter().any(|x| x == flag) {
                assert_eq!(eps, Some(flag), "`{} {flag}` is not in its row", cmd.name);
            }
        }
        assert!(eps.is_none_or(|e| f.iter().any(|x| x == e)), "{}", cmd.name);
        assert_eq!(
            f.iter().any(|x| x == "--out"),
            cmd.out != Out::None,
            "`{} --out`: the row and --help disagree",
            cmd.name
        );
        let takes_noise = f.iter().any(|x| x == "--noise");
        assert_eq!(
            takes_noise,
            cmd.noises.iter().any(|n| NOISES.contains(n)),
            "`{} --noise`: the row and --help disagree",
            cmd.name
        );
        // A noise the row leaves out is one the command refuses.
        for noise in NOISES
            .iter()
            .filter(|n| takes_noise && !cmd.noises.contains(n))
        {
            let o = bin()
                .args(cmd.line(&fx, noise, &[]))
                .current_dir(&*dir)
                .output()
                .unwrap();
            let e = String::from_utf8_lossy(&o.stderr);
            assert!(
                o.status.code() == Some(2) && e.contains(&format!("--noise '{noise}'")),
                "`{} --noise {noise}` is not refused: add it to the row ({e})",
                cmd.name
            );
        }
    }
}
