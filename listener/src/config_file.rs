//! Which TOML file the settings of every mediaops binary come from: the
//! `--config FILE` argument, else `MEDIAOPS_CONFIG`, else `./mediaops.toml`
//! when present. A file named by the operator must exist (a typo in its
//! name is not a silent "no configuration"); the default file is optional.

use std::path::{Path, PathBuf};

/// The configuration file to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigFile {
    /// Its path.
    pub path: PathBuf,
    /// Named by `--config` or `MEDIAOPS_CONFIG`: it must exist.
    pub required: bool,
}

impl ConfigFile {
    /// The file `explicit` (the `--config` argument) or the environment
    /// names, else the optional default.
    pub fn resolve(explicit: Option<&Path>) -> ConfigFile {
        match explicit.map(Path::to_path_buf).or_else(|| std::env::var_os("MEDIAOPS_CONFIG").map(PathBuf::from)) {
            Some(path) => ConfigFile { path, required: true },
            None => ConfigFile { path: PathBuf::from("mediaops.toml"), required: false },
        }
    }

    /// An error naming the file when it is required and missing.
    pub fn check_exists(&self) -> Result<(), String> {
        if self.required && !self.path.is_file() {
            return Err(format!(
                "configuration file {} does not exist (named by --config or MEDIAOPS_CONFIG)",
                self.path.display()
            ));
        }
        Ok(())
    }
}
