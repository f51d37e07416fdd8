//! Files a scenario reads (its SNR traces): where a path resolves and which paths may be read.
//!
//! A scenario can come from anyone (a shared file, a sweep grid, a notebook), and an error
//! about a file ends up in stores and reports. So a relative path is read from the scenario's
//! own directory, a path leading outside it (absolute, `..`, a symbolic link) is refused
//! unless the caller allows that directory, only regular files of bounded size are read, and
//! no error quotes the file's contents.

use std::path::{Component, Path, PathBuf};

/// Largest file read (an SNR trace of 10^7 samples fits well within it).
pub const MAX_FILE_BYTES: u64 = 256 * 1024 * 1024;

/// Where a scenario's file paths resolve and which directories they may reach.
#[derive(Clone, Debug, Default)]
pub struct FileAccess {
    /// The directory a relative path is read from, and below which any path must lie: the
    /// scenario file's directory. `None` is the working directory (a scenario built in code).
    pub base: Option<PathBuf>,
    /// Further directories whose files (at any depth) may be read.
    pub allow: Vec<PathBuf>,
}

impl FileAccess {
    /// Paths relative to `base`, nothing outside it.
    pub fn within(base: impl Into<PathBuf>) -> Self {
        FileAccess {
            base: Some(base.into()),
            allow: Vec::new(),
        }
    }

    fn base_dir(&self) -> Result<PathBuf, String> {
        match &self.base {
            Some(b) if !b.as_os_str().is_empty() => absolute(b),
            _ => std::env::current_dir()
                .map_err(|e| format!("cannot resolve a relative path: no working directory ({e})")),
        }
    }

    /// The real path of `file` as the scenario names it, once it is known to lie inside the
    /// base directory or an allowed one.
    pub fn resolve(&self, file: &str) -> Result<PathBuf, String> {
        let base = normalize(&self.base_dir()?);
        let given = Path::new(file);
        let joined = normalize(&base.join(given));
        let mut roots = vec![base.clone()];
        for a in &self.allow {
            roots.push(normalize(&absolute(a)?));
        }
        // Checked on the path as written first, so nothing outside is even looked at.
        if !roots.iter().any(|r| joined.starts_with(r)) {
            return Err(self.outside(file, &base));
        }
        let real = joined
            .canonicalize()
            .map_err(|e| format!("cannot read '{file}': {}", io_reason(&e)))?;
        // A symbolic link inside may still lead outside.
        let inside = roots
            .iter()
            .filter_map(|r| r.canonicalize().ok())
            .any(|r| real.starts_with(r));
        if !inside {
            return Err(self.outside(file, &base));
        }
        Ok(real)
    }

    fn outside(&self, file: &str, base: &Path) -> String {
        format!(
            "'{file}' lies outside the scenario's directory ({}); a file path is read \
             relative to it, and another directory must be allowed by the caller \
             (allow_paths= in Python, --allow-path on the command line)",
            base.display()
        )
    }

    /// Read a text file the scenario names: inside the allowed directories, a regular file
    /// (not a device or a pipe, which could block or never end), at most [`MAX_FILE_BYTES`].
    pub fn read_text(&self, file: &str) -> Result<String, String> {
        use std::io::Read;
        let path = self.resolve(file)?;
        let meta = std::fs::metadata(&path)
            .map_err(|e| format!("cannot read '{file}': {}", io_reason(&e)))?;
        if !meta.is_file() {
            return Err(format!("'{file}' is not a regular file"));
        }
        if meta.len() > MAX_FILE_BYTES {
            return Err(format!(
                "'{file}' is {} bytes, more than the {MAX_FILE_BYTES} a trace may have",
                meta.len()
            ));
        }
        let mut bytes = Vec::new();
        std::fs::File::open(&path)
            .and_then(|f| f.take(MAX_FILE_BYTES).read_to_end(&mut bytes))
            .map_err(|e| format!("cannot read '{file}': {}", io_reason(&e)))?;
        String::from_utf8(bytes).map_err(|e| {
            format!(
                "'{file}' is not UTF-8 text (byte {})",
                e.utf8_error().valid_up_to()
            )
        })
    }
}

/// The reason of an I/O error without the OS error number, which differs between systems.
fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => e.to_string(),
    }
}

fn absolute(p: &Path) -> Result<PathBuf, String> {
    std::path::absolute(p).map_err(|e| format!("cannot resolve '{}': {e}", p.display()))
}

/// `p` with `.` dropped and `..` taken back lexically (never above the root).
fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("airtcp-files-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(d.join("sub")).unwrap();
        std::fs::write(d.join("sub/t.csv"), "10\n").unwrap();
        d
    }

    #[test]
    fn relative_paths_resolve_in_the_base_and_may_not_leave_it() {
        let d = dir("rel");
        let fa = FileAccess::within(d.join("sub"));
        assert_eq!(fa.read_text("t.csv").unwrap(), "10\n");
        assert_eq!(fa.read_text("./x/../t.csv").unwrap(), "10\n");
        std::fs::write(d.join("secret"), "s3cr3t\n").unwrap();
        for bad in ["../secret", "/etc/passwd", "x/../../secret"] {
            let e = fa.read_text(bad).unwrap_err();
            assert!(
                e.contains("lies outside the scenario's directory"),
                "{bad}: {e}"
            );
            assert!(!e.contains("s3cr3t") && !e.contains("root:"), "{e}");
        }
        // An absolute path inside the base is fine.
        let abs = d.join("sub/t.csv");
        assert!(fa.read_text(abs.to_str().unwrap()).is_ok());
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn an_allowed_directory_may_be_read() {
        let d = dir("allow");
        std::fs::write(d.join("outer.csv"), "1\n").unwrap();
        let mut fa = FileAccess::within(d.join("sub"));
        assert!(fa.read_text("../outer.csv").is_err());
        fa.allow.push(d.clone());
        assert_eq!(fa.read_text("../outer.csv").unwrap(), "1\n");
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_symbolic_link_out_of_the_base_is_refused() {
        let d = dir("link");
        std::fs::write(d.join("secret"), "x\n").unwrap();
        std::os::unix::fs::symlink(d.join("secret"), d.join("sub/link.csv")).unwrap();
        let e = FileAccess::within(d.join("sub"))
            .read_text("link.csv")
            .unwrap_err();
        assert!(e.contains("lies outside"), "{e}");
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn devices_and_missing_files_are_clear_errors() {
        let fa = FileAccess::within("/dev");
        assert!(fa
            .read_text("zero")
            .unwrap_err()
            .contains("not a regular file"));
        let d = dir("missing");
        let e = FileAccess::within(&d).read_text("nope.csv").unwrap_err();
        assert_eq!(e, "cannot read 'nope.csv': no such file");
        std::fs::remove_dir_all(&d).unwrap();
    }
}
