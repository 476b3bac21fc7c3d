use super::*;
use crate::util::fmt_f64;
use proptest::prelude::*;
use serde::Deserialize;

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Demo {
    id: String,
    count: u64,
    x: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<f64>,
    v: Vec<f64>,
}

impl CsvRow for Demo {
    const VECTOR: Option<&'static str> = Some("v");
    const OPTIONAL: &'static [&'static str] = &["note"];
    const INFINITE: &'static [&'static str] = &["v"];
    const UNDEFINED: &'static [&'static str] = &["v"];
}

#[test]
fn non_finite_numbers_only_where_documented() {
    let row = |x: f64, v: f64| Demo {
        id: "a".into(),
        count: 1,
        x,
        note: None,
        v: vec![v],
    };
    let mut w = Writer::with_header(Vec::new(), columns::<Demo>(1, &["note"])).unwrap();
    // `v` documents inf and NaN; `x` documents neither; -inf is never allowed.
    w.row(&row(1.0, f64::INFINITY)).unwrap();
    w.row(&row(1.0, f64::NAN)).unwrap();
    for (x, v) in [
        (f64::NAN, 0.0),
        (f64::INFINITY, 0.0),
        (1.0, f64::NEG_INFINITY),
    ] {
        let e = w.row(&row(x, v)).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData);
        assert!(e.to_string().contains("expected a finite number"), "{e}");
    }
    let text = String::from_utf8(w.into_inner().unwrap()).unwrap();
    assert_eq!(text, "id,count,x,v1\na,1,1,inf\na,1,1,NaN\n");
    // Readers keep the same promise, naming file, line and column.
    let (_d_p, p) = scratch("nonfinite", "id,count,x,v1\na,1,1,inf\nb,2,-inf,0\n");
    let m = read(&p).unwrap_err().to_string();
    assert!(
        m.ends_with(":3: column 'x': expected a finite number, found '-inf'"),
        "{m}"
    );
}

/// `name` holding `text` in a fresh folder, removed when the guard drops.
fn scratch(name: &str, text: &str) -> (tempfile::TempDir, PathBuf) {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join(name);
    std::fs::write(&p, text).unwrap();
    (d, p)
}

fn read(p: &Path) -> Result<Vec<(usize, Demo)>, TableError> {
    let mut out = Vec::new();
    Reader::open(p)?.rows(&[], |line, r| {
        out.push((line, r));
        Ok::<_, TableError>(())
    })?;
    Ok(out)
}

#[test]
fn field_names_and_headers() {
    assert_eq!(fields::<Demo>(), ["id", "count", "x", "note", "v"]);
    assert_eq!(
        columns::<Demo>(2, &["note"]),
        ["id", "count", "x", "v1", "v2"]
    );
}

#[test]
fn writes_shortest_floats_and_reads_them_back() {
    let rows = [
        Demo {
            id: "a,b".into(),
            count: 3,
            x: 15.0,
            note: None,
            v: vec![1e-7, f64::INFINITY, f64::NAN],
        },
        Demo {
            id: "q\"".into(),
            count: 0,
            x: -0.5,
            note: None,
            v: vec![0.1, 2.0, -3.0],
        },
    ];
    let mut w = Writer::with_header(Vec::new(), columns::<Demo>(3, &["note"])).unwrap();
    for r in &rows {
        w.row(r).unwrap();
    }
    let text = String::from_utf8(w.into_inner().unwrap()).unwrap();
    assert_eq!(
        text,
        "id,count,x,v1,v2,v3\n\"a,b\",3,15,0.0000001,inf,NaN\n\"q\"\"\",0,-0.5,0.1,2,-3\n"
    );
    // Reordered columns, an extra one, the optional one present.
    let (_d_p, p) = scratch("back", &text);
    let back = read(&p).unwrap();
    assert_eq!(back[0].0, 2);
    assert_eq!(back[1].1, rows[1]);
    assert!(back[0].1.v[2].is_nan());
    let (_d_p2, p2) = scratch("order", "v1,extra,x,note,count,id\n4,zz,1,2.5,7,k\n");
    let r = read(&p2).unwrap();
    assert_eq!(
        r[0].1,
        Demo {
            id: "k".into(),
            count: 7,
            x: 1.0,
            note: Some(2.5),
            v: vec![4.0]
        }
    );
    std::fs::remove_file(p).unwrap();
    std::fs::remove_file(p2).unwrap();
}

