//! Unit and property tests of the search rules (pi 1.6.0's tiers, phrases, regexes, tool hits).

use std::path::Path;

use proptest::prelude::*;

use super::explain::Field;
use super::fuzzy::swap_halves;
use super::js::is_js_space;
use super::*;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

/// pi-tui 1.6.0's `fuzzyMatch`, transcribed literally over UTF-16 code units.
fn reference_fuzzy(query: &str, text: &str) -> Option<f64> {
    fn score_positions(t: &[u16], positions: &[usize]) -> f64 {
        let (mut score, mut last, mut consec) = (0.0f64, -1i64, 0i64);
        for &p in positions {
            let i = p as i64;
            if last == i - 1 {
                consec += 1;
                score -= (consec * 5) as f64;
            } else {
                consec = 0;
                if last >= 0 {
                    score += ((i - last - 1) * 2) as f64;
                }
            }
            let boundary = p == 0
                || char::from_u32(u32::from(t[p - 1]))
                    .is_some_and(|c| is_js_space(c) || "-_./:".contains(c));
            if boundary {
                score -= 10.0;
            }
            score += i as f64 * 0.1;
            last = i;
        }
        score
    }
    fn match_query(q: &[u16], t: &[u16]) -> Option<f64> {
        if q.is_empty() {
            return Some(0.0);
        }
        if q.len() > t.len() {
            return None;
        }
        let mut positions = Vec::new();
        let mut last: i64 = -1;
        for &u in q {
            let from = (last + 1) as usize;
            let i = (from..t.len()).find(|&i| t[i] == u)?;
            positions.push(i);
            last = i as i64;
        }
        let mut score = score_positions(t, &positions);
        for start in 0..=t.len() - q.len() {
            if t[start..start + q.len()] == *q {
                let p: Vec<usize> = (start..start + q.len()).collect();
                score = score.min(score_positions(t, &p));
            }
        }
        if q == t {
            score -= 100.0;
        }
        Some(score)
    }
    let q = query.to_lowercase();
    let t: Vec<u16> = text.to_lowercase().encode_utf16().collect();
    let q16: Vec<u16> = q.encode_utf16().collect();
    if let Some(s) = match_query(&q16, &t) {
        return Some(s);
    }
    let swapped = swap_halves(&q)?;
    let s16: Vec<u16> = swapped.encode_utf16().collect();
    match_query(&s16, &t).map(|s| s + 5.0)
}

#[test]
fn reference_vectors() {
    // Computed with pi-tui 1.6.0's fuzzyMatch under Node 24.
    let cases: &[(&str, &str, Option<f64>)] = &[
        ("brave", "xxxx brave", Some(-56.5)),
        ("brave", "brave xxxx", Some(-84.0)),
        ("abc", "abc", Some(-139.7)),
        ("abc", "xabc", Some(-14.4)),
        ("abc", "a-b-c", Some(-30.4)),
        ("fb", "foo bar", Some(-18.6)),
        (
            "opus",
            "openrouter openrouter/anthropic/claude-opus",
            Some(-23.8),
        ),
        ("ts1", "1ts", Some(-134.7)),
        ("node cve", "node cve triage", Some(-197.2)),
        ("xyz", "abc", None),
    ];
    for &(q, t, want) in cases {
        let got = fuzzy_match(q, t);
        match (got, want) {
            (Some(g), Some(w)) => assert!(close(g, w), "{q:?}/{t:?}: {g} != {w}"),
            (None, None) => {}
            _ => panic!("{q:?}/{t:?}: {got:?} != {want:?}"),
        }
        assert_eq!(got, reference_fuzzy(q, t), "{q:?}/{t:?}");
    }
}

