//! The network file's format: the first layer's weights and biases, then each output bucket's
//! weights and bias, all little-endian; and, after them, a trailer naming the output buckets,
//! the activation, the mirror and the first layer's width where the file has any of them
//! (scripts/train_network.py writes it). Checked at build time for the built-in files ([`shape_of`] is a `const fn`)
//! and on loading for one named by `GAMBIT_NET`.

use super::Network;

/// How a hidden unit's sum becomes what the output weighs: clipped to 0..=1 (the first
/// networks), or clipped and then squared, which lets a unit say more about a large sum than a
/// small one at the same cost in the first layer.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Activation {
    Clipped,
    Squared,
}

/// What a network file says of its shape beyond its size: output buckets, the activation, and
/// whether each view is mirrored by its king.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) struct Form {
    pub(super) buckets: usize,
    pub(super) activation: Activation,
    /// Each side's view turned a-file for h-file where its own king stands on the e- to h-file,
    /// so that the board as a view sees it always has its king on the a- to d-file: the rules
    /// are the same both ways (bar castling, which the inputs do not show), and the first layer
    /// learns each king side's positions from both sides' games.
    pub(super) mirrored: bool,
    /// The first layer's units in each view.
    pub(super) hidden: usize,
}

impl Form {
    /// The first networks': one bucket, clipped units, no mirror, 256 units.
    const FIRST: Form = Form { buckets: 1, activation: Activation::Clipped, mirrored: false, hidden: FIRST_HIDDEN };
}

/// The first layer's width in a file whose trailer does not name one.
const FIRST_HIDDEN: usize = 256;
/// The widest first layer a file may name, and what its width must be a multiple of (one
/// AVX2 vector of i16s, so that the sums' loops have no remainder).
const MAX_HIDDEN: usize = 2048;
const HIDDEN_STEP: usize = 16;

/// The most output buckets a network file may have.
const MAX_BUCKETS: usize = 16;
/// What ends a network file with output buckets or another activation than the first
/// networks' (one bucket, clipped units, and no trailer): these four bytes, then the bucket
/// count and the activation (0 clipped, 1 squared), each a little-endian u16.
const TRAILER: [u8; 4] = *b"GNN2";
/// What ends a network file whose views are mirrored by their kings: these four bytes, the
/// bucket count, the activation and the inputs (1: mirrored), each a little-endian u16. Only
/// standard chess's board, of eight files, is mirrored.
const MIRRORED_TRAILER: [u8; 4] = *b"GNN3";
/// What ends a network file whose first layer is not 256 units wide: these four bytes, the
/// bucket count, the activation, the inputs (0 as they are, 1 mirrored) and the width, each a
/// little-endian u16.
const WIDE_TRAILER: [u8; 4] = *b"GNN4";

/// The size of a network file for `kinds` kinds of piece, `buckets` output buckets and
/// `hidden` units, without its trailer.
const fn body_size(kinds: usize, buckets: usize, hidden: usize) -> usize {
    (2 * kinds * 64 * hidden + hidden + buckets * 2 * hidden) * 2 + 4 * buckets
}

/// The form of the network file `bytes` for `kinds` kinds of piece, or None when it is not
/// one. A `const fn`, so that the built-in files are checked as the binary is built.
pub(super) const fn shape_of(bytes: &[u8], kinds: usize) -> Option<Form> {
    if bytes.len() == body_size(kinds, 1, FIRST_HIDDEN) {
        return Some(Form::FIRST);
    }
    let n = bytes.len();
    // Each later trailer has one number more than the one before it.
    let (tag_at, inputs, hidden) = if n >= 12 && tag_is(bytes, n - 12, WIDE_TRAILER) {
        (n - 12, word(bytes, n - 4), word(bytes, n - 2))
    } else if n >= 10 && tag_is(bytes, n - 10, MIRRORED_TRAILER) {
        match word(bytes, n - 2) {
            1 => (n - 10, 1, FIRST_HIDDEN),
            _ => return None,
        }
    } else if n >= 8 && tag_is(bytes, n - 8, TRAILER) {
        (n - 8, 0, FIRST_HIDDEN)
    } else {
        return None;
    };
    let mirrored = match inputs {
        0 => false,
        1 if kinds == 6 => true,
        _ => return None,
    };
    let buckets = word(bytes, tag_at + 4);
    let activation = match word(bytes, tag_at + 6) {
        0 => Activation::Clipped,
        1 => Activation::Squared,
        _ => return None,
    };
    if buckets == 0
        || buckets > MAX_BUCKETS
        || hidden == 0
        || hidden > MAX_HIDDEN
        || hidden % HIDDEN_STEP != 0
        || tag_at != body_size(kinds, buckets, hidden)
    {
        return None;
    }
    Some(Form { buckets, activation, mirrored, hidden })
}

