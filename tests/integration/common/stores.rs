//! What a conversion left on disk: a store's metadata documents and chunk
//! files, and no hidden building directory.

use std::path::Path;

use super::names;

/// No hidden `.NAME.*.partial` directory (nor anything else hidden) left in
/// `dir`.
pub fn no_partial(dir: &Path) {
    let hidden: Vec<String> = names(dir)
        .into_iter()
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(
        hidden.is_empty(),
        "left behind in {}: {hidden:?}",
        dir.display()
    );
}

pub fn json(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).unwrap())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The chunk objects of a store with one 1-d array: `c/<i>` in v3,
/// `<i>` in v2.
pub fn chunk_files(store: &Path) -> Vec<(u64, u64)> {
    let dir = if store.join("zarr.json").exists() {
        store.join("c")
    } else {
        store.to_path_buf()
    };
    let mut out: Vec<(u64, u64)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let index = name
                .parse()
                .unwrap_or_else(|_| panic!("chunk file {name} in {}", dir.display()));
            (index, e.metadata().unwrap().len())
        })
        .collect();
    out.sort();
    out
}
