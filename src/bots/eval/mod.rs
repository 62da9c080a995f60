//! The engine's static evaluation, in centipawns from the side to move's point of view: material,
//! tapered piece-square tables, mobility, king safety and pawn structure.
//!
//! The piece-square tables are computed from each square's place on the board (centrality,
//! advancement) rather than typed in, so the 7x7 board gets tables of its own shape and the
//! fairy pieces get sensible ones too.

pub mod network;
mod pawns;
mod tuned;
mod weights;

use self::pawns::PawnScore;
pub use self::pawns::{formation_hash, PawnCache};
pub use self::weights::{Weights, MOBILITY_COUNTS};
use crate::chess::{Bitboard, Color, Position, Role, Square, Variant};

/// A piece's value in centipawns, for move ordering and pruning: the hand-set middlegame
/// material, fixed so that tuning the evaluation ([`Weights`]) leaves the search's margins be.
pub const fn piece_value(role: Role) -> i32 {
    Weights::HAND_SET.material[role as usize].0
}

/// How much each piece counts toward the middlegame phase (24 = all pieces of standard chess).
const PHASE: [i32; Role::COUNT] = [0, 1, 1, 2, 4, 0, 3, 3, 0];
const MAX_PHASE: i32 = 24;

/// Piece-square tables: [role][square from White's side] = (middlegame, endgame).
type Tables = [[(i16, i16); 64]; Role::COUNT];

/// An evaluation: weights, and the piece-square tables they make for one variant.
pub struct Evaluator {
    weights: Weights,
    tables: Tables,
    variant: Variant,
}

static EVALUATORS: [Evaluator; 2] =
    [Evaluator::new(Variant::Standard, Weights::STANDARD), Evaluator::new(Variant::Minichess7, Weights::MINICHESS7)];

fn evaluator(variant: Variant) -> &'static Evaluator {
    &EVALUATORS[(variant == Variant::Minichess7) as usize]
}

/// The evaluation of `pos` for the side to move, in centipawns.
pub fn evaluate(pos: &Position) -> i32 {
    evaluator(pos.variant()).evaluate(pos)
}

/// [`evaluate`], with the pawns' part looked up in (or added to) `cache`: the search's way.
pub fn evaluate_cached(pos: &Position, cache: &mut PawnCache) -> i32 {
    let evaluator = evaluator(pos.variant());
    evaluator.evaluate_with(pos, cache.score(evaluator, pos))
}

const fn abs(x: i32) -> i32 {
    if x < 0 {
        -x
    } else {
        x
    }
}

/// The bonus of `role` on (file, rank) — rank counted from its own side — on an n×n board.
const fn square_bonus(role: Role, file: i32, rank: i32, n: i32) -> (i32, i32) {
    // Twice the Manhattan distance to the centre, so 7x7 (centre 3,3) and 8x8 (3.5,3.5) both stay integral.
    let dist2 = abs(2 * file - (n - 1)) + abs(2 * rank - (n - 1));
    let central = 2 * (n - 1) - dist2; // 0 in a corner … 2(n-1) in the centre
    let edge_file = abs(2 * file - (n - 1));
    match role {
        Role::Pawn => {
            let last = n - 1;
            if rank == last {
                (0, 0) // only minichess7 pawns stand here: stuck for good
            } else {
                let centre_file = if edge_file <= 1 { 8 } else { 0 };
                let advance = if n == 7 && rank >= n - 2 { 2 } else { rank - 1 };
                (5 * advance + centre_file * (rank >= 2 && rank <= 4) as i32, 10 * advance)
            }
        }
        Role::Knight | Role::Empress | Role::Princess => (4 * central - 25, 3 * central - 20),
        Role::Bishop => (3 * central - 15, 2 * central - 12),
        Role::Rook => (if rank == n - 2 { 15 } else { 0 } + (4 - edge_file / 2), central),
        Role::Queen => (2 * central - 10, 3 * central - 15),
        Role::Ferz => (4 * central - 20 + 3 * rank, 3 * central - 15 + 3 * rank),
        Role::King => {
            // Middlegame: stay home, toward a corner. Endgame: come to the centre.
            let home = if rank == 0 { 20 } else { -25 * rank };
            (home + 4 * edge_file - 10, 5 * central - 35)
        }
    }
}