#[test]
fn fuzzy_edge_cases() {
    assert_eq!(fuzzy_match("", "anything"), Some(0.0));
    assert_eq!(fuzzy_match("abcd", "abc"), None);
    assert_eq!(fuzzy_match("b", "😀 b"), reference_fuzzy("b", "😀 b"));
    assert_eq!(fuzzy_match("ÄB", "xäb"), reference_fuzzy("ÄB", "xäb"));
    assert!(fuzzy_match("ÄB", "xäb").is_some());
    assert_eq!(fuzzy_match("😀", "😁x😀"), reference_fuzzy("😀", "😁x😀"));
    assert!(swap_halves("abc").is_none());
    assert_eq!(swap_halves("ab12").as_deref(), Some("12ab"));
    assert_eq!(swap_halves("12ab").as_deref(), Some("ab12"));
    assert!(swap_halves("a1b").is_none());
}

proptest! {
    #[test]
    fn fuzzy_equals_reference(
        q in "[aAbB1 \\-./日İΣσς😀😁é\u{301}]{0,4}",
        t in "[aAbB1 \\-_./:日İΣσς😀😁é\u{301}\u{a0}x]{0,24}",
    ) {
        prop_assert_eq!(fuzzy_match(&q, &t), reference_fuzzy(&q, &t), "{:?} / {:?}", q, t);
    }

    #[test]
    fn phrase_in_messages_equals_normalized_includes(
        phrase in "[ab ]{1,5}",
        t in "[ab \\t\\n\u{a0}😀]{0,24}",
    ) {
        let norm = |s: &str| {
            let lower = s.to_lowercase();
            lower.split(is_js_space).filter(|w| !w.is_empty()).collect::<Vec<_>>().join(" ")
        };
        let np = norm(&phrase);
        prop_assume!(!np.is_empty());
        let fields = SearchFields { id: "x", text: &t, ..SearchFields::default() };
        let query = Query::parse(&format!("\"{phrase}\"")).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let want = norm(&t).contains(&np);
        prop_assert_eq!(query.score(&fields).is_some(), want);
    }
}

fn tokens_of(q: &str) -> Vec<(bool, String)> {
    let q = Query::parse(q).unwrap();
    q.tokens()
        .iter()
        .map(|t| match t {
            tokens::Token::Word(w) => (false, w.lower.clone()),
            tokens::Token::Phrase(p) => (true, p.normalized.clone()),
        })
        .collect()
}

#[test]
fn parse_tokens() {
    assert!(Query::parse("   ").is_ok_and(|q| q.is_empty()));
    assert_eq!(
        tokens_of(r#"foo "Node   CVE" bar"#),
        [
            (false, "foo".into()),
            (true, "node cve".into()),
            (false, "bar".into())
        ]
    );
    assert_eq!(
        tokens_of(r#"a"b c"d"#),
        [
            (false, "a".into()),
            (true, "b c".into()),
            (false, "d".into())
        ]
    );
    assert_eq!(tokens_of(r#""""#), []);
    assert_eq!(
        tokens_of(r#"foo "bar baz"#),
        [
            (false, "foo".into()),
            (false, "\"bar".into()),
            (false, "baz".into())
        ]
    );
}

#[test]
fn parse_regex() {
    assert_eq!(Query::parse("re:").err(), Some(QueryError::EmptyRegex));
    assert_eq!(Query::parse("  re:   ").err(), Some(QueryError::EmptyRegex));
    let err = Query::parse("re:(").err();
    assert!(
        matches!(&err, Some(QueryError::InvalidRegex(m)) if !m.contains('\n')),
        "{err:?}"
    );
    assert!(Query::parse("re: a+b ").is_ok_and(|q| q.is_regex() && q.as_str() == "re: a+b"));
    assert!(Query::parse("x re:(").is_ok_and(|q| !q.is_regex()));
}

#[derive(Default)]
struct S {
    id: &'static str,
    name: Option<&'static str>,
    modified: i64,
    text: &'static str,
    cwd: &'static str,
    tools: &'static str,
}

impl S {
    fn fields(&self) -> SearchFields<'_> {
        SearchFields {
            id: self.id,
            name: self.name,
            summary: None,
            text: self.text,
            cwd: self.cwd,
            tools: self.tools,
        }
    }
}

fn s(id: &'static str, modified: i64, text: &'static str) -> S {
    S {
        id,
        modified,
        text,
        ..S::default()
    }
}

/// pi's `filterAndSortSessions` over `sessions`, through [`compare_matches`].
fn ranked(sessions: &[S], query: &str, order: MatchOrder) -> Vec<&'static str> {
    let Ok(q) = Query::parse(query) else {
        return Vec::new();
    };
    let mut hits: Vec<(&S, Score)> = sessions
        .iter()
        .filter_map(|s| q.score(&s.fields()).map(|sc| (s, sc)))
        .collect();
    fn key<'a>((s, sc): &'a (&S, Score)) -> RankKey<'a> {
        RankKey {
            score: sc,
            modified_ms: s.modified,
            path: Path::new(s.id),
        }
    }
    hits.sort_by(|a, b| compare_matches(order, key(a), key(b)));
    hits.into_iter().map(|(s, _)| s.id).collect()
}

fn rel(sessions: &[S], query: &str) -> Vec<&'static str> {
    ranked(sessions, query, MatchOrder::Relevance)
}

