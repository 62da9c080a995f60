//! What the player pages and the leaderboard show: a player's ratings (their deviation grown
//! by the time since their last rated game, as Glicko-2 has it), results, rating history and
//! finished games, from the store.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use axum::extract::{Path, Query, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Serialize;

use super::games::stored_pgn;
use super::refusal;
use crate::chess::{Color, EndReason};
use crate::protocol::{ClockSpec, GameId, GameResult, PlayerName, VariantName};
use crate::server::accounts::{Account, AccountError, Username};
use crate::server::ratings::{self, glicko::PROVISIONAL_RD, Category};
use crate::server::state::Shared;
use crate::server::store::{now_ms, StoreError, StoredAccount, StoredGame, StoredRating, StoredSeat};

/// Games per page of a player's history.
pub const PAGE: u64 = 20;
/// Players on the leaderboard.
pub const LEADERBOARD: u64 = 100;

/// `/api/me`: who is logged in, and the games they are playing.
#[derive(Serialize)]
pub struct Me {
    pub username: String,
    pub playing: Vec<String>,
}

pub(super) async fn me(shared: &Shared, account: &Account) -> Result<Me, StoreError> {
    let playing = shared.accounts.store().playing(account.id).await?;
    Ok(Me { username: account.username.clone(), playing })
}

/// One rating as pages show it: rounded, with its deviation as of now.
#[derive(Serialize)]
struct RatingView {
    rating: i64,
    rd: i64,
    provisional: bool,
    games: u32,
}

impl RatingView {
    fn of(stored: &StoredRating, now_ms: i64) -> RatingView {
        let now = ratings::current(stored, now_ms);
        RatingView {
            rating: now.rating.round() as i64,
            rd: now.rd.round() as i64,
            provisional: now.provisional(),
            games: stored.games,
        }
    }
}

#[derive(Serialize)]
struct Point {
    at_ms: i64,
    rating: i64,
}

#[derive(Serialize)]
struct PlayerView {
    username: String,
    /// An event stream or a page of theirs is open on this server.
    online: bool,
    /// A bot account (it plays through the Bot API).
    bot: bool,
    ratings: BTreeMap<&'static str, RatingView>,
    wins: u64,
    draws: u64,
    losses: u64,
    history: BTreeMap<&'static str, Vec<Point>>,
}

/// The account called `name` (any case), or the answer to give instead.
async fn find(shared: &Shared, name: &str) -> Result<StoredAccount, Response> {
    let missing = || refusal(StatusCode::NOT_FOUND, format!("no player called {name}"));
    if Username::parse(name).is_err() {
        return Err(missing());
    }
    match shared.accounts.store().account(name).await {
        Ok(Some(account)) => Ok(account),
        Ok(None) => Err(missing()),
        Err(e) => Err(AccountError::Store(e).into_response()),
    }
}

fn failed(e: StoreError) -> Response {
    AccountError::Store(e).into_response()
}

/// `GET /api/players/NAME`.
pub(super) async fn player(State(shared): State<Arc<Shared>>, Path(name): Path<String>) -> Response {
    let account = match find(&shared, &name).await {
        Ok(account) => account,
        Err(response) => return response,
    };
    let store = shared.accounts.store();
    let (ratings, results, history) = match tokio::try_join!(
        store.ratings(account.id),
        store.results(account.id),
        store.rating_history(account.id)
    ) {
        Ok(found) => found,
        Err(e) => return failed(e),
    };
    let now = now_ms();
    let by_category: HashMap<Category, StoredRating> = ratings.into_iter().map(|r| (r.category, r)).collect();
    let ratings = Category::ALL
        .iter()
        .map(|c| {
            let stored = by_category.get(c).copied().unwrap_or_else(|| ratings::first(*c, now));
            (c.name(), RatingView::of(&stored, now))
        })
        .collect();
    let mut points: BTreeMap<&'static str, Vec<Point>> = BTreeMap::new();
    for point in history {
        points
            .entry(point.category.name())
            .or_default()
            .push(Point { at_ms: point.at_ms, rating: point.rating.round() as i64 });
    }
    Json(PlayerView {
        online: shared.notices.is_online(account.id),
        bot: account.bot,
        username: account.username,
        ratings,
        wins: results.wins,
        draws: results.draws,
        losses: results.losses,
        history: points,
    })
    .into_response()
}

/// `GET /api/bots`: the bot accounts (most games first), each with its ratings and whether it
/// is online: the Bots page.
pub(super) async fn bots(State(shared): State<Arc<Shared>>) -> Response {
    let store = shared.accounts.store();
    let bots = match store.bots(BOTS_MAX).await {
        Ok(bots) => bots,
        Err(e) => return failed(e),
    };
    let now = now_ms();
    let mut list = Vec::new();
    for bot in bots {
        let ratings = match store.ratings(bot.id).await {
            Ok(ratings) => ratings,
            Err(e) => return failed(e),
        };
        let ratings: BTreeMap<&'static str, RatingView> =
            ratings.iter().map(|r| (r.category.name(), RatingView::of(r, now))).collect();
        let online = shared.notices.is_online(bot.id);
        list.push(serde_json::json!({ "username": bot.username, "online": online, "ratings": ratings }));
    }
    Json(serde_json::json!({ "bots": list })).into_response()
}

/// The most bots the Bots page lists.
const BOTS_MAX: u64 = 200;

/// One side of a game in a player's history.
#[derive(Serialize)]
struct SideView {
    name: String,
    rating: Option<i32>,
    change: Option<i32>,
}

