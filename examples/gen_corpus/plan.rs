//! Plan: one cheap sequential pass decides every session's identity, then files are written in
//! parallel.

use super::*;

#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Agent {
    Pi,
    Atomic,
}

impl Agent {
    pub(crate) fn dir(self) -> &'static str {
        match self {
            Agent::Pi => "pi-agent",
            Agent::Atomic => "atomic-agent",
        }
    }
}

pub(crate) struct Project {
    pub(crate) cwd: String,
    pub(crate) folder: String,
    pub(crate) lang: Lang,
}

pub(crate) struct Plan {
    pub(crate) agent: Agent,
    pub(crate) project: usize,
    pub(crate) start_ms: i64,
    pub(crate) uuid: String,
    /// Target number of entries.
    pub(crate) entries: usize,
    /// Median tool output size in bytes for this session.
    pub(crate) output_median: f64,
    pub(crate) fork_of: Option<usize>,
    pub(crate) workflow: Option<(String, String, String)>,
    pub(crate) branchy: bool,
    pub(crate) stream: u64,
}

impl Plan {
    pub(crate) fn file_name(&self) -> String {
        format!(
            "{}_{}.jsonl",
            iso(self.start_ms).replace([':', '.'], "-"),
            self.uuid
        )
    }

    pub(crate) fn path(&self, out: &Path, projects: &[Project]) -> PathBuf {
        out.join(self.agent.dir())
            .join("sessions")
            .join(&projects[self.project].folder)
            .join(self.file_name())
    }
}

pub(crate) fn make_projects(rng: &mut Rng, n: usize) -> Vec<Project> {
    let mut seen = HashSet::new();
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let a = rng.pick(PROJECT_WORDS);
        let b = rng.pick(PROJECT_WORDS);
        let name = if rng.chance(0.5) {
            (*a).to_string()
        } else {
            format!("{a}-{b}")
        };
        let cwd = match rng.below(10) {
            0..=5 => format!("/home/dev/code/{name}"),
            6..=7 => format!("/home/dev/work/{}/{name}", rng.pick(ORGS)),
            8 => format!("/Users/dev/src/{name}"),
            _ => format!("/home/dev/code/{name}/packages/{}", rng.pick(PROJECT_WORDS)),
        };
        if !seen.insert(cwd.clone()) {
            continue;
        }
        let folder = format!("--{}--", cwd.trim_start_matches('/').replace('/', "-"));
        out.push(Project {
            cwd,
            folder,
            lang: *rng.pick(LANGS),
        });
    }
    out
}

pub(crate) fn make_plans(rng: &mut Rng, n: usize, projects: &[Project]) -> Vec<Plan> {
    let mut plans: Vec<Plan> = Vec::with_capacity(n);
    // A few "hot" projects get most sessions, like real usage.
    let weights: Vec<f64> = (0..projects.len())
        .map(|i| 1.0 / (1.0 + i as f64).powf(0.8))
        .collect();
    let total: f64 = weights.iter().sum();
    for i in 0..n {
        let agent = if rng.chance(0.15) {
            Agent::Atomic
        } else {
            Agent::Pi
        };
        let mut x = rng.unit() * total;
        let mut project = 0;
        for (j, w) in weights.iter().enumerate() {
            if x < *w {
                project = j;
                break;
            }
            x -= w;
        }
        let huge = rng.chance(0.03);
        let entries = if huge {
            rng.range(600, 2200) as usize
        } else {
            rng.lognormal(88.0, 0.75).clamp(6.0, 1200.0) as usize
        };
        let output_median = if huge {
            rng.lognormal(2600.0, 0.3)
        } else {
            rng.lognormal(1400.0, 0.5)
        };
        let mut start_ms = BASE_MS + rng.below((SPAN_DAYS * DAY_MS) as u64) as i64;
        let mut fork_of = None;
        if i > 10 && rng.chance(0.04) {
            // Fork an earlier session of the same agent (usually the same project).
            for _ in 0..8 {
                let p = rng.below(i as u64) as usize;
                if plans[p].agent == agent {
                    fork_of = Some(p);
                    break;
                }
            }
        }
        let mut project_final = project;
        if let Some(p) = fork_of {
            start_ms = plans[p].start_ms + rng.range(600_000, 3 * DAY_MS as u64) as i64;
            if rng.chance(0.8) {
                project_final = plans[p].project;
            }
        }
        let workflow = (agent == Agent::Atomic && rng.chance(0.08)).then(|| {
            let stage = rng
                .pick(&["plan", "implement", "review", "test", "docs"])
                .to_string();
            (
                format!("run-{}", rng.hex(8)),
                format!("stage-{stage}"),
                stage,
            )
        });
        let uuid = rng.uuid_v7(start_ms);
        plans.push(Plan {
            agent,
            project: project_final,
            start_ms,
            uuid,
            entries,
            output_median,
            fork_of,
            workflow,
            branchy: rng.chance(0.12),
            stream: i as u64,
        });
    }
    plans
}
