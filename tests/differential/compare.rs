//! One fixture file compared field by field: listing, tree, context and compaction boundaries.

use super::*;

/// Compares one file's per-file oracle with grove's session.
pub fn compare_file(
    diffs: &mut Diffs,
    name: &str,
    oracle: &Value,
    session: &Session,
    dialect: Dialect,
) {
    let entries = session.entries();
    let ids = id_map(oracle, session);
    let id_of = |i: usize| entries[i].id.clone();

    // Entries: [id, parentId, type, role] in file order.
    let oracle_entries: Vec<(String, Option<String>, String, Option<String>)> = oracle["entries"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|e| {
                    (
                        map_id(&ids, e[0].as_str().unwrap_or("")),
                        e[1].as_str().map(|p| map_id(&ids, p)),
                        e[2].as_str().unwrap_or("").to_owned(),
                        e.get(3).and_then(Value::as_str).map(str::to_owned),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    let grove_entries: Vec<(String, Option<String>, String, Option<String>)> = entries
        .iter()
        .map(|e| {
            (
                e.id.clone(),
                // The oracle writes a missing parentId as "<undefined>" (null stays null).
                match e.raw().get("parentId") {
                    None => Some("<undefined>".to_owned()),
                    Some(_) => e.parent_id.clone(),
                },
                e.type_name().to_owned(),
                e.role().map(str::to_owned),
            )
        })
        .collect();
    diffs.check(name, "entries", oracle_entries, grove_entries);

    diffs.check(
        name,
        "leaf",
        oracle["leafId"].as_str().map(|s| map_id(&ids, s)),
        session.leaf_id().map(str::to_owned),
    );
    diffs.check(
        name,
        "name",
        opt_str(&oracle["sessionName"]),
        session.tree.name.name.clone(),
    );
    if let Some(state) = oracle.get("sessionNameState") {
        diffs.check(
            name,
            "hasName",
            state["hasName"].as_bool().unwrap_or(false),
            session.tree.name.has_name,
        );
    }
    let oracle_labels: BTreeMap<String, String> = oracle["labels"]
        .as_object()
        .map(|m| {
            m.iter()
                .map(|(k, v)| (map_id(&ids, k), v.as_str().unwrap_or("").to_owned()))
                .collect()
        })
        .unwrap_or_default();
    let grove_labels: BTreeMap<String, String> = session
        .tree
        .labels
        .iter()
        .map(|(k, v)| (k.clone(), v.text.clone()))
        .collect();
    diffs.check(name, "labels", oracle_labels, grove_labels);
    // Label times as the tree reports them.
    if let Some(tree_labels) = oracle["tree"]["labels"].as_object() {
        let o: BTreeMap<String, String> = tree_labels
            .iter()
            .filter_map(|(k, v)| {
                Some((
                    map_id(&ids, k),
                    v.get("labelTimestamp")?.as_str()?.to_owned(),
                ))
            })
            .collect();
        let g: BTreeMap<String, String> = session
            .tree
            .labels
            .iter()
            .filter(|(k, _)| o.contains_key(*k))
            .map(|(k, v)| (k.clone(), v.timestamp.clone()))
            .collect();
        diffs.check(name, "labelTimestamps", o, g);
    }

    // Tree: roots in file order, children in the library's order.
    diffs.check(
        name,
        "tree.roots",
        map_ids(&ids, &oracle["tree"]["roots"]),
        session.tree.roots.iter().map(|&i| id_of(i)).collect(),
    );
    let oracle_children: BTreeMap<String, Vec<String>> = oracle["tree"]["children"]
        .as_object()
        .map(|m| {
            m.iter()
                .map(|(k, v)| (map_id(&ids, k), map_ids(&ids, v)))
                .filter(|(_, v)| !v.is_empty())
                .collect()
        })
        .unwrap_or_default();
    let grove_children: BTreeMap<String, Vec<String>> = session
        .tree
        .children
        .iter()
        .enumerate()
        .filter(|(_, c)| !c.is_empty())
        .map(|(i, c)| (id_of(i), c.iter().map(|&j| id_of(j)).collect()))
        .collect();
    diffs.check(name, "tree.children", oracle_children, grove_children);

    let leaf = session.tree.leaf;
    let path: Vec<String> = leaf
        .map(|l| session.tree.path_to(l).into_iter().map(id_of).collect())
        .unwrap_or_default();
    diffs.check(name, "branch", map_ids(&ids, &oracle["branch"]), path);

    let ctx = build_context(session, LeafChoice::Current, dialect);
    diffs.check(
        name,
        "contextEntries",
        map_ids(&ids, &oracle["contextEntries"]),
        ctx.entries.iter().map(|&i| id_of(i)).collect(),
    );
    let oc = &oracle["context"];
    let oracle_model = oc["model"]
        .as_object()
        .map(|m| (opt_str(&m["provider"]), opt_str(&m["modelId"])));
    let grove_model = ctx
        .model
        .as_ref()
        .map(|m| (Some(m.provider.clone()), Some(m.model_id.clone())));
    diffs.check(name, "context.model", oracle_model, grove_model);
    diffs.check(
        name,
        "context.thinkingLevel",
        opt_str(&oc["thinkingLevel"]),
        Some(ctx.thinking_level.clone()),
    );
    let oracle_messages: Vec<(String, String, String)> = oc["messages"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|m| {
                    (
                        m["role"].as_str().unwrap_or("").to_owned(),
                        map_id(&ids, m["sourceEntryId"].as_str().unwrap_or("")),
                        m["sha"].as_str().unwrap_or("").to_owned(),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    let grove_messages: Vec<(String, String, String)> = ctx
        .messages
        .iter()
        .map(|m| {
            let json = serde_json::to_string(&m.message).unwrap_or_default();
            (
                m.role().to_owned(),
                id_of(m.entry_index),
                sha16(json.as_bytes()),
            )
        })
        .collect();
    // Messages are matched by source entry (and occurrence: a pi compaction gives two), so one
    // message grove deliberately leaves out is one difference, not a shift of all that follow.
    let keyed = |v: &[(String, String, String)]| -> Vec<(String, (String, String))> {
        let mut seen: HashMap<&str, usize> = HashMap::new();
        v.iter()
            .map(|(role, src, sha)| {
                let n = seen.entry(src.as_str()).or_insert(0);
                *n += 1;
                let key = if *n == 1 {
                    src.clone()
                } else {
                    format!("{src}#{n}")
                };
                (key, (role.clone(), sha.clone()))
            })
            .collect()
    };
    let o = keyed(&oracle_messages);
    let g = keyed(&grove_messages);
    let om: HashMap<&str, &(String, String)> = o.iter().map(|(k, v)| (k.as_str(), v)).collect();
    let gm: HashMap<&str, &(String, String)> = g.iter().map(|(k, v)| (k.as_str(), v)).collect();
    let keys: BTreeSet<&str> = om.keys().chain(gm.keys()).copied().collect();
    for k in keys {
        diffs.check(
            name,
            &format!("context.messages[{k}]"),
            om.get(k).copied(),
            gm.get(k).copied(),
        );
    }
    let common = |v: &[(String, (String, String))],
                  other: &HashMap<&str, &(String, String)>|
     -> Vec<String> {
        v.iter()
            .map(|(k, _)| k.clone())
            .filter(|k| other.contains_key(k.as_str()))
            .collect()
    };
    diffs.check(
        name,
        "context.messages.order",
        common(&o, &gm),
        common(&g, &om),
    );
    compare_boundaries(diffs, name, oc, &ctx);
}

/// Atomic's verbatim compaction boundary: its text blocks joined (images stay separate blocks).
/// Only Atomic's oracle records `boundaryText`.
fn compare_boundaries(diffs: &mut Diffs, name: &str, oc: &Value, ctx: &SessionContext) {
    for (i, (o, g)) in oc["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .zip(&ctx.messages)
        .enumerate()
    {
        let Some(text) = o.get("boundaryText").and_then(Value::as_str) else {
            continue;
        };
        let blocks: Vec<String> = g.message["content"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|b| b["type"].as_str().unwrap_or("").to_owned())
            .collect();
        let grove_text: String = g.message["content"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|b| b["text"].as_str())
            .collect();
        diffs.check(
            name,
            &format!("context.messages[{i}].boundaryText"),
            text.to_owned(),
            grove_text,
        );
        diffs.check(
            name,
            &format!("context.messages[{i}].blocks"),
            map_strs(&o["blocks"]),
            blocks,
        );
    }
}
