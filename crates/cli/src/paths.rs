//! The files a command reads and writes, compared before any work is done: no output may
//! land on an input or on another output. Paths are compared after resolving links and
//! `..`, so `data/../data/train.epd` and a link to it are the same file as `data/train.epd`;
//! files that exist are compared by device and inode too, so a hard link is the file it
//! links.

use anyhow::{bail, Result};
use std::path::{Component, Path, PathBuf};

/// One file (or folder) a command touches: the option that names it, the path as given and
/// the path resolved.
struct Role {
    option: String,
    shown: PathBuf,
    resolved: PathBuf,
    /// The file's device and inode, when it exists.
    id: Option<(u64, u64)>,
    /// One of a list of files (`--epd` repeated) that may not name a file twice.
    listed: bool,
}

impl Role {
    fn new(option: &str, path: &Path) -> Role {
        Role {
            option: option.to_string(),
            shown: path.to_path_buf(),
            resolved: resolve(path),
            id: file_id(path),
            listed: false,
        }
    }

    /// Whether `other` names the same file: the same resolved path, or (both existing) the
    /// same device and inode.
    fn same(&self, other: &Role) -> bool {
        self.resolved == other.resolved || (self.id.is_some() && self.id == other.id)
    }

    /// Whether the file is a device or pipe (`/dev/null`, `/dev/stdout`): many outputs may
    /// go there, and reading one is not reading a file a write could destroy.
    fn is_special(&self) -> bool {
        texel_files::is_special_file(&self.resolved)
    }
}

/// The reads and writes of one command. Build it with the options, then [`Files::check`].
#[derive(Default)]
pub struct Files {
    reads: Vec<Role>,
    writes: Vec<Role>,
    /// Folders whose every file the command may write (the loop's `--dir`).
    dirs: Vec<Role>,
    /// (write, read) pairs that are meant to be the same file (a resumed checkpoint).
    allowed: Vec<(String, String)>,
}

impl Files {
    /// No files yet.
    pub fn new() -> Files {
        Files::default()
    }

    /// `option` reads `path` (when given).
    pub fn read(mut self, option: &str, path: Option<&Path>) -> Files {
        if let Some(p) = path.filter(|p| !is_preset(p)) {
            self.reads.push(Role::new(option, p));
        }
        self
    }

    /// `option` reads each of `paths`, each file once.
    pub fn read_all(mut self, option: &str, paths: &[PathBuf]) -> Files {
        for p in paths {
            self = self.read(option, Some(p));
            if let Some(role) = self.reads.last_mut().filter(|r| r.shown == *p) {
                role.listed = true;
            }
        }
        self
    }

    /// `option` writes `path` (when given).
    pub fn write(mut self, option: &str, path: Option<&Path>) -> Files {
        if let Some(p) = path {
            self.writes.push(Role::new(option, p));
        }
        self
    }

    /// `option` is a folder the command writes files in: no input may be inside it.
    pub fn write_dir(mut self, option: &str, dir: &Path) -> Files {
        self.dirs.push(Role::new(option, dir));
        self
    }

    /// The output of `write` may be the input of `read` (a checkpoint that is resumed and
    /// written again).
    pub fn allow_same(mut self, write: &str, read: &str) -> Files {
        self.allowed.push((write.to_string(), read.to_string()));
        self
    }

    /// Refuses an output that is an input, two outputs that are one file, and an input
    /// inside an output folder, naming both options and the file.
    ///
    /// # Errors
    /// The first clash found.
    pub fn check(&self) -> Result<()> {
        for (i, r) in self.reads.iter().enumerate() {
            let twice = |o: &&Role| o.listed && o.option == r.option && o.same(r);
            if let Some(o) = self.reads[..i].iter().find(twice).filter(|_| r.listed) {
                bail!(
                    "{} {} and {} are the same file: its positions would count twice",
                    r.option,
                    o.shown.display(),
                    r.shown.display()
                );
            }
        }
        for (i, w) in self.writes.iter().enumerate() {
            if w.is_special() {
                continue;
            }
            if w.resolved.is_dir() {
                bail!(
                    "{} {} is a folder: give a file",
                    w.option,
                    w.shown.display()
                );
            }
            if let Some(r) = self.reads.iter().find(|r| self.clash(w, r)) {
                bail!(
                    "{} {} is the file {} reads: refusing to write over an input (choose \
                     another {})",
                    w.option,
                    w.shown.display(),
                    r.option,
                    w.option
                );
            }
            if let Some(o) = self.writes[..i].iter().find(|o| o.same(w)) {
                bail!(
                    "{} and {} are the same file {}: give each output a file of its own",
                    o.option,
                    w.option,
                    w.shown.display()
                );
            }
        }
        for d in &self.dirs {
            let inside = |r: &&Role| r.resolved.starts_with(&d.resolved) && !r.is_special();
            if let Some(r) = self.reads.iter().find(inside) {
                bail!(
                    "{} {} is inside {} {}, which this command writes: move the input or \
                     choose another {}",
                    r.option,
                    r.shown.display(),
                    d.option,
                    d.shown.display(),
                    d.option
                );
            }
        }
        Ok(())
    }

