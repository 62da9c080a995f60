// The client's entry point: draws the pieces once, puts the player's name in the top bar, then
// shows the lobby at `/` or the game at `/g/{id}`. One page serves both so a game link works as a bookmark and survives a reload.

import { installNameBox } from './namebox.js';
import { installPieces } from './pieces.js';
import { startLobby } from './lobby.js';
import { startGame } from './game.js';

installPieces();
installNameBox();
const root = document.getElementById('app');
const match = /^\/g\/([A-Za-z0-9]{1,32})\/?$/.exec(location.pathname);

function start() {
  if (!match) {
    document.body.classList.add('page-lobby');
    startLobby(root);
    return null;
  }
  document.body.classList.add('page-game');
  return startGame(root, match[1]);
}

/**
 * The game page's controller on `/g/{id}` (null on the lobby). Nothing in the client reads it:
 * it is for the browser tests and the curious, who reach it with `import('/assets/js/main.js')`.
 */
export const page = start();
