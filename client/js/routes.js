// The client's pages by path, and the modules each page needs: main.js starts the page the path
// names with a dynamic `import()` of its entry module, after announcing the entry's whole module
// graph with `<link rel="modulepreload">` so the modules download side by side instead of one
// import level at a time. `graph` lists the entry's imports, direct and indirect, apart from
// the modules every page loads (main.js's own imports, preloaded by index.html);
// tests/js/routes.test.mjs checks every list against the real import graph. Pure data, so Node
// can check it.

/**
 * Each page: the path it answers, its body class, its entry module and that module's graph
 * (paths under /assets/js/, besides the modules this file imports already). `start(module,
 * root, match)` starts it and returns the page's controller (only the game page has one).
 */
export const ROUTES = [
  {
    name: 'game', path: /^\/g\/([A-Za-z0-9]{1,32})\/?$/, module: 'game/main.js',
    graph: [
      'animate.js', 'arrows.js', 'blindText.js', 'board.js', 'chess.js', 'chess960.js', 'clock.js', 'connection.js',
      'corres.js', 'evalGraph.js', 'follow.js', 'game/analysis.js', 'game/berserk.js', 'game/blind.js', 'game/chat.js',
      'game/clocks.js', 'game/controls.js', 'game/corres.js', 'game/ctrl.js', 'game/live.js', 'game/moves.js',
      'game/players.js', 'game/premoveToggle.js', 'game/premoves.js', 'game/prompts.js',
      'game/ratings.js', 'game/signal.js', 'game/sounds.js', 'game/status.js', 'game/view.js',
      'legend.js', 'outcome.js', 'playerRatings.js', 'premove.js', 'ratings.js', 'setup.js',
      'social.js', 'svg.js',
    ],
    start: (m, root, match, { account }) => m.startGame(root, match[1], { account }),
  },
  {
    name: 'player', path: /^\/@\/([^/]+)\/?$/, module: 'player.js',
    graph: [
      'challengeForm.js', 'challenges.js', 'clock.js', 'corres.js', 'events.js', 'ndjson.js', 'outcome.js',
      'ratingGraph.js', 'ratings.js', 'svg.js',
    ],
    start: (m, root, match) => m.startPlayer(root, decoded(match[1])),
    accepts: (match) => decoded(match[1]) !== null,
  },
  {
    name: 'account', path: /^\/(login|signup)$/, module: 'signin.js', graph: [],
    start: (m, root, match) => m.startSignIn(root, match[1]),
  },
  { name: 'leaderboard', path: /^\/leaderboard\/?$/, module: 'leaderboard.js', graph: ['ratings.js'], start: (m, root) => m.startLeaderboard(root) },
  {
    name: 'editor', path: /^\/editor\/?$/, module: 'editor.js',
    graph: [
      'animate.js', 'arrows.js', 'board.js', 'chess.js', 'chess960.js', 'connection.js', 'create.js', 'engines.js',
      'levels.js', 'setup.js', 'svg.js',
    ],
    start: (m, root) => m.startEditor(root),
  },
  { name: 'tokens', path: /^\/account\/tokens\/?$/, module: 'tokens.js', graph: [], start: (m, root) => m.startTokens(root) },
  {
    name: 'bots', path: /^\/bots\/?$/, module: 'bots.js',
    graph: ['challengeForm.js', 'challenges.js', 'corres.js', 'events.js', 'ndjson.js', 'ratings.js'],
    start: (m, root) => m.startBots(root),
  },
  {
    name: 'tv', path: /^\/tv(?:\/(bots))?\/?$/, module: 'tv/main.js',
    graph: [
      'animate.js', 'arrows.js', 'board.js', 'chess.js', 'clock.js', 'connection.js', 'corres.js', 'follow.js',
      'game/berserk.js', 'game/clocks.js', 'game/players.js', 'game/ratings.js', 'game/status.js', 'outcome.js',
      'playerRatings.js', 'ratings.js', 'social.js', 'svg.js', 'tv/channels.js', 'tv/ctrl.js', 'tv/view.js',
    ],
    start: (m, root, match) => m.startTv(root, match[1] === 'bots' ? 'bot' : 'best'),
  },
  {
    name: 'tournaments', path: /^\/tournaments\/?$/, module: 'tournaments.js',
    graph: [
      'challenges.js', 'corres.js', 'ratings.js', 'tournament/arenaRules.js', 'tournament/common.js', 'tournament/forms.js',
      'tournament/http.js', 'tournament/list.js', 'poll.js', 'tournament/roundRobinRules.js',
    ],
    start: (m, root) => m.startTournaments(root),
  },
  {
    name: 'tournament', path: /^\/tournament\/([A-Za-z0-9]{1,32})\/?$/, module: 'tournament/arena.js',
    graph: [
      'animate.js', 'arrows.js', 'board.js', 'challenges.js', 'chess.js', 'corres.js', 'levels.js', 'ratings.js', 'svg.js',
      'tournament/actions.js', 'tournament/arenaRules.js', 'tournament/common.js', 'tournament/http.js', 'poll.js',
    ],
    start: (m, root, match) => m.startArena(root, match[1]),
  },
  {
    name: 'roundrobin', path: /^\/roundrobin\/([A-Za-z0-9]{1,32})\/?$/, module: 'tournament/roundRobin.js',
    graph: [
      'challenges.js', 'corres.js', 'ratings.js', 'tournament/actions.js', 'tournament/common.js', 'tournament/http.js',
      'poll.js', 'tournament/roundRobinRules.js',
    ],
    start: (m, root, match) => m.startRoundRobin(root, match[1]),
  },
  {
    name: 'lobby', path: /^/, module: 'lobby.js',
    graph: [
      'clock.js', 'connection.js', 'corres.js', 'create.js', 'engines.js', 'legend.js', 'levels.js',
      'playerRatings.js', 'ratings.js',
    ],
    start: (m, root) => m.startLobby(root),
  },
];

/** The decoded path segment, or null when it is not valid percent-encoding. */
function decoded(segment) {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

/** The route for `path` and its match (the lobby answers every path the others do not). */
export function routeFor(path) {
  for (const route of ROUTES) {
    const match = route.path.exec(path);
    if (match && (!route.accepts || route.accepts(match))) return { route, match };
  }
  return null;
}