    /// Whether writing `w` would overwrite the input `r`.
    fn clash(&self, w: &Role, r: &Role) -> bool {
        w.same(r)
            && !r.is_special()
            && !self
                .allowed
                .iter()
                .any(|(a, b)| *a == w.option && *b == r.option)
    }
}

/// The device and inode of the file at `path`, when it exists.
#[cfg(unix)]
fn file_id(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

/// Files are compared by path only where there are no inodes.
#[cfg(not(unix))]
fn file_id(_path: &Path) -> Option<(u64, u64)> {
    None
}

/// `preset:NAME` names no file.
fn is_preset(path: &Path) -> bool {
    path.to_str().is_some_and(|s| s.starts_with("preset:"))
}

/// `path` absolute, with links resolved as far as the path exists and `.`/`..` taken off
/// the rest by name.
pub fn resolve(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut existing = absolute.as_path();
    let mut rest = Vec::new();
    loop {
        if let Ok(real) = existing.canonicalize() {
            return rest.iter().rev().fold(real, |mut out, c: &Component| {
                match c {
                    Component::ParentDir => {
                        out.pop();
                    }
                    Component::CurDir => {}
                    c => out.push(c),
                }
                out
            });
        }
        match (existing.parent(), existing.components().next_back()) {
            (Some(parent), Some(last)) => {
                rest.push(last);
                existing = parent;
            }
            _ => return absolute,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_and_parent_steps_name_the_same_file() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in.epd");
        std::fs::write(&input, "x").unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let link = dir.path().join("link.epd");
        std::os::unix::fs::symlink(&input, &link).unwrap();
        let roundabout = dir.path().join("sub/../in.epd");
        assert_eq!(resolve(&link), resolve(&input));
        assert_eq!(resolve(&roundabout), resolve(&input));
        let unborn = dir.path().join("new/../new/x.json");
        assert_eq!(resolve(&unborn), resolve(dir.path()).join("new/x.json"));
    }

    #[test]
    fn clashes_name_both_options() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in.epd");
        std::fs::write(&input, "x").unwrap();
        let err = Files::new()
            .read("--epd", Some(&input))
            .write("--out", Some(&dir.path().join("sub/../in.epd")))
            .check()
            .unwrap_err()
            .to_string();
        assert!(err.contains("--out") && err.contains("--epd"), "{err}");
        let out = dir.path().join("o.json");
        let err = Files::new()
            .write("--out", Some(&out))
            .write("--report", Some(&out))
            .check()
            .unwrap_err()
            .to_string();
        assert!(err.contains("--out and --report"), "{err}");
        let err = Files::new()
            .read_all("--epd", &[input.clone(), dir.path().join("sub/../in.epd")])
            .check()
            .unwrap_err()
            .to_string();
        assert!(err.contains("count twice"), "{err}");
        let err = Files::new()
            .write("--pgn", Some(dir.path()))
            .check()
            .unwrap_err()
            .to_string();
        assert!(err.contains("is a folder"), "{err}");
        let err = Files::new()
            .read(
                "--epd",
                Some(&dir.path().join("loop/round-01/positions.epd")),
            )
            .write_dir("--dir", &dir.path().join("loop"))
            .check()
            .unwrap_err()
            .to_string();
        assert!(err.contains("inside --dir"), "{err}");
        let ckpt = dir.path().join("run.ckpt");
        Files::new()
            .read("--resume", Some(&ckpt))
            .write("--checkpoint", Some(&ckpt))
            .allow_same("--checkpoint", "--resume")
            .read("--params", Some(Path::new("preset:slow23")))
            .write("--log", Some(Path::new("/dev/null")))
            .write("--rust", Some(Path::new("/dev/null")))
            .check()
            .unwrap();
    }

    #[test]
    fn a_hard_link_is_the_file_it_links() {
        let dir = tempfile::tempdir().unwrap();
        let (input, twin) = (dir.path().join("in.epd"), dir.path().join("twin.epd"));
        std::fs::write(&input, "x").unwrap();
        std::fs::hard_link(&input, &twin).unwrap();
        let check = |files: Files| files.check().unwrap_err().to_string();
        let err = check(Files::new().read_all("--epd", &[input.clone(), twin.clone()]));
        assert!(err.contains("count twice"), "{err}");
        let err = check(
            Files::new()
                .read("--epd", Some(&input))
                .write("--log", Some(&twin)),
        );
        assert!(
            err.contains("--log") && err.contains("refusing to write over"),
            "{err}"
        );
        let other = dir.path().join("other.epd");
        std::fs::write(&other, "x").unwrap();
        Files::new()
            .read_all("--epd", &[input, other])
            .check()
            .unwrap();
    }
}
