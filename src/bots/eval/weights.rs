//! The evaluation's weights: one [`Weights`] value per variant.

use crate::chess::{Role, Square};

/// Everything the evaluation weighs, in centipawns; pairs are (middlegame, endgame). Each
/// variant has its own: standard chess's are fitted to game results (Texel tuning,
/// `examples/texel.rs`, docs/bots.md), minichess7's are set by hand.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Weights {
    pub material: [(i32, i32); Role::COUNT],
    /// Per attacked square not held by an own piece.
    pub mobility: [(i32, i32); Role::COUNT],
    /// Per square next to the enemy king that the piece attacks.
    pub king_attack: [i32; Role::COUNT],
    /// A passed pawn, by rank from its own side.
    pub passed: [(i32, i32); 8],
    /// Per pawn beyond the first on a file.
    pub doubled: (i32, i32),
    /// Per pawn with no own pawn on a neighbouring file.
    pub isolated: (i32, i32),
    pub bishop_pair: (i32, i32),
    /// Middlegame: per own pawn shielding a king at home, and a king gone from home.
    pub shelter: i32,
    pub king_away: i32,
    pub tempo: i32,
    /// A rook on a file without pawns, and on one without own pawns (enemy ones only).
    pub rook_open: (i32, i32),
    pub rook_half_open: (i32, i32),
    /// Per piece other than a pawn that an enemy pawn attacks: it must move or be lost.
    pub pawn_threat: (i32, i32),
    /// Endgame, per passed pawn from its fourth rank on, times (rank - 2): per square the enemy
    /// king stands from the square in front of it, and (subtracted) per square the own king does.
    pub passed_king_distance: (i32, i32),
    /// A passed pawn whose next square is taken keeps this share of its bonus, in percent.
    pub passed_blocked: i32,
    /// A piece on an outpost: on the fourth to sixth rank, guarded by an own pawn, where no enemy
    /// pawn can ever attack it.
    pub outpost: [(i32, i32); Role::COUNT],
    /// A pawn guarded by an own pawn or beside one on its rank, by rank from its own side.
    pub connected: [(i32, i32); 8],
    /// Per piece other than a pawn or the king that the enemy attacks and nothing of its own guards.
    pub hanging: (i32, i32),
    /// Per rook or queen that an enemy knight or bishop attacks.
    pub minor_threat: (i32, i32),
    /// Mobility leaves out the squares enemy pawns guard (a piece cannot safely go there).
    pub safe_mobility: bool,
    /// The piece-square tables' shape comes from each square's place on the board
    /// (`square_bonus` in the evaluation); this scales it per role, in percent.
    pub placement: [(i32, i32); Role::COUNT],
    /// Added to each square of that shape: [role][square from White's side, a1 = 0]. The
    /// shape is a formula, right in the large; these are what a fit to games found it misses.
    pub squares: [[(i32, i32); 64]; Role::COUNT],
    /// Added to the linear mobility: [role][squares it reaches], so that a nearly trapped piece
    /// can cost more, and the tenth square add less, than a straight line says.
    pub mobility_extra: [[(i32, i32); MOBILITY_COUNTS]; Role::COUNT],
    /// Middlegame, by the piece that could give it: the side could check the enemy king from a
    /// square the defender does not attack.
    pub safe_check: [i32; Role::COUNT],
    /// Middlegame, per file of the king and its neighbours: the nearest own pawn in front of the
    /// king by its rank from its own side (0: none), and the nearest enemy pawn likewise.
    pub shelter_rank: [i32; 8],
    pub storm_rank: [i32; 8],
    /// Per passed pawn from its fourth rank on, times (rank - 2): nothing stands on its way to
    /// promotion, and nothing of the enemy's attacks that way.
    pub passed_free: (i32, i32),
    pub passed_safe: (i32, i32),
    /// Per queen an enemy rook attacks.
    pub rook_on_queen: (i32, i32),
    /// Per bishop, per own pawn on the squares of its colour.
    pub bishop_pawns: (i32, i32),
    /// The endgame part, in percent, when the side ahead has no pawns and at most a bishop's
    /// worth of pieces more (hard or impossible to win), and with bishops of opposite colours
    /// and no other pieces. Set by hand, as Stockfish's classical evaluation has them: a fit
    /// to a few thousand such positions wanted a negative share, which plays nonsense.
    pub pawnless_scale: i32,
    pub opposite_bishops_scale: i32,
}

