//! Words for `sh`, as the installed hook commands and the `/dream` command
//! name the tools.

/// A word for `sh`: bare when it is made of safe characters, else single
/// quoted.
pub fn quote(text: &str) -> String {
    match shlex::try_quote(text) {
        Ok(q) => q.into_owned(),
        // only a NUL byte, which no path or command holds
        Err(_) => format!("'{}'", text.replace('\0', "").replace('\'', r"'\''")),
    }
}
