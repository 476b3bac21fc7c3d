use super::*;

#[test]
fn file_appears_only_on_commit() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().to_path_buf();
    let dest = d.join("a.csv");
    let mut f = AtomicFile::create(&dest).unwrap();
    f.write_all(b"x\n").unwrap();
    assert!(!dest.exists());
    f.commit().unwrap();
    assert_eq!(fs::read_to_string(&dest).unwrap(), "x\n");
    {
        let mut f = AtomicFile::create(&dest).unwrap();
        f.write_all(b"partial").unwrap();
    } // dropped: old content stays, no temp left behind
    assert_eq!(fs::read_to_string(&dest).unwrap(), "x\n");
    assert_eq!(fs::read_dir(&d).unwrap().count(), 1);
    fs::remove_dir_all(&d).unwrap();
}

#[cfg(unix)]
#[test]
fn links_are_followed_and_special_files_written_in_place() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().to_path_buf();
    let real = d.join("real.csv");
    let link = d.join("link.csv");
    std::os::unix::fs::symlink("real.csv", &link).unwrap();
    let mut f = AtomicFile::create(&link).unwrap();
    f.write_all(b"via link\n").unwrap();
    f.commit().unwrap();
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(fs::read_to_string(&real).unwrap(), "via link\n");
    // /dev/null stays a device, and nothing is staged beside it.
    let mut f = AtomicFile::create("/dev/null").unwrap();
    f.write_all(b"discarded").unwrap();
    f.commit().unwrap();
    let m = fs::metadata("/dev/null").unwrap();
    assert!(!m.is_file() && !m.is_dir());
    // A directory is not a file name.
    assert!(AtomicFile::create(&d).is_err());
    // A link to a directory stays a link; the directory is replaced.
    let target = d.join("outdir");
    fs::create_dir(&target).unwrap();
    let dlink = d.join("outlink");
    std::os::unix::fs::symlink("outdir", &dlink).unwrap();
    let a = AtomicDir::create(&dlink).unwrap();
    fs::write(a.join("new.txt"), "new").unwrap();
    a.commit().unwrap();
    assert!(
        fs::symlink_metadata(&dlink)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(target.join("new.txt").exists());
    fs::remove_dir_all(&d).unwrap();
}

/// `--out /dev/stdout` with standard output a pipe: the link chain ends at
/// `/proc/self/fd/N -> pipe:[…]`, which only the kernel resolves. The
/// writer goes through the link in place (it failed with "No such file or
/// directory", staging in `/proc/self/fd`).
#[cfg(target_os = "linux")]
#[test]
fn a_link_to_a_pipe_is_written_in_place() {
    use std::io::Read;
    use std::os::fd::AsRawFd;
    let (mut reader, writer) = std::io::pipe().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    // What /dev/stdout is: a link to the process's descriptor.
    let link = tmp.path().join("stdout");
    std::os::unix::fs::symlink(format!("/proc/self/fd/{}", writer.as_raw_fd()), &link).unwrap();
    for existing in [Existing::Refuse, Existing::Replace] {
        let mut f = AtomicFile::create_with(&link, existing).unwrap();
        f.write_all(b"through the pipe\n").unwrap();
        f.commit().unwrap();
    }
    drop(writer);
    let mut got = String::new();
    reader.read_to_string(&mut got).unwrap();
    assert_eq!(got, "through the pipe\nthrough the pipe\n");
    // Nothing staged beside the link.
    assert_eq!(fs::read_dir(tmp.path()).unwrap().count(), 1);
}

