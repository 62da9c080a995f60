//! Glicko-2 ratings, as lichess uses them: pure arithmetic with no I/O, so that rating a game is a
//! function of the two ratings, the result and the idle time, and can be tested against
//! Glickman's published worked example.
//!
//! The algorithm follows Mark Glickman's "Example of the Glicko-2 system" (steps 1 to 8). Ratings
//! are kept on the familiar Glicko scale (1500, RD 350 and so on) and converted to the Glicko-2
//! scale (mu, phi) only inside [`update`]. After each update the results are clamped the way
//! lichess clamps them, so that a rating can neither become absurdly certain nor sink below a
//! floor, and a run of upsets cannot make the volatility run away.

/// The constant that converts between the Glicko and Glicko-2 scales (Glickman's step 2): it is
/// 400 / ln(10), so that a difference of one on the Glicko-2 scale means the same odds as a
/// difference of about 173.7 rating points.
const SCALE: f64 = 173.7178;

/// The Glicko rating that maps to mu = 0. It is fixed rather than taken from
/// [`Params::default_rating`] because it only centres the scale: the update depends on rating
/// differences alone, so moving the starting rating must not move the scale.
const CENTRE: f64 = 1500.0;

/// How close the two ends of the Illinois bracket must come before the new volatility is accepted
/// (Glickman's epsilon).
const CONVERGENCE: f64 = 0.000_001;

/// A bound on the Illinois iterations and on the search for the lower bracket. The method
/// converges in a few dozen steps for any sensible input; the bound only guarantees that absurd
/// parameters (an enormous tau, say) cannot hang the thread that rates a game.
const MAX_ITERATIONS: u32 = 1000;

/// The parameters of the rating system. They are a value rather than constants so that the tests
/// can reproduce Glickman's example (which uses a different tau and no clamps), and so that the
/// server could one day tune them without touching the arithmetic.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Params {
    /// The system constant: how much the volatility may change in one rating period. Smaller values
    /// keep volatility steadier, so one surprising result moves it less.
    pub tau: f64,
    /// A new player's rating.
    pub default_rating: f64,
    /// A new player's rating deviation: large, because nothing is known about them yet.
    pub default_rd: f64,
    /// A new player's volatility.
    pub default_volatility: f64,
    /// The smallest RD an update may leave. Without it a very active player's RD would keep
    /// shrinking until their rating hardly moved, however they played.
    pub min_rd: f64,
    /// The largest RD, reached by ageing or an update: past it a rating says nothing at all, and a
    /// larger RD would only make the next game swing the rating wildly.
    pub max_rd: f64,
    /// The lowest rating an update may leave, so that ratings stay on a meaningful scale.
    pub floor: f64,
    /// How many Glicko-2 rating periods pass per day of inactivity when a rating is aged.
    pub periods_per_day: f64,
    /// The largest volatility an update may leave, so that a streak of upsets cannot make a
    /// player's RD grow without bound when they next stop playing.
    pub max_volatility: f64,
}

/// The parameters lichess uses.
pub const LICHESS: Params = Params {
    tau: 0.75,
    default_rating: 1500.0,
    default_rd: 500.0,
    default_volatility: 0.09,
    min_rd: 45.0,
    max_rd: 500.0,
    floor: 400.0,
    periods_per_day: 0.21436,
    max_volatility: 0.1,
};

/// RD above which a rating is provisional ("1500?"): the rating is still too uncertain to be
/// shown as settled or to count in leaderboards.
pub const PROVISIONAL_RD: f64 = 110.0;

/// A player's rating in one category, on the Glicko scale.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rating {
    /// The estimate of the player's strength.
    pub rating: f64,
    /// The rating deviation: how uncertain the estimate is (roughly one standard deviation).
    pub rd: f64,
    /// How erratic the player's results are, which sets how fast the RD grows when idle.
    pub volatility: f64,
}

impl Rating {
    /// A new player's rating.
    pub fn new(params: &Params) -> Rating {
        Rating { rating: params.default_rating, rd: params.default_rd, volatility: params.default_volatility }
    }

    /// Whether the rating is still provisional, i.e. its RD is above [`PROVISIONAL_RD`].
    pub fn provisional(&self) -> bool {
        self.rd > PROVISIONAL_RD
    }

