//! Highlighted code bodies skip the sanitizer and the inliner: they are
//! ours (escaped text, `<span style>`, styled `<br>`) and hold most of a
//! technical article's elements, so passing them through both would more
//! than double the render time. The Markdown writer leaves a slot for each
//! body (a marker of private-use characters around a per-render random
//! nonce, which no input can guess), and [`CodeSlots::fill`] puts the bodies
//! back into the finished HTML.

use std::cell::RefCell;

/// U+F8FF, a private-use character, brackets each marker.
const EDGE: char = '\u{f8ff}';

/// The code bodies of one render.
pub struct CodeSlots {
    nonce: String,
    bodies: RefCell<Vec<String>>,
}

impl Default for CodeSlots {
    fn default() -> Self {
        CodeSlots { nonce: format!("{:016x}", rand::random::<u64>()), bodies: RefCell::new(Vec::new()) }
    }
}

impl CodeSlots {
    /// Keeps `body` and returns the marker to write in its place.
    pub fn slot(&self, body: String) -> String {
        let mut bodies = self.bodies.borrow_mut();
        bodies.push(body);
        format!("{EDGE}{}-{}{EDGE}", self.nonce, bodies.len() - 1)
    }

    /// `html` with every marker replaced by its body.
    pub fn fill(&self, html: &str) -> String {
        let bodies = self.bodies.borrow();
        if bodies.is_empty() {
            return html.to_owned();
        }
        let prefix = format!("{EDGE}{}-", self.nonce);
        let mut out = String::with_capacity(html.len() + bodies.iter().map(String::len).sum::<usize>());
        let mut rest = html;
        while let Some(at) = rest.find(&prefix) {
            let after = &rest[at + prefix.len()..];
            let Some(end) = after.find(EDGE) else { break };
            match after[..end].parse::<usize>().ok().and_then(|i| bodies.get(i)) {
                Some(body) => {
                    out.push_str(&rest[..at]);
                    out.push_str(body);
                }
                None => out.push_str(&rest[..at + prefix.len() + end + EDGE.len_utf8()]),
            }
            rest = &after[end + EDGE.len_utf8()..];
        }
        out.push_str(rest);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies_go_back_in_order_and_foreign_markers_stay() {
        let slots = CodeSlots::default();
        let a = slot_html(&slots, "<span style=\"color:#f00\">a</span>");
        let b = slot_html(&slots, "b<br>");
        let forged = format!("{EDGE}0000000000000000-0{EDGE}");
        let html = format!("<code>{a}</code>{forged}<code>{b}</code>");
        assert_eq!(
            slots.fill(&html),
            format!("<code><span style=\"color:#f00\">a</span></code>{forged}<code>b<br></code>")
        );
    }

    fn slot_html(slots: &CodeSlots, body: &str) -> String {
        slots.slot(body.to_owned())
    }
}