#[test]
fn stale_staging_of_a_dead_process_is_removed() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().to_path_buf();
    let dest = d.join("out");
    // PIDs are below 2^22 on Linux: this one cannot be alive.
    let stale = d.join(".out.tmp-4294967290-a1B2c3");
    fs::create_dir(&stale).unwrap();
    fs::write(stale.join("half.csv"), "x").unwrap();
    // As earlier versions named it (no random suffix).
    let older = d.join(".out.tmp-4294967291");
    fs::write(&older, "x").unwrap();
    // Another destination's, of a dead run, goes too; ours (a live
    // process) and names not ours stay.
    let live = d.join(format!(".out.tmp-{}-zzzzzz", std::process::id()));
    let other = d.join(".outer.tmp-4294967290-a1B2c3");
    let foreign = d.join(".notes.tmp-4294967290-ab");
    fs::write(&live, "x").unwrap();
    fs::write(&other, "x").unwrap();
    fs::write(&foreign, "x").unwrap();
    let a = AtomicDir::create(&dest).unwrap();
    if Path::new("/proc/self").exists() {
        assert!(!stale.exists() && !older.exists() && !other.exists());
    }
    assert!(live.exists() && foreign.exists());
    a.commit().unwrap();
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn staging_is_exclusive_and_named_for_its_destination() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().to_path_buf();
    let dest = d.join("a.csv");
    // Two writers to one destination at once: two temporaries.
    let mut f = AtomicFile::create(&dest).unwrap();
    let mut g = AtomicFile::create(&dest).unwrap();
    let names: Vec<String> = fs::read_dir(&d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
    let prefix = format!(".a.csv.tmp-{}-", std::process::id());
    assert!(names.iter().all(|n| n.starts_with(&prefix)), "{names:?}");
    f.write_all(b"first\n").unwrap();
    g.write_all(b"second\n").unwrap();
    f.commit().unwrap();
    g.commit().unwrap();
    assert_eq!(fs::read_to_string(&dest).unwrap(), "second\n");
    assert_eq!(fs::read_dir(&d).unwrap().count(), 1);
    // A missing folder is reported for the destination, not the temporary.
    let err = AtomicFile::create(d.join("no/such/b.csv")).err().unwrap();
    let msg = err.to_string();
    assert!(
        msg.contains("no/such/b.csv") && !msg.contains(".tmp-"),
        "{msg}"
    );
    fs::remove_dir_all(&d).unwrap();
}

