//! `gambit seeks`: the open challenges as a table a person reads.

use super::clock::time_control_name;
use crate::protocol::SeekView;

/// One line per seek, under a header; or a line saying there are none.
pub fn table(seeks: &[SeekView]) -> String {
    if seeks.is_empty() {
        return "No open seeks. Post one with: gambit play --seek [--time 5+3]\n".into();
    }
    let mut out = format!("{:<10} {:<24} {:<10} {:<8} {}\n", "SEEK", "NAME", "VARIANT", "TIME", "COLOUR");
    for seek in seeks {
        let variant = crate::chess::Variant::from(seek.variant).name();
        let time = seek.clock.map_or_else(|| "untimed".to_string(), time_control_name);
        // The creator's colour: the one who accepts gets the other.
        let colour = seek.color.map_or("random", |c| c.name());
        out.push_str(&format!("{:<10} {:<24} {:<10} {:<8} {colour}\n", seek.seek, seek.name, variant, time));
    }
    out.push_str("Accept one with: gambit play --accept SEEK\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::Color;
    use crate::protocol::{ClockSpec, RulesSpec, VariantName};

    #[test]
    fn seeks_read_as_a_table() {
        assert!(table(&[]).starts_with("No open seeks."));
        let seek = SeekView {
            seek: "sabcdefgh".into(),
            name: "Alice".into(),
            variant: VariantName::Standard,
            fen: None,
            rules: RulesSpec::default(),
            clock: Some(ClockSpec { initial_ms: 300_000, increment_ms: 3_000 }),
            color: Some(Color::White),
            rated: false,
        };
        let text = table(&[seek]);
        let line = text.lines().nth(1).expect("a line");
        assert!(line.starts_with("sabcdefgh  Alice") && line.contains("5+3") && line.ends_with("white"), "{text}");
    }
}