#[test]
fn text_reads_back_exactly_and_files_are_trimmed() {
    let text = "id,count,x,v1\n a ,1,2,3\n\" b\",4,5,6\n";
    let rows: Vec<Demo> = Reader::from_text("kept", text).unwrap().collect().unwrap();
    assert_eq!(rows[0].id, " a ");
    assert_eq!(rows[1].id, " b");
    assert_eq!(rows[1].v, [6.0]);
    let (_d_p, p) = scratch("trim", text);
    assert_eq!(read(&p).unwrap()[0].1.id, "a");
    std::fs::remove_file(p).unwrap();
    let m = Reader::from_text("kept.csv", "id,count,x,v1\na,1,y,3\n")
        .unwrap()
        .collect::<Demo>()
        .unwrap_err()
        .to_string();
    assert_eq!(
        m,
        "kept.csv:2: column 'x': expected a number (the cell is not shown)"
    );
}

#[test]
fn errors_name_file_line_and_column() {
    let msg = |text: &str| {
        let (_d_p, p) = scratch("err", text);
        let m = read(&p).unwrap_err().to_string();
        std::fs::remove_file(p).unwrap();
        m
    };
    let m = msg("id,count,x,v1\na,1,2,3\nb,1,abc,3\n");
    assert!(
        m.ends_with(":3: column 'x': expected a number (the cell is not shown)"),
        "{m}"
    );
    let m = msg("id,count,x,v1,v2\na,-1,2,3,4\n");
    assert!(
        m.ends_with(":2: column 'count': expected a non-negative integer, found '-1'"),
        "{m}"
    );
    let m = msg("id,count,x,v1,v2\na,1,2,3,x\n");
    assert!(
        m.contains("column 'v2': expected a number (the cell is not shown)"),
        "{m}"
    );
    let m = msg("id,cnt,x,v1\n");
    assert!(
        m.ends_with(":1: missing column 'count': expected a header with id,count,x,v1..vn, found 'id,cnt,x,v1'"),
        "{m}"
    );
    let m = msg("id,count,x\n");
    assert!(m.contains("missing column 'v1'"), "{m}");
    let m = msg("id,count,x,v1\na,1,2\n");
    assert!(
        m.contains(":2: expected 4 fields (as in the header), found 3"),
        "{m}"
    );
}

proptest! {
    #[test]
    fn floats_are_written_as_display(bits in any::<u64>(), label in "[a-z,\"]{0,4}") {
        let x = f64::from_bits(bits);
        let mut want = String::new();
        push_field(&mut want, &label);
        want.push(',');
        want.push_str(&fmt_f64(x));
        prop_assert_eq!(line(&(&label, x)).unwrap(), want);
    }
}

#[test]
fn records_keep_their_width() {
    let mut r = Records::new();
    r.push(&("a", 1u64, None::<f64>)).unwrap();
    assert!(r.push(&("a", 1u64)).is_err());
    r.push(&((), "x\ny", Some(1e-7))).unwrap();
    assert_eq!(r.as_str(), "a,1,\n,\"x\ny\",0.0000001\n");
    let mut one = Records::new();
    one.push(&[""]).unwrap();
    assert_eq!(one.as_str(), "\"\"\n");
    assert!(line(&std::collections::HashMap::from([(1, 2)])).is_err());
}

#[test]
fn lines_and_cells_round_trip() {
    let fields = ["exp:a=4,b=1", "plain", "say \"hi\"", "", "d∈[1, 2]"];
    let l = line(&fields).unwrap();
    assert_eq!(l, "\"exp:a=4,b=1\",plain,\"say \"\"hi\"\"\",,\"d∈[1, 2]\"");
    assert_eq!(cells(&l), fields);
}

/// A row with a cell of every kind the writers emit (text that reads as a
/// number, integers beyond `i64`, optional and vector numbers).
#[derive(Debug, Serialize, Deserialize)]
struct Mixed {
    id: String,
    big: u64,
    x: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<f64>,
    flag: bool,
    v: Vec<f64>,
}

impl CsvRow for Mixed {
    const VECTOR: Option<&'static str> = Some("v");
    const OPTIONAL: &'static [&'static str] = &["note"];
    const INFINITE: &'static [&'static str] = &["v"];
    const UNDEFINED: &'static [&'static str] = &["v"];
}

