//! The picker's search carried into the session view (the data; what the view does with it
//! is [`super::hits`]).

use crate::app::search_hits::SessionHits;

/// The picker's hits in the view, and what the transcript search was seeded with for the hit
/// shown: a transcript or tree search of the user's own ends the stepping through them.
#[derive(Debug, Clone)]
pub struct SeededHits {
    pub(crate) hits: SessionHits,
    pub(crate) seed: Option<String>,
}
