// The client's entry point: draws the pieces once, then shows the lobby at `/` or the game at
// `/g/{id}`. One page serves both so a game link works as a bookmark and survives a reload.

import { installPieces } from './pieces.js';
import { startLobby } from './lobby.js';
import { startGame } from './game.js';

installPieces();
const root = document.getElementById('app');
const match = /^\/g\/([A-Za-z0-9]{1,32})\/?$/.exec(location.pathname);
if (match) {
  document.body.classList.add('page-game');
  startGame(root, match[1]);
} else {
  document.body.classList.add('page-lobby');
  startLobby(root);
}