/// Mirrors a square to White's point of view on an n-rank board.
fn relative(sq: Square, color: Color, n: u8) -> usize {
    match color {
        Color::White => sq.index(),
        Color::Black => usize::from(n - 1 - sq.rank()) * 8 + usize::from(sq.file()),
    }
}

/// Middlegame and endgame scores being summed for one side.
#[derive(Default, Clone, Copy)]
struct Score {
    mg: i32,
    eg: i32,
}

impl Score {
    fn add(&mut self, (mg, eg): (i32, i32)) {
        self.mg += mg;
        self.eg += eg;
    }
}

/// What one side's pieces are scored against, fixed while they are walked.
struct Side {
    color: Color,
    n: u8,
    board: Bitboard,
    occupied: Bitboard,
    /// Squares that do not count toward mobility.
    unsafe_squares: Bitboard,
    /// The enemy king's square and those next to it.
    enemy_king_zone: Bitboard,
    /// Squares where a piece would stand on an outpost (worth `Weights::outpost` by its kind).
    outposts: Bitboard,
}

impl Side {
    fn relative(&self, sq: Square) -> usize {
        relative(sq, self.color, self.n)
    }
}

/// What one side's pieces add up to, summed as they are walked.
#[derive(Default)]
struct Sums {
    score: Score,
    phase: i32,
    /// All the squares the pieces attack.
    attacked: Bitboard,
    king_pressure: i32,
    /// How many pieces attack the enemy king's zone.
    attackers: i32,
}

impl Sums {
    fn material(&mut self, w: &Weights, role: Role, pieces: Bitboard) {
        let (mg, eg) = w.material[role.index()];
        let count = pieces.count() as i32;
        self.score.add((mg * count, eg * count));
        self.phase += PHASE[role.index()] * count;
    }

    fn square(&mut self, tables: &Tables, role: Role, relative: usize) {
        let (mg, eg) = tables[role.index()][relative];
        self.score.add((i32::from(mg), i32::from(eg)));
    }
}

impl Evaluator {
    pub const fn new(variant: Variant, weights: Weights) -> Evaluator {
        let n = variant.size() as i32;
        let mut tables = [[(0i16, 0i16); 64]; Role::COUNT];
        let mut r = 0;
        while r < Role::COUNT {
            let (scale_mg, scale_eg) = weights.placement[r];
            let mut sq = 0;
            while sq < 64 {
                let (file, rank) = ((sq % 8) as i32, (sq / 8) as i32);
                if file < n && rank < n {
                    let (mg, eg) = square_bonus(Role::ALL[r], file, rank, n);
                    let (add_mg, add_eg) = weights.squares[r][sq];
                    tables[r][sq] = ((mg * scale_mg / 100 + add_mg) as i16, (eg * scale_eg / 100 + add_eg) as i16);
                }
                sq += 1;
            }
            r += 1;
        }
        Evaluator { weights, tables, variant }
    }

    /// The evaluation of `pos` (of this evaluator's variant) for the side to move, in centipawns.
    pub fn evaluate(&self, pos: &Position) -> i32 {
        self.evaluate_with(pos, self.pawn_score(pos))
    }

