//! Compiles `proto/` with protox (pure Rust, no system `protoc`) into prost
//! types, tonic clients and one service trait per proto service
//! ([`services`]) in `OUT_DIR`, the `Services` struct with one field per
//! proto service (`services.rs`, [`services::services_struct`]), one enum per
//! closed value list (`closed_sets.rs`, [`closed_sets::enums`]), and writes
//! the file descriptor set (imports included, so reflection clients resolve
//! every type).

use std::path::PathBuf;

#[path = "build/closed_sets.rs"]
mod closed_sets;
#[path = "build/services.rs"]
mod services;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    collect_protos(&root.join("mediaops"), &mut files)?;
    files.sort();
    println!("cargo:rerun-if-changed={}", root.join("mediaops").display());
    println!("cargo:rerun-if-changed={}", root.join("build").display());

    let mut compiler = protox::Compiler::new([&root])?;
    compiler.include_imports(true).include_source_info(true).open_files(&files)?;
    // prost_types drops custom options (extensions), so the embedded set is
    // encoded by protox itself; source info stays in, so reflection clients
    // (`grpcurl describe`) show the proto comments.
    let fds = compiler.file_descriptor_set();
    let encoded = compiler.encode_file_descriptor_set();
    let out = PathBuf::from(std::env::var("OUT_DIR")?);
    std::fs::write(out.join("services.rs"), services::services_struct(&fds))?;
    std::fs::write(out.join("closed_sets.rs"), closed_sets::enums(&compiler.descriptor_pool()))?;
    services::config(&out).compile_fds(fds)?;
    std::fs::write(out.join("descriptor.bin"), encoded)?;
    Ok(())
}

fn collect_protos(dir: &std::path::Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            collect_protos(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "proto") {
            out.push(path);
        }
    }
    Ok(())
}