    /// The rating after `days` without a rated game: RD grows, phi* = sqrt(phi^2 + sigma^2 * t),
    /// t = days * periods_per_day, capped at max_rd.
    ///
    /// Ageing is what makes a returning player's first games count for more: we know less about
    /// them than when they last played. The rating and volatility do not change, and ageing never
    /// shrinks the RD (a rating already above `max_rd` is left where it is rather than pulled
    /// down). Zero, negative or NaN `days` change nothing, so a clock that steps backwards cannot
    /// make a rating more certain.
    pub fn aged(&self, days: f64, params: &Params) -> Rating {
        if days.is_nan() || days <= 0.0 {
            return *self;
        }
        let periods = days * params.periods_per_day;
        let phi = self.rd / SCALE;
        let grown = (phi * phi + self.volatility * self.volatility * periods).sqrt() * SCALE;
        Rating { rd: grown.min(params.max_rd).max(self.rd), ..*self }
    }
}

/// One game of the period, reduced to what steps 3, 4 and 7 need: g(phi_j), E(mu, mu_j, phi_j)
/// and the player's score (1 win, 0.5 draw, 0 loss). Keeping the two factors as numbers rather
/// than recomputing them lets the tests feed in the values Glickman printed.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Term {
    g: f64,
    e: f64,
    score: f64,
}

/// Glickman's step 2: the Glicko-2 mu of a Glicko rating.
fn to_mu(rating: f64) -> f64 {
    (rating - CENTRE) / SCALE
}

/// Glickman's step 2: the Glicko-2 phi of a Glicko RD.
fn to_phi(rd: f64) -> f64 {
    rd / SCALE
}

/// Glickman's g(phi): how much a game against an opponent with deviation `phi` is discounted.
/// A result against a player whose rating is uncertain says less about one's own strength.
fn g(phi: f64) -> f64 {
    1.0 / (1.0 + 3.0 * phi * phi / (std::f64::consts::PI * std::f64::consts::PI)).sqrt()
}

/// Glickman's E(mu, mu_j, phi_j): the expected score of a player at `mu` against an opponent at
/// `mu_j` with deviation `phi_j`.
fn e(mu: f64, mu_j: f64, phi_j: f64) -> f64 {
    1.0 / (1.0 + (-g(phi_j) * (mu - mu_j)).exp())
}

/// The terms of the period's games for a player at `mu` (Glickman's step 3 table).
fn terms(mu: f64, games: &[(Rating, f64)]) -> Vec<Term> {
    games
        .iter()
        .map(|(opponent, score)| {
            let (mu_j, phi_j) = (to_mu(opponent.rating), to_phi(opponent.rd));
            Term { g: g(phi_j), e: e(mu, mu_j, phi_j), score: *score }
        })
        .collect()
}

/// Glickman's step 3: v, the estimated variance of the player's rating based only on the games'
/// outcomes. Few or lopsided games tell us little, so v is large; many close games make it small.
fn variance(terms: &[Term]) -> f64 {
    1.0 / terms.iter().map(|t| t.g * t.g * t.e * (1.0 - t.e)).sum::<f64>()
}

/// The sum over the games of g(phi_j) * (s_j - E): how much better (positive) or worse than
/// expected the player scored, each game weighted by how informative it is. Both Delta (step 4)
/// and the new mu (step 7) are built on it.
fn improvement(terms: &[Term]) -> f64 {
    terms.iter().map(|t| t.g * (t.score - t.e)).sum()
}

/// Glickman's step 4: Delta, the estimated improvement in rating, on the Glicko-2 scale, given the
/// variance `v` from [`variance`]. Its size relative to phi and v decides whether the volatility
/// rises (results were more surprising than the deviation allows) or falls.
fn delta(v: f64, terms: &[Term]) -> f64 {
    v * improvement(terms)
}