    /// The evaluation given the score of the position's pawns.
    fn evaluate_with(&self, pos: &Position, pawns: PawnScore) -> i32 {
        let w = &self.weights;
        let n = self.variant.size();
        let board = self.variant.board();
        let occupied = pos.occupied();
        let mut phase = 0;
        let mut score = [Score::default(); 2];
        // What each side attacks, all told and by each kind of piece, for the threats and checks.
        let mut attacked = [Bitboard::EMPTY; 2];
        let mut by_role = [[Bitboard::EMPTY; Role::COUNT]; 2];
        let pawn_attacks = Color::ALL.map(|c| Position::pawn_attacks(c, pos.pieces(c, Role::Pawn)));

        for color in Color::ALL {
            let us = color.index();
            let ours = pos.by_color(color);
            let guarded = pawn_attacks[(!color).index()];
            let own_pawns = pos.pieces(color, Role::Pawn);
            let their_pawns = pos.pieces(!color, Role::Pawn);
            let side = Side {
                color,
                n,
                board,
                occupied,
                unsafe_squares: if w.safe_mobility { ours | guarded } else { ours },
                enemy_king_zone: pos
                    .king(!color)
                    .map_or(Bitboard::EMPTY, |k| Position::piece_attacks(Role::King, color, k, occupied).with(k)),
                outposts: pawn_attacks[us] & outpost_ranks(color, n) & !pawn_reach(!color, their_pawns),
            };
            let mut sums = Sums::default();
            // Each kind of piece by a call of its own, so that the kind is a constant in each
            // inlined copy (no jump on it per piece); minichess7's fairy pieces share one path.
            let (knight, bishop, rook, queen) = (Role::Knight, Role::Bishop, Role::Rook, Role::Queen);
            by_role[us][knight.index()] = self.add_pieces(knight, pos.pieces(color, knight), &side, &mut sums);
            by_role[us][bishop.index()] = self.add_pieces(bishop, pos.pieces(color, bishop), &side, &mut sums);
            by_role[us][rook.index()] = self.add_pieces(rook, pos.pieces(color, rook), &side, &mut sums);
            by_role[us][queen.index()] = self.add_pieces(queen, pos.pieces(color, queen), &side, &mut sums);
            if (ours & (pos.by_role(Role::Empress) | pos.by_role(Role::Princess) | pos.by_role(Role::Ferz))).any() {
                self.add_fairy_pieces(pos, &side, &mut sums);
            }
            // The king: material and square only (its reach counts in `attacked` below).
            let kings = pos.pieces(color, Role::King);
            sums.material(w, Role::King, kings);
            for sq in kings {
                sums.square(&self.tables, Role::King, side.relative(sq));
            }
            phase += sums.phase;
            attacked[us] = sums.attacked;
            let mut s = sums.score;
            // Pressure on the enemy king counts once several pieces join in.
            if sums.attackers >= 2 {
                s.add((sums.king_pressure * sums.attackers.min(4) / 6, 0));
            }
            let bishops = pos.pieces(color, Role::Bishop);
            if bishops.more_than_one() {
                s.add(w.bishop_pair);
            }
            // Per bishop, the own pawns on its squares' colour: counted by colour for all bishops at once.
            let blocking = ((bishops & DARK_SQUARES).count() * (own_pawns & DARK_SQUARES).count()
                + (bishops & !DARK_SQUARES).count() * (own_pawns & !DARK_SQUARES).count())
                as i32;
            s.add((-w.bishop_pawns.0 * blocking, -w.bishop_pawns.1 * blocking));
            for sq in pos.pieces(color, Role::Rook) {
                let file = Bitboard::file(sq.file());
                if (file & own_pawns).is_empty() {
                    s.add(if (file & their_pawns).is_empty() { w.rook_open } else { w.rook_half_open });
                }
            }
            let threatened = (ours & !own_pawns & !pos.by_role(Role::King) & guarded).count() as i32;
            s.add((-w.pawn_threat.0 * threatened, -w.pawn_threat.1 * threatened));
            s.add(self.passed_pawn_play(pos, color, pawns.passed[us]));
            s.add(self.king_shelter(pos, color));
            s.add((self.king_files(pos, color), 0));
            score[us] = s;
        }

        for color in Color::ALL {
            let king =
                pos.king(color).map_or(Bitboard::EMPTY, |k| Position::piece_attacks(Role::King, color, k, occupied));
            attacked[color.index()] |= pawn_attacks[color.index()] | king;
        }
        for color in Color::ALL {
            let (us, them) = (color.index(), (!color).index());
            let mut s = score[us];
            let pieces = pos.by_color(color) & !pos.by_role(Role::Pawn) & !pos.by_role(Role::King);
            let hanging = (pieces & attacked[them] & !attacked[us]).count() as i32;
            let majors = pos.pieces(color, Role::Rook) | pos.pieces(color, Role::Queen);
            let by_minors = by_role[them][Role::Knight.index()] | by_role[them][Role::Bishop.index()];
            let threatened = (majors & by_minors).count() as i32;
            s.add((-w.hanging.0 * hanging, -w.hanging.1 * hanging));
            s.add((-w.minor_threat.0 * threatened, -w.minor_threat.1 * threatened));
            let queens_hit = (pos.pieces(color, Role::Queen) & by_role[them][Role::Rook.index()]).count() as i32;
            s.add((-w.rook_on_queen.0 * queens_hit, -w.rook_on_queen.1 * queens_hit));
            s.mg += self.safe_checks(pos, color, &by_role[us], attacked[them]);
            s.add(self.passed_path(pos, color, pawns.passed[us], attacked[them]));
            score[us] = s;
        }

        let phase = phase.min(MAX_PHASE);
        let white = score[0].mg - score[1].mg + pawns.mg;
        let white_eg = score[0].eg - score[1].eg + pawns.eg;
        let white_eg = white_eg * self.endgame_scale(pos, white_eg) / 100;
        let tapered = (white * phase + white_eg * (MAX_PHASE - phase)) / MAX_PHASE;
        match pos.turn() {
            Color::White => tapered + w.tempo,
            Color::Black => -tapered + w.tempo,
        }
    }