/// The little-endian u16 at `at` in `bytes`.
const fn word(bytes: &[u8], at: usize) -> usize {
    u16::from_le_bytes([bytes[at], bytes[at + 1]]) as usize
}

/// True if `bytes` holds `tag` at `at`.
const fn tag_is(bytes: &[u8], at: usize, tag: [u8; 4]) -> bool {
    bytes[at] == tag[0] && bytes[at + 1] == tag[1] && bytes[at + 2] == tag[2] && bytes[at + 3] == tag[3]
}

/// The network in the file `bytes`, for `kinds` kinds of piece and `H` units, or None when it
/// is not one (a file of another width is a network, but not one this build can use).
pub(super) fn parse<const H: usize>(bytes: &[u8], kinds: usize) -> Option<Network<H>> {
    let form = shape_of(bytes, kinds)?;
    (form.hidden == H).then(|| read(bytes, form, kinds))
}

/// The network in `bytes`, a file of the form `shape_of` found for `kinds` kinds of piece,
/// whose width is `H`.
pub(super) fn read<const H: usize>(bytes: &[u8], form: Form, kinds: usize) -> Network<H> {
    let Form { buckets, activation, mirrored, hidden } = form;
    debug_assert_eq!(hidden, H);
    let rows = 2 * kinds * 64;
    let mut words = bytes.chunks_exact(2).map(|b| i16::from_le_bytes([b[0], b[1]]));
    let mut next = || words.next().unwrap_or(0);
    let mut feature_weights = vec![[0; H]; rows].into_boxed_slice();
    for w in feature_weights.iter_mut().flatten() {
        *w = next();
    }
    let feature_bias = std::array::from_fn(|_| next());
    let mut output_weights = vec![[[0; H]; 2]; buckets].into_boxed_slice();
    for w in output_weights.iter_mut().flatten().flatten() {
        *w = next();
    }
    let body = body_size(kinds, buckets, H);
    let biases = &bytes[body - 4 * buckets..body];
    let output_bias = biases.chunks_exact(4).map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
    Network { feature_weights, feature_bias, output_weights, output_bias, activation, mirrored }
}

#[cfg(test)]
mod tests {
    use super::super::{bucket, QA, QB, SCALE};
    use super::*;

    const HIDDEN: usize = FIRST_HIDDEN;

    /// A network file for six kinds of piece whose first layer is its biases alone (every
    /// unit's sum `unit`), with `buckets` output buckets (bucket b weighs the side to move's
    /// units by b + 1 and the other side's by 0) and the trailer `trailer` if given (the
    /// mirrored and the wide ones with their further numbers appended by the caller).
    fn synthetic(unit: i16, buckets: usize, trailer: Option<(&[u8; 4], u16)>) -> Vec<u8> {
        synthetic_of(HIDDEN, unit, buckets, trailer)
    }

    /// [`synthetic`] with `hidden` units.
    fn synthetic_of(hidden: usize, unit: i16, buckets: usize, trailer: Option<(&[u8; 4], u16)>) -> Vec<u8> {
        let mut words = vec![0i16; 2 * 6 * 64 * hidden];
        words.extend(vec![unit; hidden]);
        for b in 0..buckets {
            words.extend(vec![b as i16 + 1; hidden]);
            words.extend(vec![0; hidden]);
        }
        let mut bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        bytes.extend((0..buckets).flat_map(|_| 0i32.to_le_bytes()));
        if let Some((tag, activation)) = trailer {
            bytes.extend(tag);
            bytes.extend((buckets as u16).to_le_bytes());
            bytes.extend(activation.to_le_bytes());
        }
        bytes
    }

