//! Id validation and path containment: a derived id is valid, and every path
//! made from a valid id stays in its directory.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mem_core::id::{derive_id, is_new_id, safe_join, validate_id};

fuzz_target!(|data: &[u8]| {
    let Ok(s) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(id) = derive_id(s) {
        assert!(is_new_id(&id), "derived {id:?} from {s:?}");
        assert!(validate_id(&id).is_ok(), "derived {id:?} fails validation");
    }
    let dir = std::path::Path::new("/nonexistent-fuzz-dir/memory");
    if validate_id(s).is_ok() {
        let p = safe_join(dir, s, ".md").expect("a valid id joins");
        assert_eq!(p.parent(), Some(dir), "{s:?} escapes: {}", p.display());
        assert!(!s.contains('/') && !s.contains("..") && !s.contains('\0'));
    }
});