    /// Adds the `pieces` (all of one kind other than pawns and king, of `side`'s colour) to
    /// `sums`: material, squares, outposts, mobility and pressure on the enemy king. Returns
    /// what they attack. Inlined where `role` is a constant, so its attacks need no jump.
    #[inline(always)]
    fn add_pieces(&self, role: Role, pieces: Bitboard, side: &Side, sums: &mut Sums) -> Bitboard {
        let w = &self.weights;
        sums.material(w, role, pieces);
        let outposts = (pieces & side.outposts).count() as i32;
        let (omg, oeg) = w.outpost[role.index()];
        sums.score.add((omg * outposts, oeg * outposts));
        let mut reached = Bitboard::EMPTY;
        let mut mobility_sum = 0;
        for sq in pieces {
            sums.square(&self.tables, role, side.relative(sq));
            let reach = Position::piece_attacks(role, side.color, sq, side.occupied) & side.board;
            reached |= reach;
            let mobility = (reach & !side.unsafe_squares).count() as i32;
            mobility_sum += mobility;
            // A queen, the widest reach, attacks at most 27 squares: the table's last.
            sums.score.add(w.mobility_extra[role.index()][(mobility as usize).min(MOBILITY_COUNTS - 1)]);
            // Without a branch: a piece that misses the zone adds nothing to the pressure.
            let hits = (reach & side.enemy_king_zone).count() as i32;
            sums.attackers += i32::from(hits > 0);
            sums.king_pressure += w.king_attack[role.index()] * hits;
        }
        let (wmg, weg) = w.mobility[role.index()];
        sums.score.add((wmg * mobility_sum, weg * mobility_sum));
        sums.attacked |= reached;
        reached
    }

    /// [`Evaluator::add_pieces`] for minichess7's fairy pieces: out of line, so that standard
    /// chess's evaluation carries no code for them.
    #[inline(never)]
    fn add_fairy_pieces(&self, pos: &Position, side: &Side, sums: &mut Sums) {
        for role in [Role::Empress, Role::Princess, Role::Ferz] {
            self.add_pieces(role, pos.pieces(side.color, role), side, sums);
        }
    }