/// The columns a type-inferring reader makes of CSV text (the Python
/// package's former parser, `pandas.read_csv`'s types): integers, else
/// numbers with empty cells as NaN, else text.
fn read_columns(text: &str) -> Vec<(String, Column)> {
    let mut rd = csv::ReaderBuilder::new().from_reader(text.as_bytes());
    let names: Vec<String> = rd.headers().unwrap().iter().map(String::from).collect();
    let mut cells: Vec<Vec<String>> = vec![Vec::new(); names.len()];
    for rec in rd.records() {
        for (c, f) in cells.iter_mut().zip(rec.unwrap().iter()) {
            c.push(f.to_string());
        }
    }
    let typed = |col: Vec<String>| {
        if let Some(v) = col.iter().map(|s| s.parse::<i64>().ok()).collect() {
            return Column::Int(v);
        }
        let num = |s: &String| {
            if s.is_empty() {
                Some(f64::NAN)
            } else {
                s.parse().ok()
            }
        };
        match col.iter().map(num).collect() {
            Some(v) => Column::Float(v),
            None => Column::Text(col),
        }
    };
    names
        .into_iter()
        .zip(cells.into_iter().map(typed))
        .collect()
}

/// Columns equal, floats bit for bit (NaN included).
fn same(a: &[(String, Column)], b: &[(String, Column)]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|((na, ca), (nb, cb))| {
            na == nb
                && match (ca, cb) {
                    (Column::Float(x), Column::Float(y)) => {
                        x.len() == y.len()
                            && x.iter().zip(y).all(|(p, q)| p.to_bits() == q.to_bits())
                    }
                    _ => ca == cb,
                }
        })
}

fn mixed_row() -> impl Strategy<Value = Mixed> {
    let ids = prop::sample::select(vec![
        "",
        "7",
        "007",
        "-0",
        "+3",
        "1.50",
        "1e5",
        "inf",
        "NaN",
        "a,b",
        "x",
        "say \"hi\"",
        "9223372036854775808",
        "true",
    ]);
    let floats = prop::sample::select(vec![
        0.0,
        -0.0,
        1.0,
        -3.0,
        0.5,
        1e-7,
        1e15,
        1e16,
        9007199254740993.0,
        1e300,
        -2.5e-300,
        9.3e18,
        1.7976931348623157e308,
    ]);
    let bigs = prop::sample::select(vec![
        0u64,
        1,
        1 << 53,
        (1 << 53) + 1,
        i64::MAX as u64,
        u64::MAX,
    ]);
    let v = prop::collection::vec(
        prop_oneof![
            Just(f64::INFINITY),
            Just(f64::NAN),
            floats.clone(),
            any::<f64>().prop_filter("finite", |x| x.is_finite())
        ],
        2,
    );
    (
        ids,
        bigs,
        floats.clone(),
        prop::option::of(floats),
        any::<bool>(),
        v,
    )
        .prop_map(|(id, big, x, note, flag, v)| Mixed {
            id: id.to_string(),
            big,
            x,
            note,
            flag,
            v,
        })
}

proptest! {
    /// Columns built from rows are what a reader types the written text as:
    /// same names, types and values (the Python tables of the CSV files).
    #[test]
    fn columns_are_the_written_text_read_back(
        rows in prop::collection::vec(mixed_row(), 0..6),
        notes in any::<bool>(),
    ) {
        let rows: Vec<Mixed> = rows
            .into_iter()
            .map(|mut r| {
                if !notes {
                    r.note = None;
                } else if r.note.is_none() {
                    r.note = Some(1.5);
                }
                r
            })
            .collect();
        let leave_out: &[&str] = if notes { &[] } else { &["note"] };
        let header = columns::<Mixed>(2, leave_out);
        let w = fill(Writer::with_header(Vec::new(), header.clone()).unwrap(), &rows).unwrap();
        let text = String::from_utf8(w.into_inner().unwrap()).unwrap();
        let got = fill(Columns::new(header), &rows).unwrap();
        prop_assert_eq!(got.len(), rows.len());
        let (got, want) = (got.into_vec(), read_columns(&text));
        prop_assert!(same(&got, &want), "{got:?}\n{want:?}\n{text}");
    }
}

#[test]
fn columns_refuse_what_the_writer_refuses() {
    let row = |x: f64| Demo {
        id: "a".into(),
        count: 1,
        x,
        note: None,
        v: vec![1.0],
    };
    let mut c = Columns::new(columns::<Demo>(1, &["note"]));
    c.push_row(&row(2.0)).unwrap();
    let e = c.push_row(&row(f64::NAN)).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::InvalidData);
    assert!(
        e.to_string()
            .contains("column 'x': expected a finite number"),
        "{e}"
    );
    let mut narrow = Columns::new(columns::<Demo>(1, &["note", "v"]));
    assert!(narrow.push_row(&row(2.0)).is_err());
    let mut wide = Columns::new(columns::<Demo>(3, &["note"]));
    assert!(wide.push_row(&row(2.0)).is_err());
}