#[cfg(unix)]
#[test]
fn committed_files_and_dirs_get_the_usual_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().to_path_buf();
    // What plain File::create / create_dir give under the current umask.
    let (plain_file, plain_dir) = (d.join("plain.csv"), d.join("plain"));
    fs::File::create(&plain_file).unwrap();
    fs::create_dir(&plain_dir).unwrap();
    let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
    let f = AtomicFile::create(d.join("a.csv")).unwrap();
    f.commit().unwrap();
    assert_eq!(mode(&d.join("a.csv")), mode(&plain_file));
    AtomicDir::create(d.join("run")).unwrap().commit().unwrap();
    assert_eq!(mode(&d.join("run")), mode(&plain_dir));
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_failed_dir_removes_the_parents_it_created() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().to_path_buf();
    let dest = d.join("a").join("b").join("out");
    {
        let _a = AtomicDir::create(&dest).unwrap();
        assert!(d.join("a").join("b").is_dir());
    } // dropped: the run failed
    assert!(!d.join("a").exists());
    let a = AtomicDir::create(&dest).unwrap();
    a.commit().unwrap();
    assert!(dest.is_dir());
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn refuse_claims_a_new_directory_and_releases_it_when_dropped() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().to_path_buf();
    let dest = d.join("a").join("run");
    let a = AtomicDir::create_with(&dest, Existing::Refuse).unwrap();
    // Claimed at once: the empty directory is there during the run.
    assert!(dest.is_dir() && is_empty(&dest));
    let b = AtomicDir::create_with(&dest, Existing::Refuse)
        .err()
        .unwrap();
    assert!(refusal(&b).is_some(), "{b}");
    fs::write(a.join("x.csv"), "x").unwrap();
    a.commit().unwrap();
    assert!(dest.join("x.csv").exists());
    // Refused when it exists, even with the claim long gone.
    let e = AtomicDir::create_with(&dest, Existing::Refuse)
        .err()
        .unwrap();
    assert_eq!(refusal(&e), Some(Refusal::Exists));
    assert_eq!(e.to_string(), format!("{}: already exists", dest.display()));
    // Dropped uncommitted: claim and created folders go again.
    let other = d.join("b").join("run");
    drop(AtomicDir::create_with(&other, Existing::Refuse).unwrap());
    assert!(!d.join("b").exists());
    assert_eq!(fs::read_dir(&d).unwrap().count(), 1);
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn refuse_claims_a_new_file_and_links_are_written_through() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().to_path_buf();
    let dest = d.join("sub").join("a.csv");
    let mut f = AtomicFile::create_with(&dest, Existing::Refuse).unwrap();
    assert_eq!(fs::metadata(&dest).unwrap().len(), 0, "claimed empty");
    assert!(AtomicFile::create_with(&dest, Existing::Refuse).is_err());
    f.write_all(b"x\n").unwrap();
    f.commit().unwrap();
    assert_eq!(fs::read_to_string(&dest).unwrap(), "x\n");
    let e = AtomicPath::create_with(&dest, ".csv", Existing::Refuse)
        .err()
        .unwrap();
    assert_eq!(refusal(&e), Some(Refusal::Exists));
    // Replace overwrites; a dropped claim leaves nothing (folders included).
    let mut f = AtomicFile::create_with(&dest, Existing::Replace).unwrap();
    f.write_all(b"y\n").unwrap();
    f.commit().unwrap();
    assert_eq!(fs::read_to_string(&dest).unwrap(), "y\n");
    drop(AtomicFile::create_with(d.join("new/b.csv"), Existing::Refuse).unwrap());
    assert!(!d.join("new").exists());
    #[cfg(unix)]
    {
        let link = d.join("link.csv");
        std::os::unix::fs::symlink(&dest, &link).unwrap();
        let mut f = AtomicFile::create_with(&link, Existing::Refuse).unwrap();
        f.write_all(b"z\n").unwrap();
        f.commit().unwrap();
        assert_eq!(fs::read_to_string(&dest).unwrap(), "z\n");
    }
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn the_empty_claim_of_a_killed_run_is_taken_over() {
    if !Path::new("/proc/self").exists() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().to_path_buf();
    let dest = d.join("run");
    fs::create_dir(&dest).unwrap();
    // PIDs are below 2^22 on Linux: this one cannot be alive.
    fs::create_dir(d.join(".run.tmp-4294967290-a1B2c3")).unwrap();
    let a = AtomicDir::create_with(&dest, Existing::Refuse).unwrap();
    a.commit().unwrap();
    assert_eq!(fs::read_dir(&d).unwrap().count(), 1);
    // An empty directory made by hand is refused.
    let hand = d.join("hand");
    fs::create_dir(&hand).unwrap();
    assert!(AtomicDir::create_with(&hand, Existing::Refuse).is_err());
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn replacing_a_directory_exchanges_it() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().to_path_buf();
    let dest = d.join("out");
    for round in 0..3 {
        let a = AtomicDir::create_with(&dest, Existing::Replace).unwrap();
        fs::write(a.join(&format!("f{round}")), "x").unwrap();
        a.commit().unwrap();
        let names: Vec<_> = fs::read_dir(&dest).unwrap().flatten().collect();
        assert_eq!(names.len(), 1, "round {round}");
        assert!(dest.join(format!("f{round}")).exists());
        assert_eq!(fs::read_dir(&d).unwrap().count(), 1, "nothing aside");
    }
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn dir_replaces_or_vanishes() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().to_path_buf();
    let dest = d.join("out");
    fs::create_dir(&dest).unwrap();
    fs::write(dest.join("old.txt"), "old").unwrap();
    {
        let a = AtomicDir::create(&dest).unwrap();
        fs::write(a.join("new.txt"), "new").unwrap();
    } // dropped: nothing changes
    assert!(dest.join("old.txt").exists());
    let a = AtomicDir::create(&dest).unwrap();
    fs::write(a.join("new.txt"), "new").unwrap();
    a.commit().unwrap();
    assert!(!dest.join("old.txt").exists());
    assert!(dest.join("new.txt").exists());
    assert_eq!(fs::read_dir(&d).unwrap().count(), 1);
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn staging_names_of_ours_and_no_others_give_their_pid() {
    assert_eq!(stale_staging_pid(".sweep.csv.tmp-4242-a1B2c3"), Some(4242));
    assert_eq!(stale_staging_pid(".fig.png.tmp-7-Zz9yX8.png"), Some(7));
    assert_eq!(stale_staging_pid(".run.tmp-123-abcdef"), Some(123));
    for other in [
        "run.tmp-123-abcdef",  // not hidden
        ".run.tmp-abc-abcdef", // no pid
        ".run.tmp-123-ab",     // not tempfile's random part
        ".tmp-123-abcdef",     // no name
        ".notes.txt",
    ] {
        assert_eq!(stale_staging_pid(other), None, "{other}");
    }
}

#[test]
fn a_dead_runs_staging_of_another_output_is_removed_by_the_next_run_there() {
    let d = tempfile::tempdir().unwrap();
    // A pid that cannot be alive (above the kernel's pid_max).
    let dead = d.path().join(".other.csv.tmp-4294967290-Qw3rTy");
    std::fs::write(&dead, "partial").unwrap();
    let dead_dir = d.path().join(".run.tmp-4294967291-AbCdEf");
    std::fs::create_dir(&dead_dir).unwrap();
    let alive = d.path().join(".kept.tmp-1-Alive1"); // pid 1 is alive
    std::fs::write(&alive, "x").unwrap();
    let mut f = AtomicFile::create(d.path().join("new.csv")).unwrap();
    f.write_all(b"a\n").unwrap();
    f.commit().unwrap();
    if Path::new("/proc/self").exists() {
        assert!(!dead.exists() && !dead_dir.exists());
    }
    assert!(alive.exists());
}
