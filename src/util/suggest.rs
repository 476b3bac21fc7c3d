//! "Did you mean": the known word nearest to a mistyped one (sweep keys and
//! the kinds of every spec: `eps`, `values`, `coalition`), so that every
//! face's message suggests the same way.

/// Edit distance (insertions, deletions, substitutions and swaps of two
/// neighbouring letters — optimal string alignment; case folded).
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.to_lowercase().chars().collect();
    let b: Vec<char> = b.to_lowercase().chars().collect();
    let (n, m) = (a.len(), b.len());
    let mut d = vec![vec![0usize; m + 1]; n + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=n {
        for j in 1..=m {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j - 1] + cost)
                .min(d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
        }
    }
    d[n][m]
}

/// The candidate nearest to `word` when it is near enough to be a typo: at
/// most 1 edit for words of up to 4 letters, 2 up to 8, 3 beyond; ties go
/// to the first candidate. `None` for an exact match or nothing near.
pub fn nearest<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let w = word.trim();
    if w.is_empty() {
        return None;
    }
    let limit = match w.chars().count() {
        0..=4 => 1,
        5..=8 => 2,
        _ => 3,
    };
    candidates
        .iter()
        .map(|c| (distance(w, c), *c))
        .filter(|&(d, _)| d > 0 && d <= limit)
        .min_by_key(|&(d, _)| d)
        .map(|(_, c)| c)
}

/// `" (did you mean `X`?)"` for the nearest candidate, else empty: the
/// suffix every message appends.
pub fn did_you_mean(word: &str, candidates: &[&str]) -> String {
    nearest(word, candidates)
        .map(|c| format!(" (did you mean `{c}`?)"))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typos_are_matched_and_far_words_are_not() {
        let keys = ["dim", "dims_x", "eps", "seed", "coalition", "distance"];
        assert_eq!(nearest("dims", &keys), Some("dim"));
        assert_eq!(nearest("coaliton", &keys), Some("coalition"));
        assert_eq!(
            nearest("Seed", &keys),
            None,
            "an exact match (case folded) is not a typo"
        );
        assert_eq!(nearest("sed", &keys), Some("seed"));
        assert_eq!(nearest("banana", &keys), None);
        assert_eq!(nearest("", &keys), None);
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(
            distance("bset", "best"),
            1,
            "a swap of neighbours is one edit"
        );
        assert_eq!(nearest("bset", &["best", "mean"]), Some("best"));
        assert_eq!(
            did_you_mean("expo", &["exp", "recip"]),
            " (did you mean `exp`?)"
        );
        assert_eq!(did_you_mean("zzz", &["exp", "recip"]), "");
    }
}
