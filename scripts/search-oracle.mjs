// Writes what pi 1.6.0's own /resume search lists for a set of queries over a session folder:
// the oracle that tests/search_pi160.rs compares grove's search with.
//
//   cp -r ../shared/pi-corpus /tmp/pi-corpus-x && (cd /tmp/pi-corpus-x && npm ci && ./setup-node24.sh)
//   /tmp/node24/bin/node scripts/search-oracle.mjs --pi /tmp/pi-corpus-x \
//       --agent-dir tests/fixtures/search-oracle/agent --out tests/fixtures/search-oracle/oracle.json
//
// Sessions are listed by pi's SessionManager.listAll() (PI_CODING_AGENT_DIR = --agent-dir) and
// searched by filterAndSortSessions from dist/modes/interactive/components/
// session-selector-search.js, the function pi's selector calls. For each query and sort the
// oracle holds the matching sessions in pi's order, with pi's score and `modified` (ms) so a
// comparison can tell ties apart (`sessions` holds `[id, score, modified]`). --queries FILE (one query a line) replaces the built-in list.
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";

const { values: args } = parseArgs({
  options: {
    pi: { type: "string" },
    "agent-dir": { type: "string" },
    out: { type: "string" },
    queries: { type: "string" },
  },
});
if (!args.pi || !args["agent-dir"] || !args.out) {
  console.error("usage: node scripts/search-oracle.mjs --pi PI_CORPUS_DIR --agent-dir DIR --out FILE [--queries FILE]");
  process.exit(2);
}
const agentDir = resolve(args["agent-dir"]);
process.env.PI_CODING_AGENT_DIR = agentDir;
const pkgDir = join(resolve(args.pi), "node_modules/@earendil-works/pi-coding-agent");
const pkg = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
const load = (p) => import(pathToFileURL(join(pkgDir, p)).href);
const { SessionManager } = await load("dist/core/session-manager.js");
const search = await load("dist/modes/interactive/components/session-selector-search.js");

const BUILT_IN = [
  // words in the message text
  "screenshot", "rebase", "parser", "widget", "migration", "cargo", "npm", "E0308", "fetch",
  "SessionManager", "日本語", "ÜNÏCÖDÉ", "quotes", "expected", "json", "x", "e",
  // words in names, cwds and ids
  "padded", "name", "payments", "alice", "pi-browser", "worktrees", "my.project", "Notes",
  "data-pipeline", "terraform", "0197", "756e-8318", "8318-8", "jsonl",
  // fuzzy fragments (only the name or the cwd can match them)
  "pibrw", "pymnts", "k8sop", "gmeng", "dtfls", "mlexp", "xyzzy", "pdn", "srvdp", "hmalc",
  "tmpscr", "a1", "ts1",
  // phrases
  '"mismatched types"', '"await fetch"', '"pub id: string"', '"list › sorts"', '"padded name"',
  '"tabbed columns"', '"code/pi-browser"', '"  Expected:   3"', '"My Notes"', '"no such phrase here"',
  // regexes
  "re:E0\\d+", "re:^fix", "re:padded", "re:payments-service$", "re:\\bnpm\\s+err", "re:(", "re:",
  "re:0197[0-9a-f]{4}-",
  // mixed
  "rebase parser", 'cargo "mismatched types"', "alice widget", "pibrw rebase", '"padded name" alice',
  'unclosed "quote', "pymnts parser json", "re: rebase",
  // text pi does not search (thinking, tool calls): grove finds some in tool calls, after pi's
  "session_info", "ci.yml", "HEAD~1", "pytest", "thinkingSignature", "git status",
];
const queries = args.queries
  ? readFileSync(args.queries, "utf8").split("\n").filter((q) => q.length > 0)
  : BUILT_IN;

const sessions = await SessionManager.listAll();
// pi reads session files with Node's readline, which also breaks lines at U+2028 and U+2029, so
// it drops a message holding one (grove does not: docs/differences.md). Their ids let the
// comparison allow grove to find such a session where pi cannot.
const readlineSplit = sessions
  .filter((s) => /[\u2028\u2029]/.test(readFileSync(s.path, "utf8")))
  .map((s) => s.id);
const results = [];
for (const query of queries) {
  const parsed = search.parseSearchQuery(query);
  for (const sort of ["relevance", "recent"]) {
    const listed = search.filterAndSortSessions(sessions, query, sort, "all");
    results.push({
      query,
      sort,
      error: parsed.error ?? null,
      // [id, pi's score, modified ms]
      sessions: listed.map((s) => [s.id, search.matchSession(s, parsed).score, s.modified.getTime()]),
    });
  }
}
const oracle = {
  generator: { package: pkg.name, version: pkg.version, node: process.version },
  sessionCount: sessions.length,
  results,
};
// One result a line: small, and a diff shows which query changed.
const lines = results.map((r) => "  " + JSON.stringify(r));
const head = JSON.stringify({
  generator: oracle.generator,
  sessionCount: oracle.sessionCount,
  readlineSplit,
});
writeFileSync(args.out, `${head.slice(0, -1)},"results":[\n${lines.join(",\n")}\n]}\n`);
console.error(`${sessions.length} sessions, ${results.length} query/sort pairs -> ${args.out}`);
