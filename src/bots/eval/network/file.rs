//! The network file's format: the first layer's weights and biases, then each output bucket's
//! weights and bias, all little-endian; and, after them, a trailer naming the output buckets,
//! the activation and the mirror where the file has any of them (scripts/train_network.py
//! writes it). Checked at build time for the built-in files ([`shape_of`] is a `const fn`)
//! and on loading for one named by `GAMBIT_NET`.

use super::{Network, HIDDEN};

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
}

impl Form {
    /// The first networks': one bucket, clipped units, no mirror.
    const FIRST: Form = Form { buckets: 1, activation: Activation::Clipped, mirrored: false };
}

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

/// The size of a network file for `kinds` kinds of piece and `buckets` output buckets,
/// without its trailer.
const fn body_size(kinds: usize, buckets: usize) -> usize {
    (2 * kinds * 64 * HIDDEN + HIDDEN + buckets * 2 * HIDDEN) * 2 + 4 * buckets
}

/// The form of the network file `bytes` for `kinds` kinds of piece, or None when it is not
/// one. A `const fn`, so that the built-in files are checked as the binary is built.
pub(super) const fn shape_of(bytes: &[u8], kinds: usize) -> Option<Form> {
    if bytes.len() == body_size(kinds, 1) {
        return Some(Form::FIRST);
    }
    let n = bytes.len();
    // The mirrored trailer has one number more than the other.
    let (tag_at, mirrored) = if n >= 10 && tag_is(bytes, n - 10, MIRRORED_TRAILER) {
        match u16::from_le_bytes([bytes[n - 2], bytes[n - 1]]) {
            1 if kinds == 6 => (n - 10, true),
            _ => return None,
        }
    } else if n >= 8 && tag_is(bytes, n - 8, TRAILER) {
        (n - 8, false)
    } else {
        return None;
    };
    let buckets = u16::from_le_bytes([bytes[tag_at + 4], bytes[tag_at + 5]]) as usize;
    let activation = match u16::from_le_bytes([bytes[tag_at + 6], bytes[tag_at + 7]]) {
        0 => Activation::Clipped,
        1 => Activation::Squared,
        _ => return None,
    };
    if buckets == 0 || buckets > MAX_BUCKETS || tag_at != body_size(kinds, buckets) {
        return None;
    }
    Some(Form { buckets, activation, mirrored })
}

/// True if `bytes` holds `tag` at `at`.
const fn tag_is(bytes: &[u8], at: usize, tag: [u8; 4]) -> bool {
    bytes[at] == tag[0] && bytes[at + 1] == tag[1] && bytes[at + 2] == tag[2] && bytes[at + 3] == tag[3]
}

/// The network in the file `bytes`, for `kinds` kinds of piece, or None when it is not one.
pub(super) fn parse(bytes: &[u8], kinds: usize) -> Option<Network> {
    Some(read(bytes, shape_of(bytes, kinds)?, kinds))
}

/// The network in `bytes`, a file of the form `shape_of` found for `kinds` kinds of piece.
pub(super) fn read(bytes: &[u8], Form { buckets, activation, mirrored }: Form, kinds: usize) -> Network {
    let rows = 2 * kinds * 64;
    let mut words = bytes.chunks_exact(2).map(|b| i16::from_le_bytes([b[0], b[1]]));
    let mut next = || words.next().unwrap_or(0);
    let mut feature_weights = vec![[0; HIDDEN]; rows].into_boxed_slice();
    for w in feature_weights.iter_mut().flatten() {
        *w = next();
    }
    let feature_bias = std::array::from_fn(|_| next());
    let mut output_weights = vec![[[0; HIDDEN]; 2]; buckets].into_boxed_slice();
    for w in output_weights.iter_mut().flatten().flatten() {
        *w = next();
    }
    let biases = &bytes[body_size(kinds, buckets) - 4 * buckets..body_size(kinds, buckets)];
    let output_bias = biases.chunks_exact(4).map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
    Network { feature_weights, feature_bias, output_weights, output_bias, activation, mirrored }
}

#[cfg(test)]
mod tests {
    use super::super::{bucket, QA, QB, SCALE};
    use super::*;

    /// A network file for six kinds of piece whose first layer is its biases alone (every
    /// unit's sum `unit`), with `buckets` output buckets (bucket b weighs the side to move's
    /// units by b + 1 and the other side's by 0) and the trailer `trailer` if given (the
    /// mirrored one with its inputs' number appended by the caller).
    fn synthetic(unit: i16, buckets: usize, trailer: Option<(&[u8; 4], u16)>) -> Vec<u8> {
        let mut words = vec![0i16; 2 * 6 * 64 * HIDDEN];
        words.extend([unit; HIDDEN]);
        for b in 0..buckets {
            words.extend([b as i16 + 1; HIDDEN]);
            words.extend([0; HIDDEN]);
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
        let form = |buckets, activation, mirrored| Some(Form { buckets, activation, mirrored });
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
        assert_eq!(body, body_size(9, 8));
        assert_eq!(shape_of(&seven_files, 9), None);
        assert_eq!(shape_of(&synthetic(128, 8, Some((&TRAILER, 2))), 6), None);
        let mut lying = synthetic(128, 8, Some((&TRAILER, 1)));
        let n = lying.len();
        lying[n - 4] = 7;
        assert_eq!(shape_of(&lying, 6), None);
        assert_eq!(shape_of(&synthetic(128, 8, Some((&TRAILER, 1)))[1..], 6), None);
        assert_eq!(shape_of(&[], 6), None);
        assert!(parse(&synthetic(128, 17, Some((&TRAILER, 1))), 6).is_none());
    }

    #[test]
    fn buckets_share_the_pieces_and_squared_units_weigh_their_square() {
        assert_eq!([2, 5, 6, 17, 18, 29, 30, 32].map(|p| bucket(p, 8)), [0, 0, 1, 3, 4, 6, 7, 7]);
        assert!((0..=40).all(|p| bucket(p, 1) == 0));
        // Every unit at 128 / 255 (about a half): 256 units weighed by b + 1 in bucket b.
        let units = [128; HIDDEN];
        let clipped = parse(&synthetic(128, 8, Some((&TRAILER, 0))), 6).unwrap();
        let squared = parse(&synthetic(128, 8, Some((&TRAILER, 1))), 6).unwrap();
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
