// The client's entry point: draws the pieces once, puts the player's name and account in the top
// bar, then shows the page the path names: the lobby at `/`, a game at `/g/{id}`, the forms at
// `/login` and `/signup`, a player at `/@/{name}`, the leaderboard at `/leaderboard`, the board
// editor at `/editor`, the API tokens at `/account/tokens`, the bots at `/bots`. One page
// serves them all so every link works as a bookmark and survives a reload. Logged in, every
// page follows the player's event stream (events.js) for the top bar's challenges.

import { installTopBar, me } from './account.js';
import { installNameBox } from './namebox.js';
import { installPieces } from './pieces.js';
import { startLobby } from './lobby.js';
import { startGame } from './game/main.js';
import { startSignIn } from './signin.js';
import { startPlayer } from './player.js';
import { startLeaderboard } from './leaderboard.js';
import { startEditor } from './editor.js';
import { startTokens } from './tokens.js';
import { startBots } from './bots.js';
import { installChallengeBar } from './challengeBar.js';
import { startEvents } from './events.js';

installPieces();
installNameBox();
installTopBar();
me().then((who) => {
  if (!who) return;
  installChallengeBar(who);
  startEvents();
});
const root = document.getElementById('app');
const path = location.pathname;

/** The decoded path segment, or null when it is not valid percent-encoding. */
function decoded(segment) {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

function start() {
  const game = /^\/g\/([A-Za-z0-9]{1,32})\/?$/.exec(path);
  if (game) {
    document.body.classList.add('page-game');
    return startGame(root, game[1], { account: me() });
  }
  const player = /^\/@\/([^/]+)\/?$/.exec(path);
  const name = player && decoded(player[1]);
  if (name) {
    document.body.classList.add('page-player');
    startPlayer(root, name);
    return null;
  }
  if (path === '/login' || path === '/signup') {
    document.body.classList.add('page-account');
    startSignIn(root, path.slice(1));
    return null;
  }
  if (path === '/leaderboard' || path === '/leaderboard/') {
    document.body.classList.add('page-leaderboard');
    startLeaderboard(root);
    return null;
  }
  if (path === '/editor' || path === '/editor/') {
    document.body.classList.add('page-editor');
    startEditor(root);
    return null;
  }
  if (path === '/account/tokens' || path === '/account/tokens/') {
    document.body.classList.add('page-tokens');
    startTokens(root);
    return null;
  }
  if (path === '/bots' || path === '/bots/') {
    document.body.classList.add('page-bots');
    startBots(root);
    return null;
  }
  document.body.classList.add('page-lobby');
  startLobby(root);
  return null;
}

/**
 * The game page's controller on `/g/{id}` (null on the other pages). Nothing in the client reads
 * it: it is for the browser tests and the curious, who reach it with `import('/assets/js/main.js')`.
 */
export const page = start();
