//! How a session's last turn ended, from its last assistant message's `stopReason`.

/// The last turn's outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Outcome {
    /// `stop`: the model finished its answer.
    Done,
    /// `toolUse`: the last message asked for tools and no answer followed (the agent stopped
    /// or is still working).
    Unfinished,
    /// `length`: cut off at the output limit.
    CutOff,
    /// `aborted`: the user interrupted it.
    Aborted,
    /// `error`: the provider failed.
    Error,
}

impl Outcome {
    /// `None` for a session without assistant messages or an unknown reason.
    pub fn of(stop_reason: Option<&str>) -> Option<Outcome> {
        Some(match stop_reason? {
            "stop" => Outcome::Done,
            "toolUse" => Outcome::Unfinished,
            "length" => Outcome::CutOff,
            "aborted" => Outcome::Aborted,
            "error" => Outcome::Error,
            _ => return None,
        })
    }

    /// The word shown and printed (`grove list --json`'s `outcome`).
    pub fn label(self) -> &'static str {
        match self {
            Outcome::Done => "done",
            Outcome::Unfinished => "unfinished",
            Outcome::CutOff => "cut off",
            Outcome::Aborted => "aborted",
            Outcome::Error => "error",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_stop_reason_of_the_format_has_an_outcome() {
        let got: Vec<_> = ["stop", "toolUse", "length", "aborted", "error", "pending"]
            .iter()
            .map(|r| Outcome::of(Some(r)).map(Outcome::label))
            .collect();
        assert_eq!(
            got,
            [
                Some("done"),
                Some("unfinished"),
                Some("cut off"),
                Some("aborted"),
                Some("error"),
                None
            ]
        );
        assert_eq!(Outcome::of(None), None);
    }
}
