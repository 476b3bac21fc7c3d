//! The scratch guard itself: its folder is named after the test, and gone
//! once the guard drops — at the end of a test and while a test unwinds.

use super::scratch::scratch;
use std::path::PathBuf;

#[test]
fn a_scratch_folder_is_named_after_its_test_and_removed_with_its_guard() {
    let d = scratch("guard");
    let path = d.to_path_buf();
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        name.starts_with(
            "privdiffuse-support.scratch_tests.\
             a_scratch_folder_is_named_after_its_test_and_removed_with_its_guard-guard-"
        ),
        "{name}"
    );
    std::fs::create_dir(d.join("sub")).unwrap();
    std::fs::write(d.join("sub").join("f.csv"), "x\n").unwrap();
    drop(d);
    assert!(!path.exists(), "{}", path.display());

    // A failing test: the guard drops while the panic unwinds.
    let made = std::sync::Mutex::new(PathBuf::new());
    let r = std::panic::catch_unwind(|| {
        let d = scratch("panic");
        std::fs::write(d.join("f.csv"), "x\n").unwrap();
        *made.lock().unwrap() = d.to_path_buf();
        panic!("a failing test (on purpose)");
    });
    assert!(r.is_err());
    let path = made.into_inner().unwrap();
    if std::env::var_os("PRIVDIFFUSE_KEEP_SCRATCH").is_some_and(|v| v == "1") {
        // Kept on purpose for a failed test: this one's is removed here.
        assert!(path.join("f.csv").exists(), "{}", path.display());
        std::fs::remove_dir_all(&path).unwrap();
    } else {
        assert!(!path.exists(), "{}", path.display());
    }
}
