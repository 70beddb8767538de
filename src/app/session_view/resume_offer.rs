//! `r` on an entry that is not where the session resumes: offer to check it out first (one
//! appended line, as `c` writes), then resume there. On the leaf (or where a check-out would
//! change nothing) `r` resumes at once, as before. With `--print`, where `r` prints the
//! session for a script instead of resuming, the offer checks out and then prints.

use super::state::SessionViewState;
use super::types::{Mode, ResumeOffer, ViewEffect};
use crate::app::keymap::Action;

fn resume_now(state: &SessionViewState) -> ViewEffect {
    ViewEffect::Resume {
        path: state.path.clone(),
        entry_id: state.selected_id().map(str::to_owned),
        dialect: state.dialect,
    }
}

/// `r`: resume, or first ask whether to check the selected entry out.
pub(super) fn on_resume(state: &mut SessionViewState) -> Vec<ViewEffect> {
    let Some(target) = state.nav.selected_entry() else {
        return vec![resume_now(state)];
    };
    let resumes_after = state.checkout_resumes_after(target);
    let leaf = state.effective_leaf();
    if resumes_after == leaf {
        return vec![resume_now(state)];
    }
    state.mode = Mode::ConfirmResume(ResumeOffer {
        target,
        resumes_after,
        leaf,
    });
    Vec::new()
}

/// A key in the offer: yes writes the check-out (the resume follows once it is written, see
/// [`after_checkout`]); no leaves everything as it was.
pub(super) fn offer_key(
    state: &mut SessionViewState,
    offer: ResumeOffer,
    action: Option<Action>,
) -> Vec<ViewEffect> {
    match action {
        Some(Action::Yes) => {
            let Some(target_id) = state.session.entry(offer.target).map(|e| e.id.clone()) else {
                return Vec::new();
            };
            state.resume_after_checkout = true;
            let then = if state.resume_prints {
                "printing"
            } else {
                "resuming"
            };
            state.set_status(format!("Checking out, then {then}…"), false);
            vec![ViewEffect::Checkout {
                path: state.path.clone(),
                target_id,
            }]
        }
        Some(Action::No) => {
            let not = if state.resume_prints {
                "Nothing printed"
            } else {
                "Not resumed"
            };
            state.set_status(format!("{not}; nothing written"), false);
            Vec::new()
        }
        _ => {
            state.mode = Mode::ConfirmResume(offer);
            Vec::new()
        }
    }
}

/// A check-out was written (`ok`): the resume it was asked for, if it was asked for by the
/// offer. A failed check-out resumes nothing (the status says why).
pub(super) fn after_checkout(state: &mut SessionViewState, ok: bool) -> Option<ViewEffect> {
    let wanted = std::mem::take(&mut state.resume_after_checkout);
    (wanted && ok).then(|| resume_now(state))
}