    /// The middlegame score of the pawns on the king's file and either side of it: its own
    /// nearest pawn in front (a shield, best close by) and the enemy's nearest (a storm, worst
    /// close by), each by its rank from `color`'s side, 0 when the file has none.
    fn king_files(&self, pos: &Position, color: Color) -> i32 {
        let w = &self.weights;
        let Some(king) = pos.king(color) else {
            return 0;
        };
        let n = self.variant.size();
        let ahead = forward_of(color, king.rank()) | Bitboard::rank(king.rank());
        // Turned to `color`'s side, so that the nearest pawn on a file is the lowest bit.
        let own = from_own_side(pos.pieces(color, Role::Pawn) & ahead, color, n);
        let theirs = from_own_side(pos.pieces(!color, Role::Pawn) & ahead, color, n);
        let mut score = 0;
        for file in king.file().saturating_sub(1)..=(king.file() + 1).min(n - 1) {
            let on_file = Bitboard::file(file);
            // Without a branch: no pawn counts no bits (64), rank 8, which `& 7` makes 0.
            let rank_of = |pawns: Bitboard| (((pawns & on_file).0.trailing_zeros() / 8) & 7) as usize;
            score += w.shelter_rank[rank_of(own)] + w.storm_rank[rank_of(theirs)];
        }
        score
    }

    /// Middlegame: the checks `color` could give from a square the defender does not attack,
    /// by the kind of piece that would give them (`reach`: what each kind attacks).
    fn safe_checks(&self, pos: &Position, color: Color, reach: &[Bitboard; Role::COUNT], defended: Bitboard) -> i32 {
        let w = &self.weights;
        let Some(king) = pos.king(!color) else {
            return 0;
        };
        let occupied = pos.occupied();
        let safe = !defended & !pos.by_color(color);
        let diagonal = Position::piece_attacks(Role::Bishop, color, king, occupied);
        let straight = Position::piece_attacks(Role::Rook, color, king, occupied);
        let knight = Position::piece_attacks(Role::Knight, color, king, occupied);
        let mut score = 0;
        for (role, from) in [
            (Role::Knight, knight),
            (Role::Bishop, diagonal),
            (Role::Rook, straight),
            (Role::Queen, diagonal | straight),
        ] {
            if (from & reach[role.index()] & safe).any() {
                score += w.safe_check[role.index()];
            }
        }
        score
    }

    /// What `color`'s passed pawns from the fourth rank on gain by the road ahead: free of
    /// pieces, and out of the enemy's reach.
    fn passed_path(&self, pos: &Position, color: Color, passed: Bitboard, attacked: Bitboard) -> (i32, i32) {
        let w = &self.weights;
        let n = self.variant.size();
        let (mut mg, mut eg) = (0, 0);
        for sq in passed {
            let scale = (relative(sq, color, n) / 8) as i32 - 2;
            if scale <= 0 {
                continue;
            }
            let path = Bitboard::file(sq.file()) & forward_of(color, sq.rank()) & self.variant.board();
            if (path & pos.occupied()).is_empty() {
                mg += w.passed_free.0 * scale;
                eg += w.passed_free.1 * scale;
            }
            if (path & attacked).is_empty() {
                mg += w.passed_safe.0 * scale;
                eg += w.passed_safe.1 * scale;
            }
        }
        (mg, eg)
    }

    /// The share of the endgame score that counts, in percent: less when the side ahead (by
    /// `white_eg`'s sign) can hardly win — no pawns and at most a bishop's worth of pieces more
    /// — or when only bishops of opposite colours are left beside the pawns.
    fn endgame_scale(&self, pos: &Position, white_eg: i32) -> i32 {
        let w = &self.weights;
        let strong = if white_eg > 0 { Color::White } else { Color::Black };
        let pieces = |c: Color| {
            [Role::Knight, Role::Bishop, Role::Rook, Role::Queen, Role::Empress, Role::Princess, Role::Ferz]
                .iter()
                .map(|&r| piece_value(r) * pos.pieces(c, r).count() as i32)
                .sum::<i32>()
        };
        if pos.pieces(strong, Role::Pawn).is_empty() && pieces(strong) - pieces(!strong) <= piece_value(Role::Bishop) {
            return w.pawnless_scale;
        }
        let [white_bishops, black_bishops] = Color::ALL.map(|c| pos.pieces(c, Role::Bishop));
        let others = pos.occupied() & !pos.by_role(Role::Pawn) & !pos.by_role(Role::King) & !pos.by_role(Role::Bishop);
        if others.is_empty() && white_bishops.count() == 1 && black_bishops.count() == 1 {
            let dark = |b: Bitboard| (b & DARK_SQUARES).any();
            if dark(white_bishops) != dark(black_bishops) {
                return w.opposite_bishops_scale;
            }
        }
        100
    }

