//! Shell-style globs over names: `*` is any run of characters, `?` one
//! character, everything else literal. Release tag patterns (`v*`) and
//! comparison rules (`op=allreduce*`) both use them.

/// Whether `name` matches `pattern` as a whole.
#[allow(
    clippy::arithmetic_side_effects,
    clippy::indexing_slicing,
    reason = "pi and ni stay below the lengths the loop checks them against"
)]
pub fn glob_match(pattern: &str, name: &str) -> bool {
    let (p, n): (Vec<char>, Vec<char>) = (pattern.chars().collect(), name.chars().collect());
    let (mut pi, mut ni) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == n[ni]) {
            pi += 1;
            ni += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ni));
            pi += 1;
        } else if let Some((sp, sn)) = star {
            pi = sp + 1;
            ni = sn + 1;
            star = Some((sp, sn + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob_match("v*", "v1.2"));
        assert!(!glob_match("v*", "1.2"));
        assert!(glob_match("v?.*", "v1.2"));
        assert!(glob_match("*-stable", "v1-stable"));
        assert!(glob_match("*", ""));
        assert!(!glob_match("v1", "v12"));
    }
}