#[test]
fn words_match_text_only_literally() {
    let sessions = [
        s("a", 1, "we took a screenshot of it"),
        s("b", 2, "s c r e e n s h o t scattered"),
    ];
    assert_eq!(rel(&sessions, "screenshot"), ["a"]);
    assert_eq!(rel(&sessions, "SCREENSHOT"), ["a"]);
}

#[test]
fn words_match_name_and_cwd_fuzzily_but_never_across_fields() {
    let named = S {
        id: "n",
        name: Some("grove search"),
        modified: 1,
        cwd: "/home/alice/code/pi-browser",
        ..S::default()
    };
    assert_eq!(rel(std::slice::from_ref(&named), "grvsrch"), ["n"]);
    assert_eq!(rel(std::slice::from_ref(&named), "pibrow"), ["n"]);
    // "gp": g from the name, p from the cwd: no single field holds the subsequence... except
    // the cwd itself ("/home/alice/code/pi-browser" has no g), and the name has no p.
    assert!(rel(std::slice::from_ref(&named), "gp").is_empty());
}

#[test]
fn tiers_rank_name_then_text_then_fuzzy() {
    let sessions = [
        S {
            id: "fuzzy",
            name: Some("p-a-r-s-e"),
            modified: 9,
            ..S::default()
        },
        s("text", 5, "the parser broke"),
        S {
            id: "name",
            name: Some("Fix parser"),
            modified: 1,
            ..S::default()
        },
    ];
    assert_eq!(rel(&sessions, "parse"), ["name", "text", "fuzzy"]);
    // Recent keeps newest first.
    assert_eq!(
        ranked(&sessions, "parse", MatchOrder::Recent),
        ["fuzzy", "text", "name"]
    );
    let q = Query::parse("parse").unwrap();
    let name = q.score(&sessions[2].fields()).unwrap();
    let want = fuzzy_match("parse", "fix parser").unwrap();
    assert!(close(name.pi_score, want));
    let fields = q
        .matched_fields(&PreparedText::new(&sessions[0].fields()))
        .unwrap();
    assert_eq!(
        fields,
        [MatchedField {
            field: Field::Name,
            fuzzy: true
        }]
    );
}

#[test]
fn ties_go_to_the_most_recent() {
    let sessions = [s("older", 1, "brave"), s("newer", 3, "brave")];
    assert_eq!(rel(&sessions, "brave"), ["newer", "older"]);
}

#[test]
fn token_scores_add_up() {
    let named = S {
        id: "x",
        name: Some("alpha"),
        text: "beta",
        ..S::default()
    };
    let q = Query::parse("alpha beta").unwrap();
    let sc = q.score(&named.fields()).unwrap();
    let want = (0.0 * 1e6 + fuzzy_match("alpha", "alpha").unwrap()) + (1e6 + 0.0);
    assert_eq!(sc.pi_score, 0.0 + want);
    assert!(!sc.tool_only);
}

