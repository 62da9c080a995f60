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
mod tests {
    use super::*;

    /// Glickman's example uses tau = 0.5 and no clamps.
    const EXAMPLE: Params =
        Params { tau: 0.5, min_rd: 0.0, max_rd: 10_000.0, floor: 0.0, max_volatility: 1.0, ..LICHESS };

    fn rating(rating: f64, rd: f64, volatility: f64) -> Rating {
        Rating { rating, rd, volatility }
    }

    #[track_caller]
    fn assert_close(actual: f64, expected: f64, tolerance: f64) {
        assert!(
            (actual - expected).abs() <= tolerance,
            "expected {expected} within {tolerance}, got {actual} (off by {})",
            (actual - expected).abs()
        );
    }

    /// Half a unit in the 4th decimal: the paper's number is `actual` rounded to 4 decimals.
    const DP4: f64 = 0.000_05;
    /// Half a unit in the 3rd decimal.
    const DP3: f64 = 0.000_5;

    /// The player and the three games of Glickman's example, on the Glicko scale.
    fn example() -> (Rating, Vec<(Rating, f64)>) {
        let player = rating(1500.0, 200.0, 0.06);
        let games = vec![
            (rating(1400.0, 30.0, 0.06), 1.0),
            (rating(1550.0, 100.0, 0.06), 0.0),
            (rating(1700.0, 300.0, 0.06), 0.0),
        ];
        (player, games)
    }

    /// The step 3 table as Glickman printed it: g(phi_j) to four decimals and E to three.
    fn printed_terms() -> [Term; 3] {
        [
            Term { g: 0.9955, e: 0.639, score: 1.0 },
            Term { g: 0.9531, e: 0.432, score: 0.0 },
            Term { g: 0.7242, e: 0.303, score: 0.0 },
        ]
    }

    #[test]
    fn glickman_example_scale_conversion() {
        let (player, games) = example();
        assert_close(to_mu(player.rating), 0.0, DP4);
        assert_close(to_phi(player.rd), 1.1513, DP4);
        let mus: Vec<f64> = games.iter().map(|(r, _)| to_mu(r.rating)).collect();
        let phis: Vec<f64> = games.iter().map(|(r, _)| to_phi(r.rd)).collect();
        assert_close(mus[0], -0.5756, DP4);
        assert_close(mus[1], 0.2878, DP4);
        assert_close(mus[2], 1.1513, DP4);
        assert_close(phis[0], 0.1727, DP4);
        assert_close(phis[1], 0.5756, DP4);
        assert_close(phis[2], 1.7269, DP4);
    }

    #[test]
    fn glickman_example_g_and_e() {
        let (_, games) = example();
        let terms = terms(0.0, &games);
        let printed = printed_terms();
        for (term, paper) in terms.iter().zip(printed) {
            assert_close(term.g, paper.g, DP4);
            assert_close(term.e, paper.e, DP3);
            assert_eq!(term.score, paper.score);
        }
    }

    #[test]
    fn glickman_example_variance_and_delta() {
        // From the paper's own printed g and E, his arithmetic gives his v and Delta exactly.
        let printed = printed_terms();
        let v = variance(&printed);
        assert_close(v, 1.7785, DP4);
        assert_close(delta(v, &printed), -0.4834, DP4);
        // From unrounded g and E (as every double-precision implementation gets them) the values
        // are 1.77898 and -0.48393: E printed to three decimals moves the 4th decimal of v and
        // Delta, never more than that.
        let (_, games) = example();
        let exact = terms(0.0, &games);
        let v_exact = variance(&exact);
        let delta_exact = delta(v_exact, &exact);
        assert_close(v_exact, 1.778_977, 0.000_001);
        assert_close(delta_exact, -0.483_933, 0.000_001);
        assert_close(v_exact, 1.7785, 0.0005);
        assert_close(delta_exact, -0.4834, 0.0006);
    }

    #[test]
    fn glickman_example_new_volatility() {
        // From the paper's inputs to step 5. He prints 0.05999, truncating to five decimals (the
        // root is 0.0599960), so the value lies in [0.05999, 0.06000); to four decimals, 0.0600.
        let from_paper = new_volatility(0.06, 1.1513, 1.7785, -0.4834, 0.5);
        assert!((0.05999..0.06).contains(&from_paper), "sigma' {from_paper}");
        assert_close(from_paper, 0.0600, DP4);
        // From the unrounded v and Delta the root is the same to seven decimals.
        let (_, games) = example();
        let exact = terms(0.0, &games);
        let v = variance(&exact);
        let sigma_prime = new_volatility(0.06, to_phi(200.0), v, delta(v, &exact), 0.5);
        assert_close(sigma_prime, 0.059_996, 0.000_000_5);
        assert!((0.05999..0.06).contains(&sigma_prime), "sigma' {sigma_prime}");
    }