    #[test]
    fn network_files_name_their_buckets_and_activation_or_are_refused() {
        let form = |buckets, activation, mirrored| Some(Form { buckets, activation, mirrored, hidden: HIDDEN });
        // The first networks' files: no trailer, one bucket, clipped units.
        assert_eq!(shape_of(&synthetic(128, 1, None), 6), Some(Form::FIRST));
        assert_eq!(shape_of(&synthetic(128, 8, Some((&TRAILER, 1))), 6), form(8, Activation::Squared, false));
        assert_eq!(shape_of(&synthetic(128, 8, Some((&TRAILER, 0))), 6), form(8, Activation::Clipped, false));
        let mirrored = |inputs: u16| {
            let mut bytes = synthetic(128, 8, Some((&MIRRORED_TRAILER, 1)));
            bytes.extend(inputs.to_le_bytes());
            bytes
        };
        assert_eq!(shape_of(&mirrored(1), 6), form(8, Activation::Squared, true));
        // Another variant's size, a wrong tag, an unknown activation or inputs, a bucket count
        // the body does not hold, a cut-off file, or a mirror of a board of seven files: not
        // networks.
        assert_eq!(shape_of(&synthetic(128, 1, None), 9), None);
        assert_eq!(shape_of(&synthetic(128, 8, Some((b"GNNX", 1))), 6), None);
        assert_eq!(shape_of(&synthetic(128, 8, Some((&MIRRORED_TRAILER, 1))), 6), None);
        assert_eq!(shape_of(&mirrored(0), 6), None);
        assert_eq!(shape_of(&mirrored(2), 6), None);
        assert_eq!(shape_of(&mirrored(1)[1..], 6), None);
        let body = 2 * 9 * 64 * HIDDEN * 2 + 2 * HIDDEN + 8 * 2 * HIDDEN * 2 + 8 * 4;
        let mut seven_files = vec![0u8; body];
        seven_files.extend(MIRRORED_TRAILER);
        seven_files.extend([8u16, 1, 1].iter().flat_map(|w| w.to_le_bytes()));
        assert_eq!(body, body_size(9, 8, HIDDEN));
        assert_eq!(shape_of(&seven_files, 9), None);
        assert_eq!(shape_of(&synthetic(128, 8, Some((&TRAILER, 2))), 6), None);
        let mut lying = synthetic(128, 8, Some((&TRAILER, 1)));
        let n = lying.len();
        lying[n - 4] = 7;
        assert_eq!(shape_of(&lying, 6), None);
        assert_eq!(shape_of(&synthetic(128, 8, Some((&TRAILER, 1)))[1..], 6), None);
        assert_eq!(shape_of(&[], 6), None);
        assert!(parse::<HIDDEN>(&synthetic(128, 17, Some((&TRAILER, 1))), 6).is_none());
    }

    #[test]
    fn a_wide_trailer_names_the_first_layers_width() {
        // GNN4: buckets, activation, inputs (0 or 1: mirrored), width.
        let wide = |hidden: usize, inputs: u16, named: u16| {
            let mut bytes = synthetic_of(hidden, 128, 8, Some((&WIDE_TRAILER, 1)));
            bytes.extend([inputs, named].iter().flat_map(|w| w.to_le_bytes()));
            bytes
        };
        let form = |mirrored, hidden| Some(Form { buckets: 8, activation: Activation::Squared, mirrored, hidden });
        assert_eq!(shape_of(&wide(512, 1, 512), 6), form(true, 512));
        assert_eq!(shape_of(&wide(384, 0, 384), 6), form(false, 384));
        assert_eq!(shape_of(&wide(256, 1, 256), 6), form(true, 256));
        // A width the body does not hold, one that is not a whole number of vectors, none, or
        // an unknown kind of inputs: not networks.
        assert_eq!(shape_of(&wide(512, 1, 256), 6), None);
        assert_eq!(shape_of(&wide(520, 1, 520), 6), None);
        assert_eq!(shape_of(&wide(0, 1, 0), 6), None);
        assert_eq!(shape_of(&wide(512, 2, 512), 6), None);
        // A network of another width than this build's is refused, and one of its own is read.
        assert!(parse::<HIDDEN>(&wide(512, 1, 512), 6).is_none());
        let network = parse::<512>(&wide(512, 1, 512), 6).unwrap();
        let units = [128; 512];
        assert_eq!(network.output(&units, &units, 32), 512 * 64 * 8 / QB * SCALE / QA);
    }

    #[test]
    fn buckets_share_the_pieces_and_squared_units_weigh_their_square() {
        assert_eq!([2, 5, 6, 17, 18, 29, 30, 32].map(|p| bucket(p, 8)), [0, 0, 1, 3, 4, 6, 7, 7]);
        assert!((0..=40).all(|p| bucket(p, 1) == 0));
        // Every unit at 128 / 255 (about a half): 256 units weighed by b + 1 in bucket b.
        let units = [128; HIDDEN];
        let clipped = parse::<HIDDEN>(&synthetic(128, 8, Some((&TRAILER, 0))), 6).unwrap();
        let squared = parse::<HIDDEN>(&synthetic(128, 8, Some((&TRAILER, 1))), 6).unwrap();
        for (pieces, b) in [(32, 7), (3, 0), (12, 2)] {
            let weight = b + 1;
            assert_eq!(clipped.output(&units, &units, pieces), 256 * 128 * weight / QB * SCALE / QA);
            // (128 / 255)² is about a quarter: 128² / 256 = 64 in the layer's units.
            assert_eq!(squared.output(&units, &units, pieces), 256 * 64 * weight / QB * SCALE / QA);
        }
        // The side to move's units count, the other side's are weighed by 0 here.
        assert_eq!(squared.output(&[0; HIDDEN], &units, 32), 0);
    }
}