/// Glickman's step 5: the new volatility sigma', found as the root of his f(x) with the Illinois
/// algorithm (a regula falsi that halves the stale end's value so it cannot stall).
///
/// A tau that is not positive would divide by zero in f; the volatility is then left as it was,
/// which is what a tau tending to zero means (volatility never changes).
fn new_volatility(sigma: f64, phi: f64, v: f64, delta: f64, tau: f64) -> f64 {
    if tau.is_nan() || tau <= 0.0 {
        return sigma;
    }
    let a = (sigma * sigma).ln();
    let phi2 = phi * phi;
    let delta2 = delta * delta;
    let f = |x: f64| {
        let ex = x.exp();
        let denominator = phi2 + v + ex;
        ex * (delta2 - phi2 - v - ex) / (2.0 * denominator * denominator) - (x - a) / (tau * tau)
    };

    // The initial bracket: A = a, and B either from Delta directly or by stepping down in tau until
    // f changes sign.
    let mut big_a = a;
    let mut big_b = if delta2 > phi2 + v {
        (delta2 - phi2 - v).ln()
    } else {
        let mut k = 1.0;
        let mut steps = 0;
        while f(a - k * tau) < 0.0 && steps < MAX_ITERATIONS {
            k += 1.0;
            steps += 1;
        }
        a - k * tau
    };
    let mut f_a = f(big_a);
    let mut f_b = f(big_b);

    let mut steps = 0;
    while (big_b - big_a).abs() > CONVERGENCE && steps < MAX_ITERATIONS {
        let big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a);
        let f_c = f(big_c);
        if f_c * f_b <= 0.0 {
            big_a = big_b;
            f_a = f_b;
        } else {
            f_a /= 2.0;
        }
        big_b = big_c;
        f_b = f_c;
        steps += 1;
    }
    (big_a / 2.0).exp()
}

/// One Glicko-2 rating period: `player` against each (opponent, score), per Glickman's "Example of
/// the Glicko-2 system" steps 1-8 (convert to mu/phi with 173.7178, compute v, Delta, new
/// volatility with the Illinois algorithm, convergence epsilon 0.000001, phi*, new phi and mu,
/// convert back). With no games only phi grows (step 6). Then clamp rd to [min_rd, max_rd],
/// rating to >= floor, and volatility to <= max_volatility (lichess does this clamp).
///
/// A score is the game's result for the player: 1 win, 0.5 draw, 0 loss. All the games are rated
/// against the opponents' ratings as given, so the caller decides whether those are before or
/// after the opponents' own games in the period (see [`rate_game`]).
pub fn update(player: Rating, games: &[(Rating, f64)], params: &Params) -> Rating {
    // Step 2.
    let mu = to_mu(player.rating);
    let phi = to_phi(player.rd);
    let sigma = player.volatility;

    let (new_mu, new_phi, new_sigma) = if games.is_empty() {
        // Step 6 alone: an idle period only makes the rating less certain.
        (mu, (phi * phi + sigma * sigma).sqrt(), sigma)
    } else {
        // Steps 3 to 5.
        let terms = terms(mu, games);
        let v = variance(&terms);
        let delta = delta(v, &terms);
        let sigma_prime = new_volatility(sigma, phi, v, delta, params.tau);
        // Step 6: the pre-period deviation, widened by the new volatility.
        let phi_star = (phi * phi + sigma_prime * sigma_prime).sqrt();
        // Step 7.
        let phi_prime = 1.0 / (1.0 / (phi_star * phi_star) + 1.0 / v).sqrt();
        let mu_prime = mu + phi_prime * phi_prime * improvement(&terms);
        (mu_prime, phi_prime, sigma_prime)
    };

    // Step 8, then lichess's clamps. `max` and `min` rather than `clamp`, which panics if the
    // parameters are inconsistent (min_rd > max_rd) or NaN.
    Rating {
        rating: (new_mu * SCALE + CENTRE).max(params.floor),
        rd: (new_phi * SCALE).max(params.min_rd).min(params.max_rd),
        volatility: new_sigma.min(params.max_volatility),
    }
}

/// A rated game between two players as lichess rates it: each player's update uses the other's
/// rating *before* the game, each after ageing by their own days of inactivity. Returns (white
/// after, black after). `white_score` is 1, 0.5 or 0.
///
/// Both players are aged first, and each is then rated against the other's aged rating: an
/// opponent who has been away is genuinely less well known, so the game says less about the
/// player than one against an active opponent would. Rating both against the pre-game ratings
/// makes the result independent of which player happens to be updated first.
pub fn rate_game(
    white: Rating,
    white_idle_days: f64,
    black: Rating,
    black_idle_days: f64,
    white_score: f64,
    params: &Params,
) -> (Rating, Rating) {
    let white = white.aged(white_idle_days, params);
    let black = black.aged(black_idle_days, params);
    let white_after = update(white, &[(black, white_score)], params);
    let black_after = update(black, &[(white, 1.0 - white_score)], params);
    (white_after, black_after)
}

#[cfg(test)]
mod tests;