/// A queen reaches at most 27 squares.
pub const MOBILITY_COUNTS: usize = 28;

impl Weights {
    /// Standard chess: the hand-set weights as fitted to positions labelled with Stockfish's
    /// scores and game results (docs/bots.md, "Tuning the evaluation").
    pub const STANDARD: Weights = Weights::TUNED;

    /// Minichess7: the hand-set weights, with passed pawns worth half (a pawn that arrives is stuck).
    pub const MINICHESS7: Weights = {
        let mut w = Weights::HAND_SET;
        let mut r = 0;
        while r < 8 {
            let (mg, eg) = w.passed[if r < 5 { r } else { 5 }];
            w.passed[r] = (mg / 2, eg / 2);
            r += 1;
        }
        // The last rank of a 7x7 board.
        w.passed[6] = (0, 0);
        // Not measured there yet: minichess7 keeps the evaluation it was measured with.
        w.rook_open = (0, 0);
        w.rook_half_open = (0, 0);
        w.pawn_threat = (0, 0);
        w.safe_mobility = false;
        w.outpost = [(0, 0); Role::COUNT];
        w.passed_king_distance = (0, 0);
        w.passed_blocked = 100;
        w.connected = [(0, 0); 8];
        w.hanging = (0, 0);
        w.minor_threat = (0, 0);
        w.safe_check = [0; Role::COUNT];
        w.shelter_rank = [0; 8];
        w.storm_rank = [0; 8];
        w.passed_free = (0, 0);
        w.passed_safe = (0, 0);
        w.rook_on_queen = (0, 0);
        w.bishop_pawns = (0, 0);
        w.pawnless_scale = 100;
        w.opposite_bishops_scale = 100;
        w
    };

    /// The weights before any tuning.
    pub const HAND_SET: Weights = Weights {
        material: [
            (100, 115),
            (320, 300),
            (330, 320),
            (480, 520),
            (950, 950),
            (0, 0),
            (820, 850),
            (740, 760),
            (170, 190),
        ],
        mobility: [(0, 0), (4, 4), (5, 5), (2, 4), (1, 2), (0, 0), (2, 3), (3, 3), (3, 3)],
        king_attack: [0, 20, 20, 35, 70, 0, 55, 45, 15],
        passed: [(0, 0), (2, 5), (6, 12), (12, 25), (22, 45), (37, 75), (60, 120), (0, 0)],
        doubled: (12, 20),
        isolated: (10, 15),
        bishop_pair: (30, 50),
        shelter: 12,
        king_away: 20,
        tempo: 10,
        rook_open: (25, 10),
        rook_half_open: (12, 6),
        pawn_threat: (30, 25),
        safe_mobility: true,
        outpost: [(0, 0), (30, 15), (15, 8), (0, 0), (0, 0), (0, 0), (0, 0), (0, 0), (0, 0)],
        passed_king_distance: (5, 2),
        passed_blocked: 50,
        connected: [(0, 0), (3, 1), (5, 3), (8, 6), (14, 12), (25, 25), (40, 45), (0, 0)],
        hanging: (30, 20),
        minor_threat: (25, 15),
        placement: [(100, 100); Role::COUNT],
        squares: [[(0, 0); 64]; Role::COUNT],
        mobility_extra: [[(0, 0); MOBILITY_COUNTS]; Role::COUNT],
        safe_check: [0, 40, 30, 45, 40, 0, 0, 0, 0],
        shelter_rank: [0; 8],
        storm_rank: [0; 8],
        passed_free: (0, 0),
        passed_safe: (0, 0),
        rook_on_queen: (0, 0),
        bishop_pawns: (0, 0),
        pawnless_scale: 25,
        opposite_bishops_scale: 50,
    };