    /// Middlegame bonus for own pawns just in front of a king that stays home.
    fn king_shelter(&self, pos: &Position, color: Color) -> (i32, i32) {
        let Some(king) = pos.king(color) else {
            return (0, 0);
        };
        let n = self.variant.size();
        let home_rank = if color == Color::White { 0 } else { n - 1 };
        if king.rank().abs_diff(home_rank) > 1 {
            return (-self.weights.king_away, 0);
        }
        let front = Position::piece_attacks(Role::King, color, king, Bitboard::EMPTY) & forward_of(color, king.rank());
        let shield = (front & pos.pieces(color, Role::Pawn)).count() as i32;
        (self.weights.shelter * shield, 0)
    }
}

/// The dark squares (a1 is one).
const DARK_SQUARES: Bitboard = Bitboard(0xAA55_AA55_AA55_AA55);

/// `squares` as `color` sees them on an n-rank board: each on the square `relative` numbers it by.
fn from_own_side(squares: Bitboard, color: Color, n: u8) -> Bitboard {
    match color {
        Color::White => squares,
        // The ranks' bytes reversed, then the 8 - n ranks off the board (empty) dropped.
        Color::Black => Bitboard(squares.0.swap_bytes() >> (8 * (8 - u32::from(n)))),
    }
}

/// The fourth to sixth ranks from `color`'s side of an n-rank board: where outposts are.
fn outpost_ranks(color: Color, n: u8) -> Bitboard {
    // The 4th to 6th ranks from White's side, turned to `color`'s (the turn is its own inverse).
    from_own_side(Bitboard(0xFF_FFFF << 24), color, n)
}

/// Every square the `pawns` of `color` attack now or could attack after advancing: the squares
/// on the files beside each pawn, behind it from the other side's point of view.
fn pawn_reach(color: Color, pawns: Bitboard) -> Bitboard {
    let mut reach = Position::pawn_attacks(color, pawns).0;
    match color {
        Color::White => {
            reach |= reach << 8;
            reach |= reach << 16;
            reach |= reach << 32;
        }
        Color::Black => {
            reach |= reach >> 8;
            reach |= reach >> 16;
            reach |= reach >> 32;
        }
    }
    Bitboard(reach)
}

/// The files either side of `file` (0 to 7).
fn adjacent_files(file: u8) -> Bitboard {
    // A table: asked for each passed pawn and outpost of every evaluation.
    const TABLE: [Bitboard; 8] = {
        const A_FILE: u64 = 0x0101_0101_0101_0101;
        let mut table = [Bitboard::EMPTY; 8];
        let mut file = 0;
        while file < 8 {
            let left = if file > 0 { A_FILE << (file - 1) } else { 0 };
            let right = if file < 7 { A_FILE << (file + 1) } else { 0 };
            table[file] = Bitboard(left | right);
            file += 1;
        }
        table
    };
    TABLE[usize::from(file & 7)]
}

/// King steps between two squares.
fn distance(a: Square, b: Square) -> i32 {
    i32::from(a.file().abs_diff(b.file()).max(a.rank().abs_diff(b.rank())))
}

/// The ranks in front of `rank` (0 to 7) from `color`'s side.
fn forward_of(color: Color, rank: u8) -> Bitboard {
    // A table, for the same reason as `adjacent_files`'s: [white, black][rank].
    const TABLE: [[Bitboard; 8]; 2] = {
        let mut table = [[Bitboard::EMPTY; 8]; 2];
        let mut rank = 0;
        while rank < 8 {
            table[0][rank] = Bitboard(if rank < 7 { !0u64 << (8 * (rank + 1)) } else { 0 });
            table[1][rank] = Bitboard((1u64 << (8 * rank)) - 1);
            rank += 1;
        }
        table
    };
    TABLE[color.index()][usize::from(rank & 7)]
}

#[cfg(test)]
mod tests;