/// One game of a player's history.
#[derive(Serialize)]
struct HistoryGame {
    game: GameId,
    variant: VariantName,
    rated: bool,
    category: Option<&'static str>,
    clock: Option<ClockSpec>,
    white: SideView,
    black: SideView,
    result: Option<GameResult>,
    reason: Option<EndReason>,
    plies: usize,
    ended_ms: Option<i64>,
    /// The side the player played.
    color: Color,
}

fn history_game(game: StoredGame, account: i64) -> HistoryGame {
    let color = match &game.black {
        StoredSeat::Human { account: Some(a), .. } if *a == account => Color::Black,
        _ => Color::White,
    };
    let side = |seat: &StoredSeat, change: Option<crate::server::store::RatingChange>| SideView {
        name: match seat {
            StoredSeat::Human { name, .. } => PlayerName::shown(PlayerName::from_stored(name.clone()).as_ref()),
            StoredSeat::Bot { level } => PlayerName::of_bot(*level),
            StoredSeat::Engine { name, options } => crate::protocol::engine_label(name, options),
        },
        rating: change.map(|c| c.rating),
        change: change.map(|c| c.change),
    };
    let category = (game.rated).then_some(game.clock).flatten().map(|c| c.category(game.variant).name());
    HistoryGame {
        white: side(&game.white, game.ratings.map(|r| r.white)),
        black: side(&game.black, game.ratings.map(|r| r.black)),
        variant: game.variant.into(),
        rated: game.rated,
        category,
        clock: game.clock.and_then(|c| c.spec()),
        result: game.outcome.map(GameResult::from),
        reason: game.outcome.map(|o| o.reason),
        plies: game.moves.len(),
        ended_ms: game.ended_ms,
        color,
        game: game.id,
    }
}

#[derive(Serialize)]
struct HistoryPage {
    username: String,
    page: u64,
    pages: u64,
    total: u64,
    games: Vec<HistoryGame>,
}

/// `GET /api/players/NAME/games?page=N`: 20 games a page, newest first.
pub(super) async fn games(
    State(shared): State<Arc<Shared>>,
    Path(name): Path<String>,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    if let Some(unknown) = query.keys().find(|k| k.as_str() != "page") {
        return refusal(StatusCode::BAD_REQUEST, format!("unknown parameter {unknown:?}; use page=N"));
    }
    let page = match query.get("page").map(|p| p.parse::<u64>()) {
        None => 1,
        Some(Ok(n)) if (1..=1_000_000).contains(&n) => n,
        Some(_) => return refusal(StatusCode::BAD_REQUEST, "page must be a number from 1"),
    };
    let account = match find(&shared, &name).await {
        Ok(account) => account,
        Err(response) => return response,
    };
    match shared.accounts.store().games_of(account.id, (page - 1) * PAGE, PAGE).await {
        Ok((total, games)) => Json(HistoryPage {
            username: account.username,
            page,
            pages: total.div_ceil(PAGE),
            total,
            games: games.into_iter().map(|g| history_game(g, account.id)).collect(),
        })
        .into_response(),
        Err(e) => failed(e),
    }
}

/// How many games one export reads from the store at a time.
const EXPORT_BATCH: u64 = 200;

/// `GET /api/players/NAME/games.pgn`: every finished game of the player, newest first.
pub(super) async fn export(State(shared): State<Arc<Shared>>, Path(name): Path<String>) -> Response {
    let account = match find(&shared, &name).await {
        Ok(account) => account,
        Err(response) => return response,
    };
    let mut text = String::new();
    let mut offset = 0;
    loop {
        let (total, games) = match shared.accounts.store().games_of(account.id, offset, EXPORT_BATCH).await {
            Ok(found) => found,
            Err(e) => return failed(e),
        };
        for game in games {
            match stored_pgn(&game) {
                Ok(pgn) => {
                    text.push_str(pgn.trim_end());
                    text.push_str("\n\n");
                }
                // A damaged game is left out of the export rather than failing all of it.
                Err(e) => tracing::error!(error = %e, "a game left out of a PGN export"),
            }
        }
        offset += EXPORT_BATCH;
        if offset >= total {
            break;
        }
    }
    let disposition = format!("attachment; filename=\"gambit-{}.pgn\"", account.username);
    (
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8".to_string()), (header::CONTENT_DISPOSITION, disposition)],
        text,
    )
        .into_response()
}

#[derive(Serialize)]
struct Leader {
    username: String,
    rating: i64,
    rd: i64,
    games: u32,
    /// An event stream or a page of theirs is open.
    online: bool,
}

#[derive(Serialize)]
struct Leaderboard {
    category: &'static str,
    players: Vec<Leader>,
}

/// `GET /api/leaderboard?category=C`: the best 100 players whose rating is established.
pub(super) async fn leaderboard(
    State(shared): State<Arc<Shared>>,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let names = Category::ALL.map(Category::name).join(", ");
    let Some(category) = query.get("category").and_then(|c| Category::parse(c)) else {
        return refusal(StatusCode::BAD_REQUEST, format!("give category= one of {names}"));
    };
    // Read more than shown: a deviation grown since the last game may make some provisional.
    let found = match shared.accounts.store().leaderboard(category, PROVISIONAL_RD, LEADERBOARD * 3).await {
        Ok(found) => found,
        Err(e) => return failed(e),
    };
    let now = now_ms();
    let players = found
        .into_iter()
        .map(|(username, stored)| (username, RatingView::of(&stored, now)))
        .filter(|(_, view)| !view.provisional)
        .take(LEADERBOARD as usize)
        .map(|(username, view)| Leader {
            online: shared.notices.is_name_online(&username),
            username,
            rating: view.rating,
            rd: view.rd,
            games: view.games,
        })
        .collect();
    Json(Leaderboard { category: category.name(), players }).into_response()
}