    /// The standard-chess weights a tuner may change, each with a name to report.
    pub fn tunable(&mut self) -> Vec<(String, &mut i32)> {
        const NAMES: [&str; 5] = ["pawn", "knight", "bishop", "rook", "queen"];
        let mut out: Vec<(String, &mut i32)> = Vec::new();
        let Weights {
            material,
            mobility,
            king_attack,
            passed,
            doubled,
            isolated,
            bishop_pair,
            shelter,
            king_away,
            tempo: _,
            rook_open,
            rook_half_open,
            pawn_threat,
            safe_mobility: _,
            outpost,
            passed_king_distance,
            passed_blocked,
            connected,
            hanging,
            minor_threat,
            placement: _,
            squares,
            mobility_extra,
            safe_check,
            shelter_rank,
            storm_rank,
            passed_free,
            passed_safe,
            rook_on_queen,
            bishop_pawns,
            pawnless_scale: _,
            opposite_bishops_scale: _,
        } = self;
        for (i, (mg, eg)) in material.iter_mut().take(5).enumerate() {
            out.push((format!("material {} mg", NAMES[i]), mg));
            out.push((format!("material {} eg", NAMES[i]), eg));
        }
        for (i, (mg, eg)) in mobility.iter_mut().take(5).enumerate().skip(1) {
            out.push((format!("mobility {} mg", NAMES[i]), mg));
            out.push((format!("mobility {} eg", NAMES[i]), eg));
        }
        for (i, w) in king_attack.iter_mut().take(5).enumerate().skip(1) {
            out.push((format!("king attack {}", NAMES[i]), w));
        }
        for (rank, (mg, eg)) in passed.iter_mut().enumerate().take(7).skip(1) {
            out.push((format!("passed rank {rank} mg"), mg));
            out.push((format!("passed rank {rank} eg"), eg));
        }
        for (name, (mg, eg)) in [
            ("doubled", doubled),
            ("isolated", isolated),
            ("bishop pair", bishop_pair),
            ("rook open", rook_open),
            ("rook half open", rook_half_open),
            ("pawn threat", pawn_threat),
            ("hanging", hanging),
            ("minor threat", minor_threat),
            ("passed free", passed_free),
            ("passed safe", passed_safe),
            ("rook on queen", rook_on_queen),
            ("bishop pawns", bishop_pawns),
        ] {
            out.push((format!("{name} mg"), mg));
            out.push((format!("{name} eg"), eg));
        }
        for (rank, (mg, eg)) in connected.iter_mut().enumerate().take(7).skip(1) {
            out.push((format!("connected rank {rank} mg"), mg));
            out.push((format!("connected rank {rank} eg"), eg));
        }
        for (i, (mg, eg)) in outpost.iter_mut().enumerate().take(3).skip(1) {
            out.push((format!("outpost {} mg", NAMES[i]), mg));
            out.push((format!("outpost {} eg", NAMES[i]), eg));
        }
        out.push(("passed king distance them".into(), &mut passed_king_distance.0));
        out.push(("passed king distance us".into(), &mut passed_king_distance.1));
        out.push(("passed blocked %".into(), passed_blocked));
        out.push(("shelter".into(), shelter));
        out.push(("king away".into(), king_away));
        for (i, w) in safe_check.iter_mut().take(5).enumerate().skip(1) {
            out.push((format!("safe check {}", NAMES[i]), w));
        }
        for (rank, w) in shelter_rank.iter_mut().enumerate().take(7) {
            out.push((format!("shelter rank {rank}"), w));
        }
        for (rank, w) in storm_rank.iter_mut().enumerate().take(7) {
            out.push((format!("storm rank {rank}"), w));
        }
        // A knight reaches at most 8 squares, a bishop 13, a rook 14, a queen 27.
        for (i, table) in mobility_extra.iter_mut().enumerate().take(5).skip(1) {
            let most = [0, 8, 13, 14, 27][i];
            for (count, (mg, eg)) in table.iter_mut().enumerate().take(most + 1) {
                out.push((format!("mobility {} {count} mg", NAMES[i]), mg));
                out.push((format!("mobility {} {count} eg", NAMES[i]), eg));
            }
        }
        // Per square, for standard chess's pieces; not a pawn's first or last rank, where none stands.
        for (i, table) in squares.iter_mut().take(6).enumerate() {
            let name = NAMES.get(i).copied().unwrap_or("king");
            let ranks = if i == 0 { 8..56 } else { 0..64 };
            for (sq, (mg, eg)) in table.iter_mut().enumerate().take(ranks.end).skip(ranks.start) {
                let square = Square::from_index(sq as u8).map(|s| s.to_string()).unwrap_or_default();
                out.push((format!("square {name} {square} mg"), mg));
                out.push((format!("square {name} {square} eg"), eg));
            }
        }
        out
    }
}
