//! Lines of text tagged with what they mean (a [`Tone`]), built in `app` where their number
//! is needed (scrolling) and given styles by the views.

/// What a piece of text is; the views map each tone to a theme style.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tone {
    Plain,
    Bold,
    Muted,
    Accent,
    AccentBold,
    Ok,
    OkBold,
    MutedBold,
    Named,
    NamedBold,
    Warning,
    Error,
    ErrorBold,
    Border,
    /// Characters that matched the search query.
    Matched,
}

/// One line: its pieces, each with a tone.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TextLine {
    pub spans: Vec<(Tone, String)>,
}

impl TextLine {
    pub fn new(spans: Vec<(Tone, String)>) -> Self {
        TextLine { spans }
    }

    /// A line of one piece.
    pub fn one(tone: Tone, text: impl Into<String>) -> Self {
        TextLine {
            spans: vec![(tone, text.into())],
        }
    }

    pub(crate) fn blank() -> Self {
        TextLine::default()
    }

    /// Its width in columns.
    pub fn width(&self) -> usize {
        use unicode_width::UnicodeWidthStr;
        self.spans.iter().map(|(_, s)| s.width()).sum()
    }
}