#[test]
fn phrases_are_literal_per_field_with_whitespace_runs() {
    let sessions = [
        s("a", 1, "node\n\n   cve was discussed"),
        s("b", 2, "node something cve"),
    ];
    assert_eq!(rel(&sessions, r#""node cve""#), ["a"]);
    let named = S {
        id: "n",
        name: Some("Node  CVE triage"),
        ..S::default()
    };
    let sc = Query::parse(r#""node cve""#)
        .unwrap()
        .score(&named.fields())
        .unwrap();
    assert!(close(
        sc.pi_score,
        fuzzy_match("node cve", "node cve triage").unwrap()
    ));
}

#[test]
fn regex_checks_name_then_other_fields() {
    let sessions = [
        s("a", 2, "Brave is great"),
        s("b", 3, "bravery is not the same"),
        S {
            id: "c",
            name: Some("BRAVE"),
            modified: 1,
            ..S::default()
        },
    ];
    assert_eq!(rel(&sessions, r"re:\bbrave\b"), ["c", "a"]);
    assert!(rel(&sessions, "re:(").is_empty());
}

#[test]
fn id_and_cwd_are_literal() {
    let sessions = [S {
        id: "0197a2b3-aaaa",
        cwd: "/srv/payments",
        ..S::default()
    }];
    assert_eq!(rel(&sessions, "a2b3"), ["0197a2b3-aaaa"]);
    assert_eq!(rel(&sessions, "payments"), ["0197a2b3-aaaa"]);
    // Fuzzy in the cwd, never in the id.
    assert_eq!(rel(&sessions, "srvpay"), ["0197a2b3-aaaa"]);
    assert!(rel(&sessions, "0197aaaa").is_empty());
}

#[test]
fn tool_hits_rank_after_everything_pi_lists() {
    let sessions = [
        S {
            id: "tool",
            modified: 9,
            tools: "bash cargo publish --dry-run\nread src/auth.rs",
            ..S::default()
        },
        s("text", 1, "we should cargo publish soon"),
        S {
            id: "fuzzy",
            name: Some("c-a-r-g-o p"),
            modified: 2,
            ..S::default()
        },
    ];
    assert_eq!(rel(&sessions, "cargo"), ["text", "fuzzy", "tool"]);
    assert_eq!(rel(&sessions, "src/auth.rs"), ["tool"]);
    assert_eq!(rel(&sessions, r#""cargo publish""#), ["text", "tool"]);
    assert_eq!(rel(&sessions, "re:auth\\.rs"), ["tool"]);
    let q = Query::parse("src/auth.rs").unwrap();
    let sc = q.score(&sessions[0].fields()).unwrap();
    assert!(sc.tool_only);
}

#[test]
fn cmp_rank_orders_pi_matches_then_score() {
    let s = |tool_only, pi_score| Score {
        fuzzy_tokens: 0,
        pi_score,
        tool_only,
    };
    use std::cmp::Ordering;
    assert_eq!(s(false, 5e6).cmp_rank(&s(true, 0.0)), Ordering::Less);
    assert_eq!(s(false, -5.0).cmp_rank(&s(false, 2.0)), Ordering::Less);
    assert_eq!(s(false, 0.0).cmp_rank(&s(false, -0.0)), Ordering::Equal);
}

fn marked(q: &str, shown: &str) -> Vec<String> {
    let q = Query::parse(q).unwrap();
    q.highlight(shown)
        .into_iter()
        .map(|r| shown[r].to_owned())
        .collect()
}

#[test]
fn highlight_ranges() {
    assert_eq!(marked("foo", "a foo and FOO"), ["foo", "FOO"]);
    assert_eq!(marked("fb", "foo bar"), ["f", "b"]);
    assert!(marked("zzz", "foo").is_empty());
    assert_eq!(
        marked(r#""Node  CVE""#, "a node\n cve and NODE CVE"),
        ["node\n cve", "NODE CVE"]
    );
    assert_eq!(marked("re:b+", "abbcb"), ["bb", "b"]);
    assert_eq!(marked("ÉTÉ", "un été"), ["été"]);
    assert!(marked("", "abc").is_empty());
}

#[test]
fn snippets_keep_the_hit_range() {
    let text = format!("{}needle{}", "x".repeat(50), "\ny".repeat(100));
    let (snip, r) = snippet_around(&text, 50..56);
    assert_eq!(&snip[r.clone()], "needle");
    assert!(snip.starts_with('…') && snip.ends_with('…'));
    assert!(!snip.contains('\n'));
    let (snip, r) = snippet_around("a needle", 2..8);
    assert_eq!((snip.as_str(), r), ("a needle", 2..8));
    let (snip, r) = snippet_around("ééé needle ü", 7..13);
    assert_eq!(&snip[r], "needle");
}

#[test]
fn find_all_is_case_insensitive_in_any_script() {
    let q = Query::parse(r#"needle "big  hay""#).unwrap();
    let text = "A NEEDLE in a Big\nHay, needle";
    let found: Vec<&str> = explain::find_all(&q, text)
        .into_iter()
        .map(|r| &text[r])
        .collect();
    assert_eq!(found, ["NEEDLE", "Big\nHay", "needle"]);
    let text = "Ünïcode NEEDLE";
    let found: Vec<&str> = explain::find_all(&q, text)
        .into_iter()
        .map(|r| &text[r])
        .collect();
    assert_eq!(found, ["NEEDLE"]);
}

#[test]
fn tool_call_text_names_what_it_touched() {
    let args = serde_json::json!({"command": "cargo publish", "timeout": 5});
    assert_eq!(tool_call_text("bash", &args), "bash cargo publish");
    let args = serde_json::json!({"path": "src/auth.rs", "content": "secret"});
    assert_eq!(tool_call_text("write", &args), "write src/auth.rs");
}

#[test]
fn a_tool_call_line_skips_empty_values_replaces_nuls_and_is_allocated_once() {
    let long = "x".repeat(5000);
    let line = tool_call_line("bash", [Some(&long), Some(""), None, Some("ls")]);
    assert_eq!(line, format!("bash {long} ls"));
    // Sized up front (a cold listing builds one per tool call): grown push by push, the short
    // value after the long one would double the capacity to ~10 KB.
    assert!(line.capacity() < line.len() + 64, "{}", line.capacity());
    assert_eq!(
        tool_call_line("a\0b", [Some("c\0"), None, None, None]),
        "a b c "
    );
    assert_eq!(tool_call_line("", [None; 4]), "");
}

#[test]
fn rows_mark_scattered_characters_only_for_tokens_that_matched_fuzzily() {
    let fields = SearchFields {
        id: "0190",
        name: None,
        summary: None,
        text: "we fixed the parser",
        cwd: "/home/u/code/app",
        tools: "",
    };
    // `cdap` is nowhere literally: it matched as a subsequence of the cwd.
    let q = Query::parse("cdap").unwrap();
    let sc = q.score(&fields).unwrap();
    assert_eq!(sc.fuzzy_tokens, 1);
    let cwd = "~/code/app";
    let marked: String = q
        .highlight_for(cwd, Some(&sc))
        .into_iter()
        .map(|r| &cwd[r])
        .collect();
    assert_eq!(marked, "cdap");
    // `parser` matched literally in the messages: marked where it is literal, never as
    // scattered letters.
    let q = Query::parse("cap parser").unwrap();
    let sc = q.score(&fields).unwrap();
    assert_eq!(
        sc.fuzzy_tokens, 0b01,
        "cap fuzzy in the cwd, parser literal"
    );
    let shown = "we fixed the parser";
    let marked: Vec<&str> = q
        .highlight_for(shown, Some(&sc))
        .into_iter()
        .map(|r| &shown[r])
        .collect();
    assert_eq!(marked, ["parser"]);
    let marked = q.highlight_for("p-a-r-s-e-r", Some(&sc));
    assert!(marked.is_empty(), "{marked:?}");
    // Without a score (nothing known), only literal hits are marked.
    assert!(
        Query::parse("cdap")
            .unwrap()
            .highlight_for(cwd, None)
            .is_empty()
    );
}
