//! Whether a server's binary can name its frames: a stripped binary has no symbol table.

use std::path::Path;

use object::Object;

/// The facts read; an unreadable binary reads as not stripped (perf will say what it finds).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BinaryFacts {
    /// No `.symtab`.
    pub stripped: bool,
}

/// The largest binary read whole to look at its sections.
const MAX_BINARY: u64 = 2 << 30;

impl BinaryFacts {
    /// Reads `path`'s sections.
    pub fn read(path: &Path) -> BinaryFacts {
        let unknown = BinaryFacts { stripped: false };
        let Ok(meta) = std::fs::metadata(path) else { return unknown };
        if meta.len() > MAX_BINARY {
            return unknown;
        }
        let Ok(data) = std::fs::read(path) else { return unknown };
        let Ok(file) = object::File::parse(&*data) else { return unknown };
        BinaryFacts {
            stripped: file.section_by_name(".symtab").is_none(),
        }
    }
}