    #[test]
    fn glickman_example_update() {
        let (player, games) = example();
        let after = update(player, &games, &EXAMPLE);
        let mu_prime = to_mu(after.rating);
        let phi_prime = to_phi(after.rd);
        assert_close(phi_prime, 0.8722, DP4);
        assert_close(mu_prime, -0.2069, DP4);
        assert!((0.05999..0.06).contains(&after.volatility), "sigma' {}", after.volatility);
        assert_close(after.rd, 151.52, 0.005);
        // The paper's 1464.06 is 173.7178 * -0.2069 + 1500, from mu' already rounded to 4
        // decimals; the unrounded mu' (-0.206941) gives 1464.0507. Rounding mu' to four decimals
        // can move the rating by up to 173.7178 * 0.00005 = 0.0087, so check the paper's
        // conversion to his two decimals, and the unrounded rating within that rounding.
        let paper_rating = (mu_prime * 10_000.0).round() / 10_000.0 * SCALE + CENTRE;
        assert_close(paper_rating, 1464.06, 0.005);
        assert_close(after.rating, 1464.06, 0.0087 + 0.005);
        assert_close(after.rating, 1464.0507, DP4);
    }

    #[test]
    fn no_games_only_widens_rd() {
        let player = rating(1500.0, 200.0, 0.06);
        let after = update(player, &[], &EXAMPLE);
        assert_eq!(after.rating, 1500.0);
        assert_eq!(after.volatility, 0.06);
        let phi = to_phi(200.0);
        assert_close(after.rd, (phi * phi + 0.06 * 0.06).sqrt() * SCALE, 1e-9);
        assert!(after.rd > 200.0);
    }

    #[test]
    fn new_player() {
        let new = Rating::new(&LICHESS);
        assert_eq!(new, rating(1500.0, 500.0, 0.09));
        assert!(new.provisional());
        assert!(!rating(1500.0, PROVISIONAL_RD, 0.06).provisional());
        assert!(rating(1500.0, PROVISIONAL_RD + 0.01, 0.06).provisional());
    }

    #[test]
    fn rd_never_below_min_after_many_games() {
        let mut player = Rating::new(&LICHESS);
        let opponent = rating(1500.0, 45.0, 0.06);
        for i in 0..2000 {
            let score = [1.0, 0.5, 0.0][i % 3];
            player = update(player, &[(opponent, score)], &LICHESS);
            assert!(player.rd >= 45.0, "game {i}: rd {}", player.rd);
            assert!(player.volatility <= LICHESS.max_volatility);
        }
        // Many games in one period would take the RD far below 45 unclamped.
        let games = vec![(opponent, 0.5); 200];
        let unclamped = update(player, &games, &EXAMPLE);
        assert!(unclamped.rd < 45.0, "unclamped rd {}", unclamped.rd);
        assert_eq!(update(player, &games, &LICHESS).rd, 45.0);
    }

    #[test]
    fn rd_never_above_max() {
        let after = update(Rating::new(&LICHESS), &[], &LICHESS);
        assert_eq!(after.rd, 500.0);
    }

    #[test]
    fn rating_never_below_floor() {
        // A 410 player who loses to an equal opponent would drop far below 400.
        let player = rating(410.0, 300.0, 0.06);
        let opponent = rating(410.0, 60.0, 0.06);
        assert!(update(player, &[(opponent, 0.0)], &EXAMPLE).rating < 400.0);
        assert_eq!(update(player, &[(opponent, 0.0)], &LICHESS).rating, 400.0);
        // Losing to a 2500 is almost exactly expected, so it costs little, and never the floor.
        for rd in [45.0, 200.0, 500.0] {
            let after = update(rating(410.0, rd, 0.09), &[(rating(2500.0, 60.0, 0.06), 0.0)], &LICHESS);
            assert!(after.rating >= 400.0 && after.rating < 410.0, "rd {rd}: {}", after.rating);
        }
        let after = update(rating(400.0, 200.0, 0.09), &[(rating(2500.0, 60.0, 0.06), 0.0)], &LICHESS);
        assert_eq!(after.rating, 400.0);
    }

