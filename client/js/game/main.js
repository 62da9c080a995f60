// The game page, /g/{id}: follows one game over the connection and shows it — board, players,
// clocks, status line, move list with review, offers, and the actions of a seated player.
//
// Split as lichess splits its round page: the controller (ctrl.js) holds the state and
// handles messages, applying the server's events through the follower (follow.js); the socket
// is connection.js; the views (view.js and the ones it lays out, board.js) draw from the
// controller.

import { GameCtrl } from './ctrl.js';
import { YourMoveSignal } from './signal.js';
import { GameSounds } from './sounds.js';
import { GameView } from './view.js';

/**
 * Starts the game page for `id` inside `root`; returns its controller. `account` is the promise
 * of who is logged in (account.js `me()`): a logged-in player is seated by their account.
 */
export function startGame(root, id, { account } = {}) {
  const ctrl = new GameCtrl(id, { account });
  const view = new GameView(root, ctrl);
  ctrl.redraw = () => view.render();
  // What the page does as events happen, besides drawing them: sounds and the your-move signal.
  const sounds = new GameSounds(ctrl);
  const signal = new YourMoveSignal(ctrl);
  ctrl.live.listen((msg, live) => {
    sounds.heard(msg, live);
    signal.heard(msg, live);
  });
  ctrl.start();
  return ctrl;
}
