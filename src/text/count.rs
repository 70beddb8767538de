//! Counts in words: "1 message", "2 messages", "1 branch", "0 branches". The one place where
//! a number meets its noun, so no screen or command says "1 messages".

/// `n` and the noun in the number it needs: `one` for exactly 1, else `many`
/// (`counted(1, "entry", "entries")` is "1 entry", `counted(0, ..)` "0 entries").
pub fn counted(n: impl Into<u64>, one: &str, many: &str) -> String {
    let n = n.into();
    format!("{n} {}", if n == 1 { one } else { many })
}

/// [`counted`] for nouns that take an `s` ("message", "label", "session").
pub fn counted_s(n: impl Into<u64>, noun: &str) -> String {
    let n = n.into();
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_is_singular_and_every_other_number_plural() {
        assert_eq!(counted_s(1u64, "message"), "1 message");
        assert_eq!(counted_s(0u64, "message"), "0 messages");
        assert_eq!(counted_s(2u32, "label"), "2 labels");
        assert_eq!(counted(1u64, "entry", "entries"), "1 entry");
        assert_eq!(counted(0u64, "branch", "branches"), "0 branches");
        assert_eq!(counted(11u64, "branch", "branches"), "11 branches");
    }
}