    #[test]
    fn volatility_capped() {
        // Wildly unexpected results push the volatility up; the cap holds it.
        let player = rating(1500.0, 50.0, 0.099);
        let games = vec![(rating(2500.0, 50.0, 0.06), 1.0); 5];
        let unclamped = update(player, &games, &Params { max_volatility: 1.0, ..LICHESS });
        assert!(unclamped.volatility > 0.1, "volatility {}", unclamped.volatility);
        assert_eq!(update(player, &games, &LICHESS).volatility, 0.1);
    }

    #[test]
    fn ageing_grows_rd_up_to_max() {
        let player = rating(1500.0, 60.0, 0.06);
        let year = player.aged(365.0, &LICHESS);
        assert!(year.rd > 60.0);
        assert!(year.rd <= 500.0);
        assert_eq!(year.rating, 1500.0);
        assert_eq!(year.volatility, 0.06);
        let phi = 60.0 / SCALE;
        let expected = (phi * phi + 0.06 * 0.06 * 365.0 * LICHESS.periods_per_day).sqrt() * SCALE;
        assert_close(year.rd, expected, 1e-9);

        let decades = rating(1500.0, 60.0, 0.1).aged(100_000.0, &LICHESS);
        assert_eq!(decades.rd, 500.0);

        assert_eq!(player.aged(0.0, &LICHESS), player);
        assert_eq!(player.aged(-3.0, &LICHESS), player);
        assert_eq!(player.aged(f64::NAN, &LICHESS), player);
        // Ageing never shrinks an RD that is already above the cap.
        let wide = rating(1500.0, 600.0, 0.06);
        assert_eq!(wide.aged(10.0, &LICHESS), wide);
    }

    #[test]
    fn ageing_longer_grows_more() {
        let player = rating(1500.0, 60.0, 0.06);
        let week = player.aged(7.0, &LICHESS);
        let month = player.aged(30.0, &LICHESS);
        assert!(player.rd < week.rd && week.rd < month.rd);
    }

    #[test]
    fn rate_game_win_is_symmetric() {
        let new = Rating::new(&LICHESS);
        let (white, black) = rate_game(new, 0.0, new, 0.0, 1.0, &LICHESS);
        assert!(white.rating > 1500.0);
        assert_close(white.rating - 1500.0, 1500.0 - black.rating, 1e-9);
        assert_close(white.rd, black.rd, 1e-9);
        assert!(white.rd < 500.0);
        let (white_loses, black_wins) = rate_game(new, 0.0, new, 0.0, 0.0, &LICHESS);
        assert_close(white_loses.rating, black.rating, 1e-9);
        assert_close(black_wins.rating, white.rating, 1e-9);
    }

    #[test]
    fn rate_game_draw_between_equals() {
        let new = Rating::new(&LICHESS);
        let (white, black) = rate_game(new, 0.0, new, 0.0, 0.5, &LICHESS);
        assert_close(white.rating, 1500.0, 1e-9);
        assert_close(black.rating, 1500.0, 1e-9);
        assert!(white.rd < 500.0 && black.rd < 500.0);

        let settled = rating(1700.0, 80.0, 0.06);
        let (white, black) = rate_game(settled, 3.0, settled, 3.0, 0.5, &LICHESS);
        assert_close(white.rating, 1700.0, 1e-9);
        assert_close(black.rating, 1700.0, 1e-9);
        assert!(white.rd < 80.0 && black.rd < 80.0);
    }

    #[test]
    fn rate_game_uses_ratings_before_the_game_and_ages_each_player() {
        let white = rating(1600.0, 80.0, 0.06);
        let black = rating(1450.0, 150.0, 0.07);
        let (white_after, black_after) = rate_game(white, 10.0, black, 40.0, 0.0, &LICHESS);
        let white_aged = white.aged(10.0, &LICHESS);
        let black_aged = black.aged(40.0, &LICHESS);
        assert_eq!(white_after, update(white_aged, &[(black_aged, 0.0)], &LICHESS));
        assert_eq!(black_after, update(black_aged, &[(white_aged, 1.0)], &LICHESS));
        assert!(white_after.rating < 1600.0 && black_after.rating > 1450.0);
    }
}
